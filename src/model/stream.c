#include "model/stream.h"

#include <string.h>

void dfs_stream_init(dfs_stream *s, uint32_t file, uint32_t chunk, unsigned max_examples)
{
    memset(s, 0, sizeof *s);
    s->file = file;
    s->chunk = chunk;
    s->scale_num = 1;
    s->scale_den = 1;
    dfs_diag_init(&s->diag, max_examples);
    for (int k = 0; k < 3; k++) {
        dfs_u64map_init(&s->latest[k]);
        dfs_u64map_init(&s->carried[k]);
    }
}

void dfs_stream_free(dfs_stream *s)
{
    dfs_diag_free(&s->diag);
    dfs_vec_free(&s->defs);
    dfs_vec_free(&s->names);
    dfs_vec_free(&s->meta);
    dfs_vec_free(&s->dupsums);
    for (int k = 0; k < 3; k++) {
        dfs_u64map_free(&s->latest[k]);
        dfs_u64map_free(&s->carried[k]);
    }
}

void dfs_stream_define(dfs_stream *s, dfs_hash_kind kind, uint64_t hash, dfs_str str,
                       uint64_t offset, uint64_t line)
{
    /* The previous definition may be in this stream or in an earlier chunk of the file. */
    dfs_str prev = dfs_stream_resolve(s, kind, hash);
    if (prev == str)
        return; /* a repeated identical definition adds nothing */
    if (prev)
        dfs_diag_add(&s->diag, DFS_PROB_HASH_COLLISION, s->file, line, offset,
                     "hash %llu defined again with another string", (unsigned long long)hash);
    dfs_hashdef d = {hash, offset, str, (uint8_t)kind};
    if (dfs_vec_push(&s->defs, d))
        dfs_u64map_put(&s->latest[kind], hash, (uint32_t)(s->defs.n - 1));
}

dfs_str dfs_stream_resolve(dfs_stream *s, dfs_hash_kind kind, uint64_t hash)
{
    uint32_t v;
    if (dfs_u64map_get(&s->latest[kind], hash, &v))
        return s->defs.v[v].str;
    if (dfs_u64map_get(&s->carried[kind], hash, &v))
        return v;
    for (uint32_t j = s->nbefore; j-- > 0;) {
        if (dfs_u64map_get(&s->before[j][kind], hash, &v)) {
            dfs_u64map_put(&s->carried[kind], hash, v);
            return v;
        }
    }
    return 0;
}
