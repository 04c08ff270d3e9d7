/* bench_framer.c - hand-run throughput check of the JSON line path (not a ctest test).
 *
 * Built by `make bench` (target bench_framer, not part of `all`).
 * Run: build/bench_framer FILE [want: none|io|all] [repeat]
 * The file is read into memory once; the framer then gets it in 1 MiB pieces the way the reader
 * pipeline feeds it (unconsumed bytes are kept and fed again), on one thread. Prints MB/s and
 * events/s of the best repetition, in thread CPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dfscope.h"
#include "parse/framer.h"
#include "read/sniff.h"

static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)size + 1);
    if (!b || fread(b, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(b);
        return NULL;
    }
    fclose(f);
    *n = (size_t)size;
    return b;
}

/* CPU time of this thread: on a shared 2-core machine wall time mostly measures the others. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One pass over the data; returns the events produced. */
static uint64_t one_pass(const char *data, size_t n, dfs_sniffed sn, dfs_strtab *t,
                         dfs_strcache *c, const dfs_want_set *w, const dfs_options *o)
{
    enum { PIECE = 1 << 20 };
    dfs_batchbuf b;
    dfs_batchbuf_init(&b);
    dfs_pctx p;
    dfs_pctx_init(&p, t, c, w, o, &b);
    dfs_stream st;
    dfs_stream_init(&st, 0, 0, o->max_examples);
    p.st = &st;
    dfs_framer f;
    dfs_framer_init(&f, sn.format, sn.structural);
    char *buf = malloc(4 * (size_t)PIECE);
    size_t pos = 0, have = 0;
    uint64_t events = 0;
    for (;;) {
        size_t add = n - pos < PIECE ? n - pos : PIECE;
        memcpy(buf + have, data + pos, add);
        pos += add;
        have += add;
        int flags = pos == n ? DFS_FEED_FINAL : 0;
        size_t used = dfs_framer_feed(&f, &p, buf, have, pos - have, flags);
        events += b.events.n;
        dfs_batchbuf_clear(&b);
        memmove(buf, buf + used, have - used);
        have -= used;
        if (flags)
            break;
    }
    dfs_framer_finish(&f, &p);
    free(buf);
    dfs_stream_free(&st);
    dfs_pctx_free(&p);
    dfs_batchbuf_free(&b);
    return events;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [none|io|all] [repeat]\n", argv[0]);
        return 2;
    }
    size_t n;
    char *data = read_file(argv[1], &n);
    if (!data) {
        perror(argv[1]);
        return 1;
    }
    const char *want = argc > 2 ? argv[2] : "none";
    int repeat = argc > 3 ? atoi(argv[3]) : 3;
    dfs_sniffed sn = dfs_sniff((const unsigned char *)data, n < 262144 ? n : 262144, n < 262144);
    dfs_strtab *t = dfs_strtab_new();
    dfs_strcache *c = dfs_strcache_new(t);
    dfs_want_set w = {0};
    if (strcmp(want, "io") == 0)
        w.keys = DFS_KEYBIT(DFS_KEY_RET) | DFS_KEYBIT(DFS_KEY_SIZE) | DFS_KEYBIT(DFS_KEY_COUNT) |
                 DFS_KEYBIT(DFS_KEY_OFFSET);
    else if (strcmp(want, "all") == 0)
        w.all = true;
    dfs_options o = {.jobs = 1, .max_examples = 5, .max_record = 64u << 20};
    double best = 1e30;
    uint64_t events = 0;
    for (int r = 0; r < repeat; r++) {
        double t0 = now();
        events = one_pass(data, n, sn, t, c, &w, &o);
        double dt = now() - t0;
        if (dt < best)
            best = dt;
    }
    printf("%s: %zu bytes, %llu events, want=%s: %.0f MB/s, %.2f M events/s (best of %d)\n",
           argv[1], n, (unsigned long long)events, want, n / best / 1e6, events / best / 1e6, repeat);
    dfs_strcache_free(c);
    dfs_strtab_free(t);
    free(data);
    return 0;
}
