/* sort128.h - sorting 128-bit keys (two u64, compared as one unsigned number hi:lo) by radix.
 *
 * Analyses group millions of small records at the end of a run (cells by view row, distinct files
 * by bin); a comparison sort spends most of that time in its comparator. Packing a record into a
 * 128-bit key and sorting by bytes costs a few passes over the array instead, and passes whose
 * byte is the same in every key are skipped, so narrow keys cost few passes. */
#ifndef DFS_SORT128_H
#define DFS_SORT128_H
#include <stddef.h>
#include <stdint.h>

typedef struct dfs_key128 {
    uint64_t hi, lo;
} dfs_key128;

/* Sorts v[0..n) ascending by (hi, lo), using tmp[0..n) as scratch; the result is in v. The lowest
 * `payload_bytes` bytes of lo are not compared: keys equal above them keep their input order
 * (the sort is stable), so they can carry e.g. the index of what the key stands for. */
void dfs_sort128(dfs_key128 *v, dfs_key128 *tmp, size_t n, unsigned payload_bytes);
/* Removes repeated keys from sorted v[0..n); returns how many remain. */
size_t dfs_unique128(dfs_key128 *v, size_t n);
#endif
