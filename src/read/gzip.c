/* gzip.c - RFC 1952 member framing over ISA-L raw inflate.
 *
 * We parse member headers and trailers ourselves and let ISA-L inflate the raw deflate data
 * (crc_flag ISAL_GZIP_NO_HDR: it also computes the CRC32 of the output, which is fast). Owning
 * the framing is what gives exact compressed offsets: the end of a deflate stream is where ISA-L
 * stopped reading minus the whole bytes it still holds in its bit buffer, so every member end,
 * trailer, split point and trailing-garbage offset is byte exact. */
#include "read/gzip.h"

#include <errno.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GZ_READ_BUF (1u << 20)     /* pread size of a reader (the brief: about 1 MiB) */
#define GZ_PROBE_BUF (64u << 10)   /* smaller buffers for split-point confirmation */
#define GZ_HDR_MIN 10u
#define GZ_TRAILER 8u

/* Header flags. FTEXT (0x01) is only a hint about the content and is ignored. */
#define GZ_FHCRC 0x02u
#define GZ_FEXTRA 0x04u
#define GZ_FNAME 0x08u
#define GZ_FCOMMENT 0x10u
#define GZ_FRESERVED 0xE0u

typedef enum gz_state { GZ_HEADER, GZ_BODY, GZ_TRAILER_STATE, GZ_DONE } gz_state;

/* Result of parsing a member header from the bytes at hand. */
typedef enum gz_hdr_result {
    GZH_OK,      /* complete and valid; *hlen is its length */
    GZH_MORE,    /* valid so far, but the bytes end inside the header */
    GZH_BAD,     /* not a gzip member header */
    GZH_BAD_HCRC /* complete, but the FHCRC check failed */
} gz_hdr_result;

struct dfs_gzreader {
    int fd;
    uint64_t file_size;
    uint64_t stop;
    dfs_diag *diag;
    uint32_t file;
    gz_state state;
    int read_errno;         /* a read error seen after some output was returned */

    unsigned char *in;      /* input window: file bytes [in_off, in_off + in_len) */
    size_t in_cap;
    size_t in_len;
    size_t in_pos;          /* next unconsumed byte of the window */
    uint64_t in_off;

    uint64_t member_start;  /* compressed offset of the current member's header */
    uint64_t member_out;    /* bytes inflated from the current member */
    uint32_t members;
    uint64_t problems;      /* damage found by this reader (also counted when diag is NULL) */
    bool truncated;
    uint64_t end;

    struct inflate_state inf;
};

bool dfs_gz_magic(const unsigned char *p, size_t n) { return n >= 2 && p[0] == 0x1F && p[1] == 0x8B; }

static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Skips a zero-terminated field starting at *pos; GZH_MORE when the terminator is not in p[0..n). */
static gz_hdr_result skip_cstring(const unsigned char *p, size_t n, size_t *pos)
{
    const unsigned char *nul = *pos < n ? memchr(p + *pos, 0, n - *pos) : NULL;
    if (!nul)
        return GZH_MORE;
    *pos = (size_t)(nul - p) + 1;
    return GZH_OK;
}

/* Parses the member header at p[0..n). The OS byte and MTIME are deliberately not checked
 * (the TensorFlow profiler writes OS 0x13, many writers leave MTIME 0). */
static gz_hdr_result parse_header(const unsigned char *p, size_t n, size_t *hlen)
{
    static const unsigned char fixed[3] = {0x1F, 0x8B, 0x08};
    for (size_t i = 0; i < 3 && i < n; i++)
        if (p[i] != fixed[i])
            return GZH_BAD;
    if (n < 4)
        return GZH_MORE;
    unsigned flags = p[3];
    if (flags & GZ_FRESERVED)
        return GZH_BAD;
    if (n < GZ_HDR_MIN)
        return GZH_MORE;
    size_t pos = GZ_HDR_MIN;
    if (flags & GZ_FEXTRA) {
        if (n < pos + 2)
            return GZH_MORE;
        pos += 2 + ((size_t)p[pos] | (size_t)p[pos + 1] << 8);
        if (n < pos)
            return GZH_MORE;
    }
    if ((flags & GZ_FNAME) && skip_cstring(p, n, &pos) != GZH_OK)
        return GZH_MORE;
    if ((flags & GZ_FCOMMENT) && skip_cstring(p, n, &pos) != GZH_OK)
        return GZH_MORE;
    if (flags & GZ_FHCRC) {
        if (n < pos + 2)
            return GZH_MORE;
        uint32_t crc = crc32_gzip_refl(0, p, pos);
        unsigned stored = (unsigned)p[pos] | (unsigned)p[pos + 1] << 8;
        pos += 2;
        *hlen = pos;
        return (crc & 0xFFFFu) == stored ? GZH_OK : GZH_BAD_HCRC;
    }
    *hlen = pos;
    return GZH_OK;
}

typedef unsigned long long ull; /* for printf: uint64_t is not always unsigned long long */

/* Counts a problem of this reader and reports it when the reader has a diag. */
__attribute__((format(printf, 4, 5))) static void report(dfs_gzreader *r, dfs_problem p,
                                                         uint64_t offset, const char *fmt, ...)
{
    r->problems++;
    if (!r->diag)
        return;
    char detail[sizeof ((dfs_example *)0)->detail];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    dfs_diag_add(r->diag, p, r->file, 0, offset, "%s", detail);
}

/* ---- input window ------------------------------------------------------------------------ */

static size_t window_avail(const dfs_gzreader *r) { return r->in_len - r->in_pos; }
static uint64_t window_pos(const dfs_gzreader *r) { return r->in_off + r->in_pos; }

/* Moves the unconsumed bytes to the front and reads more after them. Returns the bytes added,
 * 0 at the end of the file (or when the window is full), -1 on a read error. */
static ssize_t window_fill(dfs_gzreader *r)
{
    size_t keep = window_avail(r);
    if (r->in_pos) {
        memmove(r->in, r->in + r->in_pos, keep);
        r->in_off += r->in_pos;
        r->in_pos = 0;
        r->in_len = keep;
    }
    uint64_t at = r->in_off + r->in_len;
    if (at >= r->file_size || r->in_len == r->in_cap)
        return 0;
    size_t want = r->in_cap - r->in_len;
    if (want > r->file_size - at)
        want = (size_t)(r->file_size - at);
    ssize_t got;
    do
        got = pread(r->fd, r->in + r->in_len, want, (off_t)at);
    while (got < 0 && errno == EINTR);
    if (got > 0)
        r->in_len += (size_t)got;
    return got;
}

/* Positions the window at an absolute offset, keeping the buffered bytes when possible. */
static void window_seek(dfs_gzreader *r, uint64_t off)
{
    if (off >= r->in_off && off <= r->in_off + r->in_len) {
        r->in_pos = (size_t)(off - r->in_off);
    } else {
        r->in_off = off;
        r->in_len = 0;
        r->in_pos = 0;
    }
}

/* ---- reader states ----------------------------------------------------------------------- */

static void finish(dfs_gzreader *r, uint64_t end)
{
    r->state = GZ_DONE;
    r->end = end;
}

/* A member ended at `end`: decide whether another one follows in this reader's range. */
static void member_done(dfs_gzreader *r, uint64_t end)
{
    window_seek(r, end);
    if (end >= r->stop || end >= r->file_size)
        finish(r, end);
    else
        r->state = GZ_HEADER;
    r->end = end;
}

static void begin_member(dfs_gzreader *r, size_t hlen)
{
    r->member_start = window_pos(r);
    r->in_pos += hlen;
    r->member_out = 0;
    r->members++;
    isal_inflate_reset(&r->inf);
    r->inf.crc_flag = ISAL_GZIP_NO_HDR;
    r->state = GZ_BODY;
}

/* The bytes at the window position are not a usable header. After a complete member this is
 * trailing garbage; at the reader's first member it means the data is not gzip at all. */
static void bad_header(dfs_gzreader *r)
{
    uint64_t at = window_pos(r);
    if (r->members)
        report(r, DFS_PROB_TRAILING_GARBAGE, at, "%llu bytes after the last gzip member",
               (ull)(r->file_size - at));
    else
        report(r, DFS_PROB_GZIP_CORRUPT, at, "no gzip member header at offset %llu", (ull)at);
    finish(r, at);
}

/* Returns 0 when the state advanced, -1 on a read error. */
static int step_header(dfs_gzreader *r)
{
    for (;;) {
        size_t hlen = 0;
        gz_hdr_result h = parse_header(r->in + r->in_pos, window_avail(r), &hlen);
        if (h == GZH_OK || h == GZH_BAD_HCRC) {
            if (h == GZH_BAD_HCRC)
                report(r, DFS_PROB_GZIP_CRC, window_pos(r),
                       "header CRC16 mismatch in the gzip member at %llu", (ull)window_pos(r));
            begin_member(r, hlen);
            return 0;
        }
        if (h == GZH_BAD) {
            bad_header(r);
            return 0;
        }
        if (window_avail(r) == r->in_cap) { /* a header longer than the whole window */
            report(r, DFS_PROB_GZIP_CORRUPT, window_pos(r),
                   "gzip header at %llu longer than %zu bytes", (ull)window_pos(r), r->in_cap);
            finish(r, window_pos(r));
            return 0;
        }
        ssize_t got = window_fill(r);
        if (got < 0)
            return -1;
        if (got == 0) {
            if (window_avail(r) == 0) { /* clean end: nothing after the last member */
                finish(r, window_pos(r));
                return 0;
            }
            r->truncated = true;
            report(r, DFS_PROB_GZIP_TRUNCATED, window_pos(r),
                   "gzip header at %llu cut by the end of the file", (ull)window_pos(r));
            finish(r, window_pos(r) + window_avail(r));
            return 0;
        }
    }
}

/* Compressed offset just past the deflate data of a finished member: ISA-L may have pulled up
 * to 8 bytes beyond it into its bit buffer (and, in principle, its header scratch buffer). */
static uint64_t deflate_end(const dfs_gzreader *r)
{
    uint64_t held = (uint64_t)(r->inf.read_in_length / 8) + (uint64_t)r->inf.tmp_in_size;
    return window_pos(r) - held;
}

/* The input ended inside the current member: everything inflated so far has been returned. */
static void report_truncated(dfs_gzreader *r)
{
    uint64_t at = r->in_off + r->in_len;
    r->truncated = true;
    report(r, DFS_PROB_GZIP_TRUNCATED, r->member_start,
           "gzip member at %llu cut by the end of the file at %llu", (ull)r->member_start, (ull)at);
    finish(r, at);
}

/* Inflates into out[0..cap). Returns the bytes written, -1 on a read error. */
static ssize_t step_body(dfs_gzreader *r, char *out, size_t cap)
{
    bool at_eof = false;
    if (window_avail(r) == 0 && r->inf.block_state != ISAL_BLOCK_INPUT_DONE) {
        ssize_t got = window_fill(r);
        if (got < 0)
            return -1;
        at_eof = got == 0;
    }
    r->inf.next_in = r->in + r->in_pos;
    r->inf.avail_in = (uint32_t)window_avail(r);
    r->inf.next_out = (uint8_t *)out;
    r->inf.avail_out = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    size_t in_before = r->in_pos;
    int ret = isal_inflate(&r->inf);
    size_t produced = (size_t)((char *)r->inf.next_out - out);
    r->in_pos = (size_t)(r->inf.next_in - r->in);
    r->member_out += produced;

    if (ret < 0) {
        report(r, DFS_PROB_GZIP_CORRUPT, window_pos(r),
               "invalid deflate data (ISA-L %d) in the gzip member at %llu", ret,
               (ull)r->member_start);
        finish(r, window_pos(r));
    } else if (r->inf.block_state == ISAL_BLOCK_FINISH) {
        window_seek(r, deflate_end(r));
        r->state = GZ_TRAILER_STATE;
    } else if (produced == 0 && r->in_pos == in_before) {
        /* No progress: the input ended (or, defensively, ISA-L wants more than it was given). */
        ssize_t got = at_eof ? 0 : window_fill(r);
        if (got < 0)
            return -1;
        if (got == 0)
            report_truncated(r);
    }
    return (ssize_t)produced;
}

static int step_trailer(dfs_gzreader *r)
{
    while (window_avail(r) < GZ_TRAILER) {
        ssize_t got = window_fill(r);
        if (got < 0)
            return -1;
        if (got == 0) {
            report_truncated(r);
            return 0;
        }
    }
    const unsigned char *t = r->in + r->in_pos;
    uint32_t crc = load_le32(t), isize = load_le32(t + 4);
    if (crc != r->inf.crc)
        report(r, DFS_PROB_GZIP_CRC, r->member_start,
               "gzip member at %llu: CRC32 %08x, computed %08x", (ull)r->member_start,
               (unsigned)crc, (unsigned)r->inf.crc);
    else if (isize != (uint32_t)r->member_out)
        report(r, DFS_PROB_GZIP_CRC, r->member_start, "gzip member at %llu: ISIZE %u, inflated %llu",
               (ull)r->member_start, (unsigned)isize, (ull)r->member_out);
    member_done(r, window_pos(r) + GZ_TRAILER);
    return 0;
}

/* ---- public reader ----------------------------------------------------------------------- */

static dfs_gzreader *gz_open_buffered(int fd, uint64_t file_size, uint64_t start, uint64_t stop,
                                      dfs_diag *diag, uint32_t file, size_t buf)
{
    dfs_gzreader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->in = malloc(buf);
    if (!r->in) {
        free(r);
        return NULL;
    }
    r->in_cap = buf;
    r->fd = fd;
    r->file_size = file_size;
    r->stop = stop;
    r->diag = diag;
    r->file = file;
    r->in_off = start;
    r->member_start = start;
    r->end = start;
    isal_inflate_init(&r->inf);
    r->state = start >= file_size || start >= stop ? GZ_DONE : GZ_HEADER;
    return r;
}

dfs_gzreader *dfs_gz_open(int fd, uint64_t file_size, uint64_t start, uint64_t stop,
                          dfs_diag *diag, uint32_t file)
{
    return gz_open_buffered(fd, file_size, start, stop, diag, file, GZ_READ_BUF);
}

ssize_t dfs_gz_read(dfs_gzreader *r, char *out, size_t cap)
{
    if (r->read_errno) {
        errno = r->read_errno;
        return -1;
    }
    size_t total = 0;
    while (total < cap && r->state != GZ_DONE) {
        ssize_t n = 0;
        if (r->state == GZ_HEADER)
            n = step_header(r);
        else if (r->state == GZ_BODY)
            n = step_body(r, out + total, cap - total);
        else
            n = step_trailer(r);
        if (n < 0) {
            if (total == 0)
                return -1;
            r->read_errno = errno ? errno : EIO; /* report it on the next call */
            break;
        }
        total += (size_t)n;
    }
    return (ssize_t)total;
}

uint32_t dfs_gz_members(const dfs_gzreader *r) { return r->members; }
bool dfs_gz_truncated(const dfs_gzreader *r) { return r->truncated; }
uint64_t dfs_gz_end(const dfs_gzreader *r) { return r->end; }
uint64_t dfs_gz_consumed(const dfs_gzreader *r) { return window_pos(r); }

void dfs_gz_close(dfs_gzreader *r)
{
    if (!r)
        return;
    free(r->in);
    free(r);
}

/* ---- split points ------------------------------------------------------------------------ */

/* First offset >= from holding 1F 8B 08 and a flag byte without reserved bits, or UINT64_MAX. */
static uint64_t find_candidate(int fd, uint64_t file_size, uint64_t from, unsigned char *buf,
                               size_t cap)
{
    while (from + 4 <= file_size) {
        size_t want = cap;
        if (want > file_size - from)
            want = (size_t)(file_size - from);
        ssize_t got = pread(fd, buf, want, (off_t)from);
        if (got < 4)
            return UINT64_MAX;
        size_t n = (size_t)got;
        for (size_t i = 0; i + 4 <= n; i++) {
            const unsigned char *p = memchr(buf + i, 0x1F, n - 3 - i);
            if (!p)
                break;
            i = (size_t)(p - buf);
            if (p[1] == 0x8B && p[2] == 0x08 && !(p[3] & GZ_FRESERVED))
                return from + i;
        }
        from += n - 3; /* the last 3 bytes may start a candidate cut by the buffer end */
    }
    return UINT64_MAX;
}

/* True when a complete, valid member header starts at `at`. */
static bool header_at(int fd, uint64_t file_size, uint64_t at, unsigned char *buf, size_t cap)
{
    size_t want = cap;
    if (want > file_size - at)
        want = (size_t)(file_size - at);
    ssize_t got = pread(fd, buf, want, (off_t)at);
    size_t hlen;
    return got > 0 && parse_header(buf, (size_t)got, &hlen) == GZH_OK;
}

/* A candidate is a real member start when the member inflates completely with matching CRC32
 * and ISIZE, and is followed by the end of the file or another member header. The second test
 * rejects a whole gzip member stored verbatim inside another member's data (a .gz inside a
 * .tar.gz), which the first test alone would accept. */
static bool confirm_member(int fd, uint64_t file_size, uint64_t at, char *scratch, size_t cap,
                           unsigned char *hdr_buf, size_t hdr_cap)
{
    dfs_gzreader *r = gz_open_buffered(fd, file_size, at, at + 1, NULL, 0, GZ_PROBE_BUF);
    if (!r)
        return false;
    ssize_t n;
    do
        n = dfs_gz_read(r, scratch, cap);
    while (n > 0);
    bool ok = n == 0 && r->members == 1 && r->problems == 0 && !r->truncated;
    uint64_t end = r->end;
    dfs_gz_close(r);
    if (!ok || end <= at)
        return false;
    return end == file_size || header_at(fd, file_size, end, hdr_buf, hdr_cap);
}

size_t dfs_gz_split_points(int fd, uint64_t file_size, uint64_t target, uint64_t *out, size_t max)
{
    if (max == 0)
        return 0;
    out[0] = 0;
    size_t count = 1;
    if (target == 0 || file_size <= target || max == 1)
        return count;
    unsigned char *scan = malloc(GZ_PROBE_BUF);
    char *scratch = malloc(GZ_PROBE_BUF * 4);
    if (!scan || !scratch) {
        free(scan);
        free(scratch);
        return count;
    }
    uint64_t from = target;
    while (count < max && from < file_size) {
        uint64_t c = find_candidate(fd, file_size, from, scan, GZ_PROBE_BUF);
        if (c == UINT64_MAX)
            break;
        if (confirm_member(fd, file_size, c, scratch, GZ_PROBE_BUF * 4, scan, GZ_PROBE_BUF)) {
            out[count++] = c;
            from = (c / target + 1) * target;
        } else {
            from = c + 1;
        }
    }
    free(scan);
    free(scratch);
    return count;
}

uint64_t dfs_gz_member_at_or_after(int fd, uint64_t file_size, uint64_t pos)
{
    if (pos == 0 || pos >= file_size)
        return pos >= file_size ? file_size : 0;
    unsigned char *scan = malloc(GZ_PROBE_BUF);
    char *scratch = malloc(GZ_PROBE_BUF * 4);
    uint64_t found = UINT64_MAX;
    for (uint64_t from = pos; scan && scratch && from < file_size;) {
        uint64_t c = find_candidate(fd, file_size, from, scan, GZ_PROBE_BUF);
        if (c == UINT64_MAX) {
            found = file_size;
            break;
        }
        if (confirm_member(fd, file_size, c, scratch, GZ_PROBE_BUF * 4, scan, GZ_PROBE_BUF)) {
            found = c;
            break;
        }
        from = c + 1;
    }
    free(scan);
    free(scratch);
    return found;
}
