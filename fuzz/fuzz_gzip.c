/* fuzz_gzip.c - gzip member framing and inflation through the library's reader (read/gzip.c):
 * the input is a .gz file. No crash and no hang on any bytes; and when the whole file decodes
 * without damage, decoding it in segments at the split points the reader finds gives the same
 * bytes (that is how large multi-member files are read in parallel). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/diag.h"
#include "read/gzip.h"

typedef struct decoded {
    unsigned char *v;
    size_t n, cap;
} decoded;

static void die(const char *what)
{
    fprintf(stderr, "fuzz: %s\n", what);
    abort();
}

static void append(decoded *d, const char *buf, size_t n)
{
    if (d->n + n > d->cap) {
        size_t cap = d->cap ? d->cap : 4096;
        while (cap < d->n + n)
            cap *= 2;
        unsigned char *v = realloc(d->v, cap);
        if (!v)
            die("out of memory");
        d->v = v;
        d->cap = cap;
    }
    memcpy(d->v + d->n, buf, n);
    d->n += n;
}

/* Decodes [start, stop) into out in reads of `cap` bytes; returns the damage reported. */
static uint64_t decode(int fd, uint64_t size, uint64_t start, uint64_t stop, size_t cap,
                       decoded *out, uint64_t *end)
{
    dfs_diag diag;
    dfs_diag_init(&diag, 3);
    dfs_gzreader *r = dfs_gz_open(fd, size, start, stop, &diag, 0);
    if (!r)
        die("dfs_gz_open failed");
    char *buf = malloc(cap);
    if (!buf)
        die("out of memory");
    /* A bound on the output: deflate expands at most about 1032:1; more would be a loop. */
    uint64_t limit = (size + 64) * 1100;
    for (;;) {
        ssize_t n = dfs_gz_read(r, buf, cap);
        if (n < 0)
            die("read error on a memory file");
        if (n == 0)
            break;
        if ((size_t)n > cap)
            die("dfs_gz_read wrote more than asked");
        if (out)
            append(out, buf, (size_t)n);
        if ((limit -= (uint64_t)n > limit ? limit : (uint64_t)n) == 0)
            die("more output than deflate can produce");
    }
    *end = dfs_gz_end(r);
    if (*end > size)
        die("decoding ended beyond the file");
    free(buf);
    dfs_gz_close(r);
    uint64_t damage = dfs_diag_damage(&diag);
    dfs_diag_free(&diag);
    return damage;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    int fd = memfd_create("fuzz-gzip", 0);
    if (fd < 0)
        die("memfd_create failed");
    if (len && write(fd, data, len) != (ssize_t)len)
        die("write to memfd failed");
    size_t cap = 1 + (len ? data[len - 1] : 0) * 64u; /* odd read sizes too */
    decoded whole = {0};
    uint64_t end;
    uint64_t damage = decode(fd, len, 0, UINT64_MAX, cap, &whole, &end);
    if (damage == 0) {
        uint64_t points[16];
        size_t np = dfs_gz_split_points(fd, len, 64, points, 16);
        if (np == 0 || points[0] != 0)
            die("split points must start at 0");
        decoded parts = {0};
        bool wrong_point = false;
        for (size_t i = 0; i < np; i++) {
            if (i && points[i] <= points[i - 1])
                die("split points must increase");
            uint64_t stop = i + 1 < np ? points[i + 1] : UINT64_MAX;
            decode(fd, len, points[i], stop, cap, &parts, &end);
            /* gzip.h: a member stored verbatim inside another can pass for a start; the caller
             * sees it because the segment before it ends beyond it */
            wrong_point |= i + 1 < np && end > stop;
        }
        if (!wrong_point &&
            (parts.n != whole.n || (whole.n && memcmp(parts.v, whole.v, whole.n) != 0)))
            die("segments decode differently from the whole file");
        free(parts.v);
    }
    free(whole.v);
    close(fd);
    return 0;
}
