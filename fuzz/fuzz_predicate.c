/* fuzz_predicate.c - the predicate language (analyze/common/predicate.c): any text either compiles or
 * fails with an error that has a message and a column inside the text; compiled predicates are
 * evaluated on a few rows (nulls included), and a set of them answers the same through its memo
 * as directly, unless a regular expression reached its bound (predicate.h: then the predicate
 * has failed, with a message, and its answers no longer count). A value of 40 a's and an X makes
 * exponential patterns such as (a+)+$ reach it. Input: predicate texts, one per line (the first is
 * also compiled alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/common/predicate.h"

#define MAX_TEXTS 8

static void die(const char *what)
{
    fprintf(stderr, "fuzz: %s\n", what);
    abort();
}

/* Strings the rows use; a row's text id is the index here, so equal ids mean equal strings. */
static const char *const pool[] = {"POSIX", "read", "/data/train/img_1.npz", "python3", "node1",
                                   "", "STDIO", "open64", "a.b", "\xff\xfe",
                                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaX"};
#define POOL_N (sizeof pool / sizeof *pool)

static void make_row(unsigned seed, dfs_pred_row *row, uint32_t *ids)
{
    dfs_pred_row_init(row);
    for (int c = 0; c < DFS_PRED_NTEXT; c++) {
        unsigned k = (seed + (unsigned)c * 3) % (POOL_N + 1);
        if (k == POOL_N)
            continue; /* null */
        dfs_pred_row_set_text(row, (dfs_pred_col)c, pool[k], strlen(pool[k]));
        ids[c] = k + 1;
    }
    static const int64_t nums[] = {0, 1, 3, -1, 7, INT64_MAX, INT64_MIN, 42};
    for (int c = DFS_PRED_IO_CAT; c < DFS_PRED_NCOLS; c++) {
        unsigned k = (seed * 5 + (unsigned)c) % 9;
        if (k < 8)
            dfs_pred_row_set_num(row, (dfs_pred_col)c, nums[k]);
    }
}

static void check_error(const dfs_pred_error *err, size_t textlen)
{
    if (!err->message[0] || !memchr(err->message, '\0', sizeof err->message))
        die("an error without a message");
    if (err->column > textlen + 1)
        die("an error column beyond the text");
}

/* A predicate whose regular expression reached its bound says which, and where. */
static void check_failure(const dfs_pred_error *err, size_t textlen)
{
    check_error(err, textlen);
    if (!err->column || !strstr(err->message, "the regular expression"))
        die("a failure that does not name its regular expression");
}

static void one_predicate(const char *text)
{
    dfs_pred_error err;
    memset(&err, 0, sizeof err);
    dfs_pred *p = dfs_pred_parse(text, &err);
    if (!p) {
        check_error(&err, strlen(text));
        return;
    }
    for (unsigned seed = 0; seed < 12; seed++) {
        dfs_pred_row row;
        uint32_t ids[DFS_PRED_NTEXT] = {0};
        make_row(seed, &row, ids);
        (void)dfs_pred_match(p, &row);
    }
    if (dfs_pred_failed(p, &err))
        check_failure(&err, strlen(text));
    if (dfs_pred_matches_all(p) && dfs_pred_columns(p) != 0)
        die("a match-all predicate reads columns");
    dfs_pred_free(p);
}

static void predicate_set(const char *const *texts, size_t n)
{
    dfs_pred_error err;
    memset(&err, 0, sizeof err);
    dfs_pred_set *s = dfs_pred_set_new(texts, n, &err);
    if (!s) {
        if (err.index >= n)
            die("set error names a text that does not exist");
        check_error(&err, strlen(texts[err.index]));
        return;
    }
    for (unsigned round = 0; round < 2; round++) /* the second round is answered by the memo */
        for (unsigned seed = 0; seed < 12; seed++) {
            dfs_pred_row row;
            uint32_t ids[DFS_PRED_NTEXT] = {0};
            make_row(seed, &row, ids);
            uint64_t memo = dfs_pred_set_eval(s, &row, ids), direct = dfs_pred_set_eval_direct(s, &row);
            if (memo != direct && !dfs_pred_set_failed(s, NULL))
                die("the memo answers differently from direct evaluation");
        }
    if (dfs_pred_set_failed(s, &err)) {
        if (err.index >= n)
            die("a failure names a member that does not exist");
        check_failure(&err, strlen(texts[err.index]));
    }
    dfs_pred_set_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len > 4096)
        return 0;
    char *text = malloc(len + 1);
    if (!text)
        die("out of memory");
    memcpy(text, data, len);
    text[len] = '\0';
    const char *texts[MAX_TEXTS];
    size_t n = 0;
    for (char *line = text; line && n < MAX_TEXTS;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        texts[n++] = line;
        line = nl ? nl + 1 : NULL;
    }
    one_predicate(texts[0]);
    predicate_set(texts, n);
    free(text);
    return 0;
}
