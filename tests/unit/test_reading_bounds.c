/* test_reading_bounds.c - reading stays bounded and says what it skips: blank lines skipped in
 * bulk keep their line numbers whatever the pieces; a line fed again and again, longer each time,
 * is searched on where the last feed stopped and still skipped once when too long; a NUL tail
 * spanning many chunks is one record_too_large; an entry of a walked directory that cannot be
 * read is an unreadable input, not a silent omission (src/parse/framer.c, src/read/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "parse/framer.h"
#include "read/run.h"

/* ---- the framer, fed in pieces as the reader does ---------------------------------------------- */

typedef struct fed {
    uint64_t records, events, lines, too_large, bad_lines, bad_line_at;
} fed;

/* Feeds text in pieces of `piece` bytes (the unconsumed bytes again in front of the next piece,
 * DFS_FEED_FULL at max_record bytes, DFS_FEED_FINAL at the end) and sums up what came out. */
static fed feed_text(const char *text, size_t n, size_t piece, uint64_t max_record)
{
    tu_parser t;
    tu_parser_init(&t, 0);
    t.opt.max_record = max_record;
    dfs_framer fr;
    dfs_framer_init(&fr, DFS_FMT_JSON_LINES, false);
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    size_t have = 0, pos = 0;
    uint64_t offset = 0, events = 0;
    for (;;) {
        size_t add = n - pos < piece ? n - pos : piece;
        memcpy(buf + have, text + pos, add);
        pos += add;
        have += add;
        int flags = add == 0 ? DFS_FEED_FINAL : (have >= max_record ? DFS_FEED_FULL : 0);
        size_t used = dfs_framer_feed(&fr, &t.p, buf, have, offset, flags);
        assert_true(used <= have);
        events += t.batch.events.n;
        dfs_batchbuf_clear(&t.batch);
        if (add == 0)
            break;
        offset += used;
        have -= used;
        memmove(buf, buf + used, have);
    }
    dfs_framer_finish(&fr, &t.p);
    fed out = {.records = t.st.records, .events = events, .lines = t.st.lines,
               .too_large = t.st.diag.counts[DFS_PROB_RECORD_TOO_LARGE],
               .bad_lines = t.st.diag.counts[DFS_PROB_BAD_LINE]};
    if (t.st.diag.examples[DFS_PROB_BAD_LINE].n)
        out.bad_line_at = t.st.diag.examples[DFS_PROB_BAD_LINE].v[0].line;
    free(buf);
    tu_parser_free(&t);
    return out;
}

#define REC(id) "{\"id\":" #id ",\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2," \
                "\"ts\":" #id "00,\"dur\":5,\"ph\":\"X\",\"args\":{\"ret\":4}}"

static void blank_lines_keep_their_numbers(void **state)
{
    (void)state;
    char text[4096];
    size_t n = 0;
    n += (size_t)sprintf(text + n, "%s\n", REC(1));            /* line 1 */
    for (int i = 0; i < 40; i++)                               /* lines 2-41 */
        text[n++] = '\n';
    for (int i = 0; i < 7; i++)                                /* lines 42-48 */
        n += (size_t)sprintf(text + n, "  \t\r\n");
    n += (size_t)sprintf(text + n, "%s\n", "                  "); /* line 49: spaces only */
    n += (size_t)sprintf(text + n, "{bad\n");                  /* line 50 */
    for (int i = 0; i < 100; i++)                              /* lines 51-150 */
        text[n++] = i % 3 ? '\n' : '\r';
    n += (size_t)sprintf(text + n, "   %s\n", REC(2));         /* a record after spaces */
    for (int i = 0; i < 33; i++)                               /* blank to the end, no '\n' last */
        text[n++] = i % 2 ? '\n' : ' ';
    text[n] = '\0';
    fed whole = feed_text(text, n, n, 4096);
    assert_int_equal(whole.records, 2);
    assert_int_equal(whole.events, 2);
    assert_int_equal(whole.bad_lines, 1);
    assert_int_equal(whole.bad_line_at, 50);
    for (size_t piece = 1; piece <= 70; piece++) {
        fed f = feed_text(text, n, piece, 4096);
        assert_int_equal(f.records, whole.records);
        assert_int_equal(f.events, whole.events);
        assert_int_equal(f.lines, whole.lines);
        assert_int_equal(f.bad_line_at, 50);
    }
}

static void a_long_line_fed_again_is_skipped_once(void **state)
{
    (void)state;
    size_t len = 20000;
    char *text = malloc(len + 512);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, "%s\n", REC(1));
    memset(text + n, 'x', len); /* one line of 20000 bytes, over a 4096-byte limit */
    n += len;
    n += (size_t)sprintf(text + n, "\n%s\n", REC(2));
    for (size_t piece = 1; piece <= 4096; piece = piece * 3 + 1) {
        fed f = feed_text(text, n, piece, 4096);
        assert_int_equal(f.events, 2);
        assert_int_equal(f.too_large, 1);
        assert_int_equal(f.lines, 3);
    }
    free(text);
}

/* ---- reading in pieces, and listing inputs ------------------------------------------------------ */

static void write_file(const char *path, const char *data)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(data, f);
    fclose(f);
}

/* A run of path read at -j 2 in 4 KiB chunks under a record limit, read: damaged, two events. */
static dfs_run *read_in_chunks(const char *path, uint64_t max_record)
{
    dfs_run *run = tu_run(2, 4096, 0);
    run->opt.max_record = max_record;
    assert_int_equal(dfs_run_add_path(run, path), DFS_OK);
    assert_int_equal(dfs_run_read(run, NULL, 0), DFS_EXIT_DAMAGED);
    assert_int_equal(dfs_run_file(run, 0)->records, 2);
    return run;
}

static void a_nul_tail_over_many_chunks(void **state)
{
    (void)state;
    const char *head = REC(1) "\n" REC(2) "\n";
    const char *path = tu_temp_file(".pfw", head, strlen(head));
    assert_int_equal(truncate(path, 8 << 20), 0); /* sparse: a hole reads as NULs */
    /* 2048 chunks, all but one inside the NULs: under the default limit, one bad line */
    dfs_run *run = read_in_chunks(path, UINT64_C(64) << 20);
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_RECORD_TOO_LARGE), 0);
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_BAD_LINE), 1);
    dfs_run_free(run);
    /* over a 1 MiB limit: one record_too_large, named where the line starts */
    run = read_in_chunks(path, 1 << 20);
    const dfs_example *ex;
    assert_int_equal(dfs_run_problem_examples(run, DFS_PROB_RECORD_TOO_LARGE, &ex), 1);
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_RECORD_TOO_LARGE), 1);
    assert_int_equal(ex[0].offset, strlen(head));
    assert_int_equal(ex[0].line, 3);
    dfs_run_free(run);
}

static void unreadable_entries_of_a_walk_are_inputs(void **state)
{
    (void)state;
    char dir[] = "/tmp/dfscope-walk-XXXXXX", path[400], target[400], rm[100];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.pfw", dir);
    write_file(path, REC(1) "\n");
    snprintf(path, sizeof path, "%s/dangling.pfw", dir);
    snprintf(target, sizeof target, "%s/nowhere", dir);
    assert_int_equal(symlink(target, path), 0);
    snprintf(path, sizeof path, "%s/loop", dir);
    assert_int_equal(symlink("loop", path), 0);
    dfs_run *run = dfs_run_new(NULL);
    assert_int_equal(dfs_run_add_path(run, dir), DFS_OK);
    assert_int_equal(dfs_run_file_count(run), 3);
    assert_false(dfs_run_file(run, 0)->unreadable);
    assert_true(dfs_run_file(run, 1)->unreadable);
    assert_non_null(strstr(dfs_run_file(run, 1)->path, "dangling.pfw"));
    assert_string_equal(dfs_run_file(run, 1)->error, "No such file or directory");
    assert_true(dfs_run_file(run, 2)->unreadable);
    assert_string_equal(dfs_run_file(run, 2)->error, "Too many levels of symbolic links");
    assert_int_equal(dfs_run_read(run, NULL, 0), DFS_EXIT_USAGE);
    assert_int_equal(dfs_run_file(run, 0)->records, 1);
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_UNREADABLE), 2);
    dfs_run_free(run);
    /* named, the same entries are the caller's error, as before */
    run = dfs_run_new(NULL);
    assert_int_equal(dfs_run_add_path(run, path), DFS_ERR_INPUT);
    assert_non_null(strstr(dfs_run_error(run), "Too many levels of symbolic links"));
    dfs_run_free(run);
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    assert_int_equal(system(rm), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blank_lines_keep_their_numbers),
        cmocka_unit_test(a_long_line_fed_again_is_skipped_once),
        cmocka_unit_test(a_nul_tail_over_many_chunks),
        cmocka_unit_test(unreadable_entries_of_a_walk_are_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
