/* fuzz_common.c - the parser context, feeding driver and oracle of the parser fuzz targets. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/framer.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz: %s\n", what);
    abort();
}

void fz_parser_init(fz_parser *z, bool all_args)
{
    memset(z, 0, sizeof *z);
    z->table = dfs_strtab_new();
    z->strs = z->table ? dfs_strcache_new(z->table) : NULL;
    if (!z->table || !z->strs)
        die("out of memory");
    dfs_batchbuf_init(&z->batch);
    dfs_options_init(&z->opt);
    z->opt.max_examples = 5;
    /* The smallest limit a run accepts (read/run.c), so that record_too_large is reachable. */
    z->opt.max_record = 4096;
    z->want.all = all_args;
    dfs_pctx_init(&z->p, z->table, z->strs, &z->want, &z->opt, &z->batch);
    dfs_stream_init(&z->st, 0, 0, z->opt.max_examples);
    z->p.st = &z->st;
}

void fz_parser_free(fz_parser *z)
{
    dfs_stream_free(&z->st);
    dfs_pctx_free(&z->p);
    dfs_batchbuf_free(&z->batch);
    dfs_strcache_free(z->strs);
    dfs_strtab_free(z->table);
}

/* Reads every byte of an interned string, so that ASan checks it is all there. */
static void touch_str(fz_parser *z, dfs_str id)
{
    size_t n = 0;
    const char *s = dfs_strtab_get(z->table, id, &n);
    if (!s)
        die("an event holds an unknown string id");
    unsigned char sum = 0;
    for (size_t i = 0; i < n; i++)
        sum ^= (unsigned char)s[i];
    z->checksum += sum;
}

/* Looks at every event the way a consumer would (names and args), then drops the batch. */
static void take_batch(fz_parser *z)
{
    for (size_t i = 0; i < z->batch.events.n; i++) {
        const dfs_event *e = &z->batch.events.v[i];
        touch_str(z, e->name);
        touch_str(z, e->cat);
        touch_str(z, e->fname);
        touch_str(z, e->host);
        for (uint32_t a = 0; a < e->nargs; a++) {
            touch_str(z, e->args[a].key);
            if (e->args[a].val.type == DFS_V_STR)
                touch_str(z, e->args[a].val.as.s);
        }
    }
    z->events += z->batch.events.n;
    dfs_batchbuf_clear(&z->batch);
}

void fz_drive(fz_parser *z, fz_feed_fn feed, void *parser, const uint8_t *data, size_t len,
              size_t piece)
{
    if (piece == 0)
        piece = len ? len : 1;
    char *buf = NULL;
    size_t have = 0, pos = 0;
    uint64_t offset = 0;
    for (;;) {
        size_t add = len - pos < piece ? len - pos : piece;
        /* A fresh exact-size copy each time: bytes past `have` are not ours to read. */
        char *next = malloc(have + add ? have + add : 1);
        if (!next)
            die("out of memory");
        if (have)
            memcpy(next, buf, have);
        if (add)
            memcpy(next + have, data + pos, add);
        free(buf);
        buf = next;
        pos += add;
        have += add;
        bool final = pos == len;
        int flags = final ? DFS_FEED_FINAL : (have >= z->opt.max_record ? DFS_FEED_FULL : 0);
        size_t used = feed(parser, z, buf, have, offset, flags);
        take_batch(z);
        if (used > have)
            die("feed consumed more than it was given");
        if ((flags & DFS_FEED_FULL) && used == 0)
            die("feed consumed nothing from a full buffer");
        if (final) {
            if (used != have)
                die("the final feed left bytes unconsumed");
            break;
        }
        offset += used;
        have -= used;
        memmove(buf, buf + used, have);
    }
    free(buf);
}

void fz_summarize(const fz_parser *z, fz_summary *out)
{
    memset(out, 0, sizeof *out);
    out->records = z->st.records;
    out->bad_records = z->st.bad_records;
    out->recovered = z->st.recovered;
    out->events = z->events;
    for (int p = 0; p < DFS_PROB__COUNT; p++)
        out->problems[p] = z->st.diag.counts[p];
}

void fz_expect_same(const char *what, size_t piece, const fz_summary *a, const fz_summary *b)
{
    const char *field = NULL;
    if (a->records != b->records)
        field = "records";
    else if (a->bad_records != b->bad_records)
        field = "bad_records";
    else if (a->recovered != b->recovered)
        field = "recovered";
    else if (a->events != b->events)
        field = "events";
    for (int p = 0; !field && p < DFS_PROB__COUNT; p++)
        if (a->problems[p] != b->problems[p])
            field = dfs_problem_code((dfs_problem)p);
    if (!field)
        return;
    fprintf(stderr, "fuzz: %s, whole vs in pieces of %zu bytes: the readings differ in %s\n", what,
            piece, field);
    fprintf(stderr, "  records %llu/%llu bad %llu/%llu recovered %llu/%llu events %llu/%llu\n",
            (unsigned long long)a->records, (unsigned long long)b->records,
            (unsigned long long)a->bad_records, (unsigned long long)b->bad_records,
            (unsigned long long)a->recovered, (unsigned long long)b->recovered,
            (unsigned long long)a->events, (unsigned long long)b->events);
    for (int p = 0; p < DFS_PROB__COUNT; p++)
        if (a->problems[p] != b->problems[p])
            fprintf(stderr, "  %s %llu/%llu\n", dfs_problem_code((dfs_problem)p),
                    (unsigned long long)a->problems[p], (unsigned long long)b->problems[p]);
    abort();
}

static uint64_t input_hash(const uint8_t *data, size_t len)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a over the first bytes */
    for (size_t i = 0; i < len && i < 64; i++)
        h = (h ^ data[i]) * 1099511628211u;
    return h;
}

bool fz_all_args(const uint8_t *data, size_t len)
{
    const char *force = getenv("FZ_ARGS"); /* replaying: "all" or "none" */
    if (force)
        return strcmp(force, "all") == 0;
    return (input_hash(data, len) >> 32) % 2 != 0;
}

size_t fz_piece_size(const uint8_t *data, size_t len)
{
    const char *force = getenv("FZ_PIECE"); /* replaying: a piece size */
    if (force && atoi(force) > 0)
        return (size_t)atoi(force);
    uint64_t h = input_hash(data, len);
    static const size_t sizes[] = {64, 100, 255, 1024, 4095, 4096, 1, 2, 3, 7, 16, 61};
    /* tiny pieces re-copy the unconsumed bytes for each one: only for small inputs */
    size_t choices = len > 8192 ? 6 : sizeof sizes / sizeof *sizes;
    return sizes[h % choices];
}
