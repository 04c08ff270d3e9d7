/* event_args.h - an event's arguments as the predicate language reads them (args.KEY in
 * predicate.h), and the reader's want for the keys a predicate reads.
 *
 * The reader parses only the arguments its consumers ask for (dfs_want): an analysis whose
 * predicates read args.KEY asks for KEY with dfs_want_arg_key, then looks it up per event with
 * dfs_event_args_lookup, or answers its argument tests at once with dfs_event_arg_truths when it
 * classifies the event later, after its arguments are gone. Lookups compare key texts over the
 * event's few kept arguments: no lock and no string-table probe per event. */
#ifndef DFS_EVENT_ARGS_H
#define DFS_EVENT_ARGS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/common/predicate.h"
#include "dfscope.h"

/* What dfs_event_args_lookup reads: one event of one run. */
typedef struct dfs_event_args {
    const dfs_run *run;
    const dfs_event *ev;
} dfs_event_args;

/* The event's first argument whose key is the text key (key_len bytes), or NULL: a well-known key
 * by its fixed id (dfs_event_arg), any other by comparing the texts of the other keys. */
const dfs_value *dfs_event_arg_named(const dfs_run *run, const dfs_event *ev, const char *key, size_t key_len);

/* A dfs_pred_arg_lookup over ctx = const dfs_event_args *: the event's first argument named key
 * (as dfs_event_arg finds it). Integers and booleans are integers, unsigned integers and floats
 * are floats, strings are text; lists, maps and nulls are absent. */
bool dfs_event_args_lookup(const void *ctx, const char *key, size_t key_len, dfs_pred_arg *out);

/* t's answers on ev: the word for dfs_pred_row.arg_truths. */
uint64_t dfs_event_arg_truths(const dfs_pred_arg_tests *t, const dfs_run *run, const dfs_event *ev);

/* Asks the reader for the argument key (NUL-terminated, living as long as w): a well-known key
 * by its bit in w->keys, any other by name, appended to extra[*nextra] (the caller's array, with
 * room for it and the NULL that ends the list; w->extra then points there). */
void dfs_want_arg_key(dfs_want *w, const char *key, const char **extra, size_t *nextra);
#endif
