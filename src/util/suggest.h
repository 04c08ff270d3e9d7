/* suggest.h - "did you mean": the known name a mistyped word most likely meant.
 *
 * One rule for every list of names the command line knows (commands, long options, the values of
 * an option): the name the word begins, when exactly one does; else the name closest to it by
 * Damerau-Levenshtein distance (optimal string alignment: insertions, deletions, substitutions,
 * swaps of neighbours; letters compared case-insensitively), when that distance is at most
 * 1 + a quarter of the word's length and smaller than the name's length. Ties go to the name
 * offered first, so the answer depends only on the order of the list. An empty word, or one
 * longer than DFS_SUGGEST_MAX bytes, has no suggestion.
 *
 * The caller owns the struct and offers the names one by one (they are not copied: they must
 * outlive it), which lets a list be walked in whatever shape it is stored. */
#ifndef DFS_SUGGEST_H
#define DFS_SUGGEST_H
#include <stddef.h>

#define DFS_SUGGEST_MAX 64

typedef struct dfs_suggest {
    const char *word;
    size_t len;            /* of word; 0 when there is nothing to suggest for it */
    const char *closest;   /* the closest name within the threshold so far, or NULL */
    size_t closest_cost;
    const char *prefixed;  /* the first name the word begins */
    size_t nprefixed;      /* how many names it begins */
} dfs_suggest;

void dfs_suggest_init(dfs_suggest *s, const char *word);
void dfs_suggest_offer(dfs_suggest *s, const char *name);
/* The suggestion, or NULL. */
const char *dfs_suggest_best(const dfs_suggest *s);
/* The suggestion among names[0..n) (NULL entries are skipped), or NULL. */
const char *dfs_suggest_among(const char *word, const char *const *names, size_t n);
/* The edit distance the rule uses (case-insensitive; SIZE_MAX when a string is longer than
 * DFS_SUGGEST_MAX). */
size_t dfs_suggest_distance(const char *a, const char *b);
#endif
