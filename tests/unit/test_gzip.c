/* test_gzip.c - the gzip member reader and split points (read/gzip.h). */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "model/diag.h"
#include "read/gzip.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static void put_le32(tu_bytes *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        tu_put_byte(b, (v >> (8 * i)) & 0xFF);
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* DFTracer-like JSON lines, deterministic for a seed. */
static tu_bytes make_text(size_t approx, uint64_t seed)
{
    tu_bytes b = {0};
    uint64_t s = seed | 1;
    char line[256];
    for (unsigned id = 0; b.n < approx; id++) {
        int n = snprintf(line, sizeof line,
                         "{\"id\":%u,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%u,\"tid\":%u,"
                         "\"ts\":%llu,\"dur\":%u,\"ph\":\"X\"}\n",
                         id, (unsigned)(rng_next(&s) % 64), (unsigned)(rng_next(&s) % 8),
                         (unsigned long long)(1700000000000000ull + id * 17),
                         (unsigned)(rng_next(&s) % 100000));
        tu_put(&b, line, (size_t)n);
    }
    return b;
}

typedef struct member_opts {
    unsigned flags;     /* FTEXT 1, FHCRC 2, FEXTRA 4, FNAME 8, FCOMMENT 16 */
    unsigned os;
    int level;          /* zlib level; 0 = stored blocks */
    bool bad_crc;
    bool bad_isize;
} member_opts;

static const member_opts plain = {.os = 3, .level = 6};

static void deflate_raw(tu_bytes *out, const unsigned char *data, size_t len, int level)
{
    z_stream zs = {0};
    assert_int_equal(deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t bound = deflateBound(&zs, (uLong)len) + 16;
    unsigned char *tmp = malloc(bound);
    assert_non_null(tmp);
    zs.next_in = (unsigned char *)data;
    zs.avail_in = (uInt)len;
    zs.next_out = tmp;
    zs.avail_out = (uInt)bound;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    tu_put(out, tmp, zs.total_out);
    deflateEnd(&zs);
    free(tmp);
}

/* Appends one gzip member with a header written by hand; returns the member's offset. */
static size_t add_member(tu_bytes *b, const void *data, size_t len, member_opts o)
{
    size_t start = b->n;
    static const unsigned char magic[] = {0x1F, 0x8B, 0x08};
    tu_put(b, magic, 3);
    tu_put_byte(b, o.flags);
    put_le32(b, 0); /* MTIME 0 */
    tu_put_byte(b, 0);
    tu_put_byte(b, o.os);
    if (o.flags & 4) {
        static const char extra[] = "AB\x05\x00hello";
        tu_put_byte(b, sizeof extra - 1);
        tu_put_byte(b, 0);
        tu_put(b, extra, sizeof extra - 1);
    }
    if (o.flags & 8)
        tu_put(b, "trace-name.pfw", 15);
    if (o.flags & 16)
        tu_put(b, "a comment", 10);
    if (o.flags & 2) {
        uLong hcrc = crc32(0, b->b + start, (uInt)(b->n - start));
        tu_put_byte(b, hcrc & 0xFF);
        tu_put_byte(b, (hcrc >> 8) & 0xFF);
    }
    deflate_raw(b, data, len, o.level);
    uint32_t crc = (uint32_t)crc32(0, data, (uInt)len);
    put_le32(b, o.bad_crc ? crc ^ 0x5A5A5A5Au : crc);
    put_le32(b, (uint32_t)len + (o.bad_isize ? 1u : 0u));
    return start;
}

typedef struct decoded {
    tu_bytes out;
    uint32_t members;
    bool truncated;
    uint64_t end;
    dfs_diag diag;
} decoded;

static decoded decode_fd(int fd, uint64_t size, uint64_t start, uint64_t stop, size_t chunk)
{
    decoded d = {0};
    dfs_diag_init(&d.diag, 5);
    dfs_gzreader *r = dfs_gz_open(fd, size, start, stop, &d.diag, 7);
    assert_non_null(r);
    char *buf = malloc(chunk);
    assert_non_null(buf);
    ssize_t n;
    while ((n = dfs_gz_read(r, buf, chunk)) > 0) {
        assert_true((size_t)n <= chunk);
        tu_put(&d.out, buf, (size_t)n);
    }
    assert_int_equal(n, 0);
    assert_int_equal(dfs_gz_read(r, buf, chunk), 0); /* stays at the end */
    d.members = dfs_gz_members(r);
    d.truncated = dfs_gz_truncated(r);
    d.end = dfs_gz_end(r);
    dfs_gz_close(r);
    free(buf);
    return d;
}

static int open_bytes(const tu_bytes *b)
{
    const char *path = tu_temp_file(".gz", b->b, b->n);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    unlink(path);
    return fd;
}

static decoded decode_range(const tu_bytes *file, uint64_t start, uint64_t stop, size_t chunk)
{
    int fd = open_bytes(file);
    decoded d = decode_fd(fd, file->n, start, stop, chunk);
    close(fd);
    return d;
}

static decoded decode_bytes(const tu_bytes *file, size_t chunk)
{
    return decode_range(file, 0, UINT64_MAX, chunk);
}

static void decoded_free(decoded *d)
{
    free(d->out.b);
    dfs_diag_free(&d->diag);
}

static uint64_t damage(const decoded *d) { return dfs_diag_damage(&d->diag); }

static void assert_same(const tu_bytes *got, const tu_bytes *want)
{
    assert_int_equal(got->n, want->n);
    if (want->n)
        assert_memory_equal(got->b, want->b, want->n);
}

/* ---- decoding ---------------------------------------------------------------------------- */

static void test_magic(void **state)
{
    (void)state;
    assert_true(dfs_gz_magic((const unsigned char *)"\x1f\x8b", 2));
    assert_false(dfs_gz_magic((const unsigned char *)"\x1f", 1));
    assert_false(dfs_gz_magic((const unsigned char *)"{\"", 2));
}

static void test_single_member(void **state)
{
    (void)state;
    tu_bytes text = make_text(3u << 20, 1); /* several input windows and output buffers */
    tu_bytes file = {0};
    add_member(&file, text.b, text.n, plain);
    decoded d = decode_bytes(&file, 1 << 20);
    assert_same(&d.out, &text);
    assert_int_equal(d.members, 1);
    assert_false(d.truncated);
    assert_int_equal(d.end, file.n);
    assert_int_equal(damage(&d), 0);
    decoded_free(&d);
    free(text.b);
    free(file.b);
}

static void test_zlib_gzip_wrapper(void **state)
{
    (void)state;
    tu_bytes text = make_text(200000, 2), file = {0};
    z_stream zs = {0};
    assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t bound = deflateBound(&zs, (uLong)text.n) + 64;
    file.b = malloc(bound);
    file.cap = bound;
    zs.next_in = text.b;
    zs.avail_in = (uInt)text.n;
    zs.next_out = file.b;
    zs.avail_out = (uInt)bound;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    file.n = zs.total_out;
    deflateEnd(&zs);
    decoded d = decode_bytes(&file, 4096);
    assert_same(&d.out, &text);
    assert_int_equal(damage(&d), 0);
    decoded_free(&d);
    free(text.b);
    free(file.b);
}

/* Members of various sizes, one of them empty, one stored, one at level 1. */
static tu_bytes multi_member(tu_bytes *text, size_t *offsets, size_t n)
{
    tu_bytes file = {0};
    *text = (tu_bytes){0};
    static const size_t sizes[] = {50000, 0, 123457, 7, 300000, 1, 65536, 90000};
    for (size_t i = 0; i < n; i++) {
        tu_bytes t = make_text(sizes[i % 8], 100 + i);
        if (sizes[i % 8] < t.n)
            t.n = sizes[i % 8];
        member_opts o = plain;
        o.level = i == 3 ? 0 : i == 4 ? 1 : 6;
        offsets[i] = add_member(&file, t.b, t.n, o);
        tu_put(text, t.b, t.n);
        free(t.b);
    }
    offsets[n] = file.n;
    return file;
}

static void test_multi_member(void **state)
{
    (void)state;
    tu_bytes text;
    size_t off[9];
    tu_bytes file = multi_member(&text, off, 8);
    decoded d = decode_bytes(&file, 1 << 20);
    assert_same(&d.out, &text);
    assert_int_equal(d.members, 8);
    assert_int_equal(d.end, file.n);
    assert_int_equal(damage(&d), 0);
    decoded_free(&d);
    free(text.b);
    free(file.b);
}

static void test_header_flags(void **state)
{
    (void)state;
    tu_bytes text = make_text(20000, 3);
    for (unsigned flags = 0; flags < 32; flags++) {
        tu_bytes file = {0};
        member_opts o = plain;
        o.flags = flags;
        o.os = flags & 1 ? 0x13 : 255; /* TensorFlow's OS byte, and "unknown" */
        add_member(&file, text.b, text.n, o);
        add_member(&file, text.b, 100, o);
        decoded d = decode_bytes(&file, 3000);
        assert_int_equal(d.out.n, text.n + 100);
        assert_memory_equal(d.out.b, text.b, text.n);
        assert_memory_equal(d.out.b + text.n, text.b, 100);
        assert_int_equal(d.members, 2);
        assert_int_equal(damage(&d), 0);
        decoded_free(&d);
        free(file.b);
    }
    free(text.b);
}

static void test_bad_header_crc(void **state)
{
    (void)state;
    tu_bytes text = make_text(1000, 4), file = {0};
    member_opts o = plain;
    o.flags = 2 | 8;
    add_member(&file, text.b, text.n, o);
    file.b[10 + 15] ^= 0xFF; /* the FHCRC field after FNAME */
    decoded d = decode_bytes(&file, 1 << 16);
    assert_same(&d.out, &text);
    assert_int_equal(d.diag.counts[DFS_PROB_GZIP_CRC], 1);
    decoded_free(&d);
    free(text.b);
    free(file.b);
}

static void test_truncated_every_cut(void **state)
{
    (void)state;
    tu_bytes t1 = make_text(3000, 5), t2 = make_text(4000, 6), file = {0};
    add_member(&file, t1.b, t1.n, plain);
    size_t second = add_member(&file, t2.b, t2.n, plain);
    size_t full = file.n;
    for (size_t cut = second + 1; cut < full; cut++) {
        file.n = cut;
        decoded d = decode_bytes(&file, cut % 2 ? 1 << 16 : 5);
        assert_true(d.truncated);
        assert_int_equal(d.diag.counts[DFS_PROB_GZIP_TRUNCATED], 1);
        assert_int_equal(damage(&d), 1);
        assert_int_equal(d.end, cut);
        assert_true(d.out.n >= t1.n && d.out.n <= t1.n + t2.n);
        assert_memory_equal(d.out.b, t1.b, t1.n);
        assert_memory_equal(d.out.b + t1.n, t2.b, d.out.n - t1.n);
        if (cut >= full - 8) /* only the trailer is missing: every byte was inflated */
            assert_int_equal(d.out.n, t1.n + t2.n);
        decoded_free(&d);
    }
    free(t1.b);
    free(t2.b);
    free(file.b);
}

static void test_truncated_keeps_bytes(void **state)
{
    (void)state;
    tu_bytes text = make_text(2u << 20, 7), file = {0};
    add_member(&file, text.b, text.n, plain);
    file.n = file.n * 3 / 4;
    decoded d = decode_bytes(&file, 1 << 20);
    assert_true(d.truncated);
    assert_int_equal(d.diag.counts[DFS_PROB_GZIP_TRUNCATED], 1);
    assert_true(d.out.n > text.n / 2);
    assert_memory_equal(d.out.b, text.b, d.out.n);
    assert_int_equal(d.diag.examples[DFS_PROB_GZIP_TRUNCATED].v[0].offset, 0);
    decoded_free(&d);
    free(text.b);
    free(file.b);
}

static void test_bad_crc_and_isize(void **state)
{
    (void)state;
    tu_bytes t1 = make_text(5000, 8), t2 = make_text(6000, 9), want = {0};
    tu_put(&want, t1.b, t1.n);
    tu_put(&want, t2.b, t2.n);
    for (int which = 0; which < 2; which++) {
        tu_bytes file = {0};
        member_opts o = plain;
        o.bad_crc = which == 0;
        o.bad_isize = which == 1;
        size_t first = add_member(&file, t1.b, t1.n, o);
        add_member(&file, t2.b, t2.n, plain);
        decoded d = decode_bytes(&file, 1000);
        assert_same(&d.out, &want);
        assert_int_equal(d.members, 2);
        assert_int_equal(d.diag.counts[DFS_PROB_GZIP_CRC], 1);
        assert_int_equal(damage(&d), 1);
        assert_int_equal(d.diag.examples[DFS_PROB_GZIP_CRC].v[0].offset, first);
        assert_int_equal(d.diag.examples[DFS_PROB_GZIP_CRC].v[0].file, 7);
        decoded_free(&d);
        free(file.b);
    }
    free(t1.b);
    free(t2.b);
    free(want.b);
}

static void check_trailing(const void *junk, size_t n)
{
    tu_bytes text;
    size_t off[4];
    tu_bytes file = multi_member(&text, off, 3);
    tu_put(&file, junk, n);
    decoded d = decode_bytes(&file, 1 << 20);
    assert_same(&d.out, &text);
    assert_int_equal(d.members, 3);
    assert_int_equal(d.diag.counts[DFS_PROB_TRAILING_GARBAGE], 1);
    assert_int_equal(damage(&d), 1);
    assert_int_equal(d.end, off[3]);
    assert_int_equal(d.diag.examples[DFS_PROB_TRAILING_GARBAGE].v[0].offset, off[3]);
    decoded_free(&d);
    free(text.b);
    free(file.b);
}

static void test_trailing_garbage(void **state)
{
    (void)state;
    static const unsigned char zeros[4096];
    check_trailing(zeros, sizeof zeros);
    check_trailing(zeros, 1);
    check_trailing("junk after the data\n", 20);
    check_trailing("\x1f\x8b\x07\x00", 4); /* magic, but not deflate */
    check_trailing("\x1f\x8b\x08\xe0\x00\x00\x00\x00\x00\x03", 10); /* reserved flag bits */
}

static void test_corrupt_deflate(void **state)
{
    (void)state;
    tu_bytes t1 = make_text(5000, 10), t2 = make_text(8000, 11), file = {0};
    add_member(&file, t1.b, t1.n, plain);
    size_t second = add_member(&file, t2.b, t2.n, plain);
    add_member(&file, t1.b, t1.n, plain);
    file.b[second + 10] |= 0x06; /* BTYPE 3 is reserved: invalid from the first block */
    decoded d = decode_bytes(&file, 1 << 16);
    assert_same(&d.out, &t1);
    assert_int_equal(d.diag.counts[DFS_PROB_GZIP_CORRUPT], 1);
    assert_int_equal(damage(&d), 1);
    assert_int_equal(d.members, 2);
    decoded_free(&d);
    free(t1.b);
    free(t2.b);
    free(file.b);
}

static void test_not_gzip_at_start(void **state)
{
    (void)state;
    tu_bytes file = {0};
    tu_put(&file, "{\"not\":\"gzip\"}\n", 15);
    decoded d = decode_bytes(&file, 100);
    assert_int_equal(d.out.n, 0);
    assert_int_equal(d.diag.counts[DFS_PROB_GZIP_CORRUPT], 1);
    decoded_free(&d);
    free(file.b);
}

/* Random damage anywhere must end cleanly: a problem or intact data, never a crash or hang. */
static void test_random_damage(void **state)
{
    (void)state;
    tu_bytes t1 = make_text(30000, 12), t2 = make_text(20000, 13), orig = {0}, want = {0};
    add_member(&orig, t1.b, t1.n, plain);
    add_member(&orig, t2.b, t2.n, plain);
    tu_put(&want, t1.b, t1.n);
    tu_put(&want, t2.b, t2.n);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 300; round++) {
        tu_bytes file = {0};
        tu_put(&file, orig.b, orig.n);
        int flips = 1 + (int)(rng_next(&s) % 8);
        for (int i = 0; i < flips; i++)
            file.b[rng_next(&s) % file.n] ^= (unsigned char)(1 + rng_next(&s) % 255);
        if (round % 3 == 0)
            file.n = 1 + rng_next(&s) % file.n;
        decoded d = decode_bytes(&file, round % 5 ? 1 << 15 : 3);
        /* intact: everything, or exactly the first member when the cut fell on its end */
        bool intact = (d.out.n == want.n && memcmp(d.out.b, want.b, want.n) == 0) ||
                      (d.out.n == t1.n && memcmp(d.out.b, t1.b, t1.n) == 0);
        assert_true(damage(&d) > 0 || intact);
        assert_true(d.end <= file.n);
        decoded_free(&d);
        free(file.b);
    }
    free(t1.b);
    free(t2.b);
    free(orig.b);
    free(want.b);
}

static void test_random_garbage(void **state)
{
    (void)state;
    uint64_t s = 12345;
    for (int round = 0; round < 200; round++) {
        tu_bytes file = {0};
        size_t n = 1 + rng_next(&s) % 5000;
        if (round % 2 == 0) { /* a plausible header in front of random "deflate" data */
            tu_put(&file, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
        }
        for (size_t i = 0; i < n; i++)
            tu_put_byte(&file, (unsigned)rng_next(&s));
        decoded d = decode_bytes(&file, 1 << 14);
        assert_true(damage(&d) > 0 || d.out.n > 0);
        decoded_free(&d);
        int fd = open_bytes(&file);
        uint64_t pts[8];
        size_t np = dfs_gz_split_points(fd, file.n, 97, pts, 8);
        assert_true(np >= 1 && pts[0] == 0);
        close(fd);
        free(file.b);
    }
}

static void test_empty_file(void **state)
{
    (void)state;
    tu_bytes file = {0};
    tu_put(&file, "", 0);
    decoded d = decode_bytes(&file, 64);
    assert_int_equal(d.out.n, 0);
    assert_int_equal(d.members, 0);
    assert_int_equal(damage(&d), 0);
    decoded_free(&d);
    int fd = open_bytes(&file);
    uint64_t pts[4];
    assert_int_equal(dfs_gz_split_points(fd, 0, 1000, pts, 4), 1);
    assert_int_equal(pts[0], 0);
    close(fd);
    free(file.b);
}

/* Random hex text: about 4 bits of entropy per byte, so it compresses by half only. */
static tu_bytes make_hex(size_t n, uint64_t seed)
{
    tu_bytes b = {0};
    uint64_t s = seed | 1;
    for (size_t i = 0; i < n; i++)
        tu_put_byte(&b, (unsigned)"0123456789abcdef"[rng_next(&s) % 16]);
    return b;
}

/* A member with an FEXTRA field of `extra` tu_bytes and no data: a pad of exact size. */
static void add_pad_member(tu_bytes *b, size_t extra)
{
    static const unsigned char hdr[] = {0x1F, 0x8B, 0x08, 0x04, 0, 0, 0, 0, 0, 3};
    tu_put(b, hdr, sizeof hdr);
    tu_put_byte(b, extra & 0xFF);
    tu_put_byte(b, extra >> 8);
    for (size_t i = 0; i < extra; i++)
        tu_put_byte(b, 'x');
    deflate_raw(b, NULL, 0, 6);
    put_le32(b, 0);
    put_le32(b, 0);
}

/* The reader's 1 MiB input window ends at every position around a member's deflate end, trailer
 * and the next header, for stored and Huffman-coded data (ISA-L then holds tu_bytes of the old
 * window in its bit buffer). */
static void test_window_boundaries(void **state)
{
    (void)state;
    const size_t window = 1u << 20;
    for (int level = 0; level <= 6; level += 6) {
        member_opts o = plain;
        o.level = level;
        size_t len = level ? window * 2 : window - 40000;
        tu_bytes text = {0}, big = {0};
        for (int tries = 0; tries < 8; tries++) { /* aim the member size at window - 30000 */
            free(text.b);
            free(big.b);
            text = make_hex(len, 500);
            big = (tu_bytes){0};
            add_member(&big, text.b, text.n, o);
            if (big.n > window - 60000 && big.n < window - 1000)
                break;
            len = (size_t)((double)len * (double)(window - 30000) / (double)big.n);
        }
        assert_true(big.n > window - 60000 && big.n < window - 1000);
        size_t empty_pad = 12 + 2 + 8; /* header with XLEN, empty deflate, trailer */
        tu_bytes tail = make_text(5000, 501);
        for (int d = -36; d <= 20; d++) {
            tu_bytes file = {0};
            size_t pad = window + (size_t)(ptrdiff_t)d - big.n;
            add_pad_member(&file, pad - empty_pad);
            assert_int_equal(file.n, pad);
            tu_put(&file, big.b, big.n);
            add_member(&file, tail.b, tail.n, plain);
            decoded dec = decode_bytes(&file, 1 << 20);
            assert_int_equal(damage(&dec), 0);
            assert_int_equal(dec.members, 3);
            assert_int_equal(dec.out.n, text.n + tail.n);
            assert_memory_equal(dec.out.b, text.b, text.n);
            assert_memory_equal(dec.out.b + text.n, tail.b, tail.n);
            decoded_free(&dec);
            free(file.b);
        }
        free(text.b);
        free(big.b);
        free(tail.b);
    }
}

static void test_tiny_output_buffers(void **state)
{
    (void)state;
    tu_bytes text;
    size_t off[6];
    tu_bytes file = multi_member(&text, off, 5);
    for (size_t cap = 1; cap <= 7; cap++) {
        decoded d = decode_bytes(&file, cap);
        assert_same(&d.out, &text);
        assert_int_equal(d.members, 5);
        assert_int_equal(damage(&d), 0);
        decoded_free(&d);
    }
    free(text.b);
    free(file.b);
}

static void test_segments(void **state)
{
    (void)state;
    tu_bytes text;
    size_t off[9];
    tu_bytes file = multi_member(&text, off, 8);
    tu_bytes parts[8];
    for (size_t i = 0; i < 8; i++) {
        parts[i] = (tu_bytes){0};
        decoded d = decode_range(&file, off[i], off[i] + 1, 1 << 16);
        assert_int_equal(d.members, 1);
        assert_int_equal(d.end, off[i + 1]);
        tu_put(&parts[i], d.out.b, d.out.n);
        decoded_free(&d);
    }
    /* (start, stop) stops at the first member boundary >= stop */
    for (size_t a = 0; a < 8; a++) {
        for (size_t k = 3 * (a + 1); k < 3 * 9 + 1; k++) {
            size_t b = k / 3;
            int delta = (int)(k % 3) - 1; /* stop just before, at, or just after off[b] */
            if (b > 8 || (b == 8 && delta > 0))
                continue;
            uint64_t stop = b == 8 && delta == 0 ? UINT64_MAX : off[b] + (uint64_t)(int64_t)delta;
            size_t last = delta > 0 ? b + 1 : b;
            decoded d = decode_range(&file, off[a], stop, 1 << 20);
            tu_bytes want = {0};
            for (size_t i = a; i < last; i++)
                tu_put(&want, parts[i].b, parts[i].n);
            assert_same(&d.out, &want);
            assert_int_equal(d.members, last - a);
            assert_int_equal(d.end, off[last]);
            assert_int_equal(damage(&d), 0);
            decoded_free(&d);
            free(want.b);
        }
    }
    decoded d = decode_range(&file, off[3], off[3], 100); /* start >= stop: nothing */
    assert_int_equal(d.out.n, 0);
    decoded_free(&d);
    for (size_t i = 0; i < 8; i++)
        free(parts[i].b);
    free(text.b);
    free(file.b);
}

/* ---- split points ------------------------------------------------------------------------ */

/* What dfs_gz_split_points must return given the true member starts. */
static size_t expected_points(const size_t *starts, size_t n, uint64_t size, uint64_t target,
                              uint64_t *out, size_t max)
{
    size_t count = 1;
    out[0] = 0;
    uint64_t from = target;
    while (count < max && from < size) {
        size_t i = 0;
        while (i < n && starts[i] < from)
            i++;
        if (i == n)
            break;
        out[count++] = starts[i];
        from = (starts[i] / target + 1) * target;
    }
    return count;
}

static void check_segments_cover(const tu_bytes *file, const uint64_t *pts, size_t n,
                                 const tu_bytes *want)
{
    tu_bytes all = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t stop = i + 1 < n ? pts[i + 1] : UINT64_MAX;
        decoded d = decode_range(file, pts[i], stop, 1 << 16);
        assert_int_equal(d.end, i + 1 < n ? pts[i + 1] : file->n);
        assert_int_equal(damage(&d), 0);
        tu_put(&all, d.out.b, d.out.n);
        decoded_free(&d);
    }
    assert_same(&all, want);
    free(all.b);
}

static void test_split_points(void **state)
{
    (void)state;
    tu_bytes text, file = {0};
    size_t starts[40];
    text = (tu_bytes){0};
    for (size_t i = 0; i < 40; i++) {
        tu_bytes t = make_text(20000 + 3000 * (i % 7), 200 + i);
        starts[i] = add_member(&file, t.b, t.n, plain);
        tu_put(&text, t.b, t.n);
        free(t.b);
    }
    int fd = open_bytes(&file);
    static const uint64_t targets[] = {1, 1000, 4096, 10000, 33333, 100000, 1u << 30};
    for (size_t k = 0; k < sizeof targets / sizeof *targets; k++) {
        uint64_t got[64], want[64];
        size_t ng = dfs_gz_split_points(fd, file.n, targets[k], got, 64);
        size_t nw = expected_points(starts, 40, file.n, targets[k], want, 64);
        assert_int_equal(ng, nw);
        assert_memory_equal(got, want, nw * sizeof *want);
        check_segments_cover(&file, got, ng, &text);
    }
    uint64_t few[3];
    assert_int_equal(dfs_gz_split_points(fd, file.n, 1000, few, 3), 3);
    assert_int_equal(few[1], starts[1]);
    assert_int_equal(dfs_gz_split_points(fd, file.n, 1000, few, 0), 0);
    close(fd);
    free(text.b);
    free(file.b);
}

/* A stored member carries a whole valid gzip member and a bare 1F 8B 08 header in its data:
 * both candidates must be rejected and the next real member chosen. */
static void test_split_rejects_planted_members(void **state)
{
    (void)state;
    tu_bytes inner_text = make_text(3000, 300), inner = {0};
    add_member(&inner, inner_text.b, inner_text.n, plain);

    tu_bytes payload = {0};
    tu_bytes filler = make_text(2000, 301);
    tu_put(&payload, filler.b, filler.n);
    size_t planted_at = payload.n;
    tu_put(&payload, inner.b, inner.n);
    tu_put(&payload, filler.b, filler.n);
    size_t bare_at = payload.n;
    tu_put(&payload, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage that is not deflate", 37);
    tu_put(&payload, filler.b, filler.n);

    tu_bytes a = make_text(10000, 302), c = make_text(10000, 303), file = {0}, want = {0};
    size_t starts[3];
    starts[0] = add_member(&file, a.b, a.n, plain);
    member_opts stored = plain;
    stored.level = 0;
    starts[1] = add_member(&file, payload.b, payload.n, stored);
    starts[2] = add_member(&file, c.b, c.n, plain);
    tu_put(&want, a.b, a.n);
    tu_put(&want, payload.b, payload.n);
    tu_put(&want, c.b, c.n);

    /* stored blocks keep the payload verbatim, so the planted tu_bytes are in the file */
    size_t planted = starts[1] + 10 + 5 + planted_at; /* header + stored block header */
    assert_memory_equal(file.b + planted, inner.b, 10);
    (void)bare_at;

    int fd = open_bytes(&file);
    uint64_t target = starts[1] + 12; /* inside the stored member, before both plants */
    uint64_t pts[8];
    size_t n = dfs_gz_split_points(fd, file.n, target, pts, 8);
    assert_true(n >= 2);
    assert_int_equal(pts[0], 0);
    assert_int_equal(pts[1], starts[2]);
    for (size_t i = 1; i < n; i++)
        assert_true(pts[i] == starts[1] || pts[i] == starts[2]);
    check_segments_cover(&file, pts, n, &want);
    close(fd);
    free(inner_text.b);
    free(inner.b);
    free(payload.b);
    free(filler.b);
    free(a.b);
    free(c.b);
    free(file.b);
    free(want.b);
}

static void test_split_single_member(void **state)
{
    (void)state;
    tu_bytes text = make_text(1u << 20, 400), file = {0};
    add_member(&file, text.b, text.n, plain);
    int fd = open_bytes(&file);
    uint64_t pts[16];
    assert_int_equal(dfs_gz_split_points(fd, file.n, 4096, pts, 16), 1);
    assert_int_equal(pts[0], 0);
    close(fd);
    free(text.b);
    free(file.b);
}

/* ---- corpus ------------------------------------------------------------------------------ */

static bool have_corpus(void)
{
    const char *m = tu_trace("MANIFEST.md");
    struct stat st;
    return m && stat(m, &st) == 0;
}

static decoded decode_path(const char *path, uint64_t *size)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    *size = (uint64_t)st.st_size;
    decoded d = decode_fd(fd, *size, 0, UINT64_MAX, 1 << 20);
    close(fd);
    return d;
}

static void test_corpus_multimember(void **state)
{
    (void)state;
    if (!have_corpus())
        skip();
    uint64_t size;
    decoded d = decode_path(tu_trace("dftracer/edge-cases/synthetic-v2-multimember.pfw.gz"), &size);
    assert_int_equal(d.members, 4);
    assert_int_equal(d.out.n, 4 * 1164);
    assert_int_equal(damage(&d), 0);
    assert_int_equal(d.end, size);
    decoded_free(&d);

    int fd = open(tu_trace("dftracer/edge-cases/synthetic-v2-multimember.pfw.gz"), O_RDONLY);
    uint64_t pts[8];
    assert_int_equal(dfs_gz_split_points(fd, size, 1, pts, 8), 4);
    assert_int_equal(pts[1], 532);
    assert_int_equal(pts[2], 1064);
    assert_int_equal(pts[3], 1596);
    close(fd);
}

static void test_corpus_truncated(void **state)
{
    (void)state;
    if (!have_corpus())
        skip();
    uint64_t size;
    decoded d =
        decode_path(tu_trace("dftracer/edge-cases/synthetic-v2-truncated-tail.pfw.gz"), &size);
    assert_true(d.truncated);
    assert_int_equal(d.diag.counts[DFS_PROB_GZIP_TRUNCATED], 1);
    assert_int_equal(damage(&d), 1);
    assert_int_equal(d.members, 4);
    assert_true(d.out.n > 3 * 1164);
    size_t lines = 0;
    for (size_t i = 0; i < d.out.n; i++)
        lines += d.out.b[i] == '\n';
    assert_int_equal(lines, 19); /* 19 complete lines, then the torn one */
    assert_true(d.out.b[d.out.n - 1] != '\n');
    decoded_free(&d);
}

/* Every gzip file of the corpus decodes like zlib's gzread, and the cm1 headers carry FNAME. */
static void test_corpus_against_zlib(void **state)
{
    (void)state;
    if (!have_corpus())
        skip();
    FILE *list = popen("find -L '" DFS_TRACES "' -name '*.gz' | sort", "r");
    assert_non_null(list);
    char path[4096];
    int files = 0, fname = 0;
    while (fgets(path, sizeof path, list)) {
        path[strcspn(path, "\n")] = 0;
        if (strstr(path, "truncated"))
            continue;
        uint64_t size;
        decoded d = decode_path(path, &size);
        assert_int_equal(damage(&d), 0);
        gzFile z = gzopen(path, "rb");
        assert_non_null(z);
        tu_bytes want = {0};
        char buf[65536];
        int n;
        while ((n = gzread(z, buf, sizeof buf)) > 0)
            tu_put(&want, buf, (size_t)n);
        gzclose(z);
        assert_same(&d.out, &want);
        if (strstr(path, "cm1-48rank")) {
            int fd = open(path, O_RDONLY);
            unsigned char hdr[4];
            assert_int_equal(pread(fd, hdr, 4, 0), 4);
            close(fd);
            assert_true(hdr[3] & 0x08);
            assert_int_equal(d.out.b[0], '[');
            fname++;
        }
        files++;
        decoded_free(&d);
        free(want.b);
    }
    pclose(list);
    assert_true(files >= 60);
    assert_int_equal(fname, 48);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_magic),
        cmocka_unit_test(test_single_member),
        cmocka_unit_test(test_zlib_gzip_wrapper),
        cmocka_unit_test(test_multi_member),
        cmocka_unit_test(test_header_flags),
        cmocka_unit_test(test_bad_header_crc),
        cmocka_unit_test(test_truncated_every_cut),
        cmocka_unit_test(test_truncated_keeps_bytes),
        cmocka_unit_test(test_bad_crc_and_isize),
        cmocka_unit_test(test_trailing_garbage),
        cmocka_unit_test(test_corrupt_deflate),
        cmocka_unit_test(test_not_gzip_at_start),
        cmocka_unit_test(test_random_damage),
        cmocka_unit_test(test_random_garbage),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_window_boundaries),
        cmocka_unit_test(test_tiny_output_buffers),
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_split_points),
        cmocka_unit_test(test_split_rejects_planted_members),
        cmocka_unit_test(test_split_single_member),
        cmocka_unit_test(test_corpus_multimember),
        cmocka_unit_test(test_corpus_truncated),
        cmocka_unit_test(test_corpus_against_zlib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
