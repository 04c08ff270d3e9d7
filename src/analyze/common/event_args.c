/* event_args.c - an event's arguments for the predicate language (event_args.h). */
#include "analyze/common/event_args.h"

#include <string.h>

#include "parse/record.h"
#include "util/strtab.h"

const dfs_value *dfs_event_arg_named(const dfs_run *run, const dfs_event *ev, const char *key, size_t key_len)
{
    int known = dfs_key_lookup(key, key_len);
    if (known >= 0) /* a well-known key has its fixed id */
        return dfs_event_arg(ev, DFS_KEY_STR(known));
    for (uint32_t i = 0; i < ev->nargs; i++) {
        if (ev->args[i].key <= DFS_KEY__COUNT)
            continue;
        size_t n;
        const char *k = dfs_str_get(run, ev->args[i].key, &n);
        if (k && n == key_len && memcmp(k, key, n) == 0)
            return &ev->args[i].val;
    }
    return NULL;
}

bool dfs_event_args_lookup(const void *ctx, const char *key, size_t key_len, dfs_pred_arg *out)
{
    const dfs_event_args *a = ctx;
    const dfs_value *v = dfs_event_arg_named(a->run, a->ev, key, key_len);
    if (!v)
        return false;
    switch (v->type) {
    case DFS_V_BOOL:
    case DFS_V_INT: *out = (dfs_pred_arg){.type = DFS_PRED_ARG_INT, .i = v->as.i}; return true;
    case DFS_V_UINT: *out = (dfs_pred_arg){.type = DFS_PRED_ARG_FLOAT, .f = (double)v->as.u}; return true;
    case DFS_V_FLOAT: *out = (dfs_pred_arg){.type = DFS_PRED_ARG_FLOAT, .f = v->as.f}; return true;
    case DFS_V_STR: {
        size_t len;
        const char *s = dfs_str_get(a->run, v->as.s, &len);
        *out = (dfs_pred_arg){.type = DFS_PRED_ARG_TEXT, .s = s, .len = len};
        return true;
    }
    default: return false;
    }
}

uint64_t dfs_event_arg_truths(const dfs_pred_arg_tests *t, const dfs_run *run, const dfs_event *ev)
{
    dfs_event_args a = {run, ev};
    return dfs_pred_arg_tests_eval(t, dfs_event_args_lookup, &a);
}

void dfs_want_arg_key(dfs_want *w, const char *key, const char **extra, size_t *nextra)
{
    for (int k = 0; k < DFS_KEY__COUNT; k++)
        if (strcmp(dfs_key_names[k], key) == 0) {
            w->keys |= DFS_KEYBIT(k);
            return;
        }
    for (size_t i = 0; i < *nextra; i++)
        if (strcmp(extra[i], key) == 0)
            return;
    extra[(*nextra)++] = key;
    extra[*nextra] = NULL;
    w->extra = extra;
}
