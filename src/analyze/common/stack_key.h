/* stack_key.h - the stack a begin (B) or end (E) record is paired on, for the analyses that pair
 * such records themselves (dataloader, tasks' legacy traces).
 *
 * Records pair, nested, within one stack: the analyses sort them by stack, then by their order
 * in the input, and walk each stack with a LIFO of open begins. A dialect that pairs on fewer
 * fields (smdebug on the pid alone) leaves the others zero. */
#ifndef DFS_STACK_KEY_H
#define DFS_STACK_KEY_H
#include <stdbool.h>
#include <stdint.h>

#include "dfscope.h"

typedef struct dfs_stack_key {
    int64_t pid, tid;
    dfs_str name;
} dfs_stack_key;

/* Stacks ordered by process, thread, then name (its interned id: any fixed order will do). */
static inline int dfs_stack_key_cmp(const dfs_stack_key *a, const dfs_stack_key *b)
{
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return 0;
}

static inline bool dfs_stack_key_same(const dfs_stack_key *a, const dfs_stack_key *b)
{
    return a->pid == b->pid && a->tid == b->tid && a->name == b->name;
}
#endif
