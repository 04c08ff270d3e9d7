/* multisub.h - which of up to 64 byte-string needles occur in a haystack, in one pass over it.
 *
 * Same answers as one memmem per needle (case-sensitive bytes, an empty needle occurs in every
 * haystack, NUL bytes are ordinary bytes), for a fraction of the cost on short haystacks such as
 * file paths: per haystack position one table load usually rejects it, and a needle's first
 * three bytes are checked through per-byte masks before anything is compared.
 *
 * The caller owns the struct; it is immutable after dfs_multisub_init, so threads may share it. */
#ifndef DFS_MULTISUB_H
#define DFS_MULTISUB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFS_MULTISUB_MAX 64

/* Needle bytes are checked through masks for this many leading bytes, the rest by memcmp. */
#define DFS_MULTISUB_PREFIX 3

typedef struct dfs_multisub {
    /* at[k][b] bit i: needle i has byte b at offset k, or is shorter than k + 1 (so the offset
     * does not constrain it). Needles of length 0 are in no at[0] entry. */
    uint64_t at[DFS_MULTISUB_PREFIX][256];
    /* shorter[k] bit i: needle i is at most k bytes long (k < DFS_MULTISUB_PREFIX): what is
     * left of the haystack may end after k bytes. */
    uint64_t shorter[DFS_MULTISUB_PREFIX];
    uint64_t empty;    /* needles of length 0 */
    uint64_t nonempty; /* the others */
    size_t n;
    const unsigned char *needle[DFS_MULTISUB_MAX]; /* into bytes */
    size_t len[DFS_MULTISUB_MAX];
    unsigned char *bytes; /* copies of every needle */
} dfs_multisub;

/* Compiles needles[0..n) (lens[i] bytes each, or NUL-terminated when lens is NULL). Needle i is
 * bit i of the answers; duplicates get a bit each. false when n > DFS_MULTISUB_MAX (nothing
 * allocated: the caller keeps its own path) or out of memory. dfs_multisub_free is safe on a
 * zeroed struct and after a failed init. */
bool dfs_multisub_init(dfs_multisub *m, const char *const *needles, const size_t *lens, size_t n);
void dfs_multisub_free(dfs_multisub *m);

/* Bit i set: needle i occurs in hay[0..n). hay may be NULL when n is 0. */
uint64_t dfs_multisub_scan(const dfs_multisub *m, const void *hay, size_t n);

/* Whether some needle occurs: stops at the first one found. */
bool dfs_multisub_any(const dfs_multisub *m, const void *hay, size_t n);
#endif
