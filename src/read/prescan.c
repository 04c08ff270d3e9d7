/* prescan.c - the hash definitions of the earlier chunks of a file read in pieces.
 * A chunk after the first cannot see the FH/HH/SH records before it, so every chunk but the last
 * is scanned first for its definition lines only (cheap: a 16-byte compare finds the few lines
 * that may define), and each chunk is handed its predecessors' definitions (model/stream.h).
 * Each byte of a chunk is read once and a line is never held past max_record bytes, so a chunk
 * costs one pass whatever its lines (a NUL tail of gigabytes is one line). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "parse/record.h"
#include "read/pipeline.h"

/* The first `H"` in p[0..n), or NULL. The pre-scan runs over whole chunks, so it compares 16
 * bytes a step (SSE2 is baseline on x86-64) instead of calling memmem. */
static const char *find_h_quote(const char *p, size_t n)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i h = _mm_set1_epi8('H'), q = _mm_set1_epi8('"');
    for (; i + 17 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 1));
        int mask = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, h), _mm_cmpeq_epi8(b, q)));
        if (mask)
            return p + i + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; i + 1 < n; i++)
        if (p[i] == 'H' && p[i + 1] == '"')
            return p + i;
    return NULL;
}

/* A DFTracer definition record names itself "FH", "HH" or "SH": look for H" after "F, "H or "S.
 * A false hit only costs parsing one line. */
static bool line_may_define(const char *line, size_t len)
{
    for (const char *p = line; (p = find_h_quote(p, len - (size_t)(p - line))) != NULL; p += 2) {
        if (p - line >= 2 && p[-2] == '"' && (p[-1] == 'F' || p[-1] == 'H' || p[-1] == 'S'))
            return true;
    }
    return false;
}

/* Parses the definition lines of the lines in buf into the scratch stream (w->pctx.st), but for
 * those longer than max_record, which the read skips. */
static void scan_block(worker *w, const char *buf, size_t len, uint64_t offset, uint64_t max_record)
{
    size_t at = 0;
    while (at < len) {
        const char *hit = find_h_quote(buf + at, len - at);
        if (!hit)
            break;
        const char *start = hit;
        while (start > buf + at && start[-1] != '\n')
            start--;
        const char *end = memchr(hit, '\n', (size_t)(buf + len - hit));
        size_t line_len = (size_t)((end ? end : buf + len) - start);
        const char *brace = line_len <= max_record ? memchr(start, '{', line_len) : NULL;
        if (brace && line_may_define(start, line_len)) {
            size_t n = line_len - (size_t)(brace - start);
            while (n > 0 && (brace[n - 1] == ' ' || brace[n - 1] == '\r' || brace[n - 1] == ',' ||
                             brace[n - 1] == '\t'))
                n--;
            dfs_parse_record(&w->pctx, brace, n, offset + (uint64_t)(brace - buf));
            dfs_batchbuf_clear(&w->batch);
        }
        at = end ? (size_t)(end - buf) + 1 : len;
    }
}

/* The end of the complete lines in buf[0..have + n) when buf[0..have) holds no '\n' (0: none):
 * only the n new bytes are searched, so a long line is scanned once however many reads it takes. */
static size_t complete_lines(const char *buf, size_t have, size_t n)
{
    const char *nl = memrchr(buf + have, '\n', n);
    return nl ? (size_t)(nl - buf) + 1 : 0;
}

/* Reads the task's range and scans its complete lines. A line longer than max_record is not
 * scanned, as the read skips it (record_too_large), and is not kept either: once it outgrows
 * max_record its bytes are dropped as they come. A line still going at the nominal stop goes on
 * to the end of the range (dfs_task_range), so when the line dropped is one, the pre-scan stops:
 * it reads at most about max_record bytes past the stop, however long the line. */
void dfs_task_prescan(worker *w, task *t, dfs_u64map carry[3])
{
    dfs_input *in = &w->pool->run->inputs.v[t->file];
    const uint64_t max_record = w->pool->run->opt.max_record;
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; /* the read phase reports it */
    dfs_stream scratch;
    dfs_stream_init(&scratch, t->file, t->chunk, 0);
    dfs_worker_begin_stream(w, &scratch, true);
    dfs_task_range(t, fd, in->info.size);
    source src = {.fd = fd, .pos = t->from, .end = t->to};
    uint64_t offset = src.pos; /* of w->buf[0] */
    size_t have = 0;           /* bytes of an unfinished line at w->buf (none while dropping) */
    bool dropping = false;
    while (dfs_worker_buffer(w, have + BLOCK)) {
        ssize_t n = dfs_source_read(&src, w->buf + have, BLOCK);
        if (n <= 0) {
            scan_block(w, w->buf, have, offset, max_record);
            break;
        }
        size_t complete = complete_lines(w->buf, have, (size_t)n);
        have += (size_t)n;
        if (complete == 0) {
            if (!dropping && have <= max_record)
                continue;
            dropping = true;
            offset += have;
            have = 0;
            if (src.pos >= t->stop)
                break;
            continue;
        }
        size_t from = 0;
        if (dropping) { /* the dropped line ends in these bytes */
            from = (size_t)((const char *)memchr(w->buf, '\n', complete) - w->buf) + 1;
            dropping = false;
        }
        scan_block(w, w->buf + from, complete - from, offset + from, max_record);
        offset += complete;
        have -= complete;
        memmove(w->buf, w->buf + complete, have);
    }
    for (size_t d = 0; d < scratch.defs.n; d++)
        dfs_u64map_put(&carry[scratch.defs.v[d].kind], scratch.defs.v[d].hash, scratch.defs.v[d].str);
    dfs_stream_free(&scratch);
    w->pctx.st = NULL;
    close(fd);
}
