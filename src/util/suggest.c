/* suggest.c - "did you mean" (suggest.h): unique prefixes, then the optimal-string-alignment
 * distance under a threshold that grows with the word. Bounded: words and names are at most
 * DFS_SUGGEST_MAX bytes, so the distance's three rows live on the stack. */
#include "util/suggest.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static int fold(char c)
{
    return tolower((unsigned char)c);
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

size_t dfs_suggest_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > DFS_SUGGEST_MAX || m > DFS_SUGGEST_MAX)
        return SIZE_MAX;
    /* rows i-2, i-1 and i of the (n+1) x (m+1) table */
    size_t rows[3][DFS_SUGGEST_MAX + 1];
    size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t subst = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + subst);
            bool swapped = i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]);
            if (swapped && before[j - 2] + 1 < cur[j])
                cur[j] = before[j - 2] + 1;
        }
        size_t *t = before;
        before = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

void dfs_suggest_init(dfs_suggest *s, const char *word)
{
    memset(s, 0, sizeof *s);
    s->word = word;
    size_t len = word ? strlen(word) : 0;
    s->len = len <= DFS_SUGGEST_MAX ? len : 0;
}

static bool begins(const char *name, const char *word, size_t len)
{
    if (strlen(name) <= len)
        return false;
    for (size_t i = 0; i < len; i++)
        if (fold(name[i]) != fold(word[i]))
            return false;
    return true;
}

void dfs_suggest_offer(dfs_suggest *s, const char *name)
{
    if (!s->len || !name || !*name)
        return;
    if (begins(name, s->word, s->len) && s->nprefixed++ == 0)
        s->prefixed = name;
    size_t cost = dfs_suggest_distance(s->word, name);
    if (cost > 1 + s->len / 4 || cost >= strlen(name))
        return;
    if (!s->closest || cost < s->closest_cost) {
        s->closest = name;
        s->closest_cost = cost;
    }
}

const char *dfs_suggest_best(const dfs_suggest *s)
{
    return s->nprefixed == 1 ? s->prefixed : s->closest;
}

const char *dfs_suggest_among(const char *word, const char *const *names, size_t n)
{
    dfs_suggest s;
    dfs_suggest_init(&s, word);
    for (size_t i = 0; i < n; i++)
        dfs_suggest_offer(&s, names[i]);
    return dfs_suggest_best(&s);
}
