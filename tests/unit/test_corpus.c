/* test_corpus.c - every corpus file read through the whole library gives exactly the counts of
 * ../shared/traces/MANIFEST.md: format, gzip members, events, unparsable lines, phases as written.
 * Files the manifest does not list must be recognised as not traces. Skips without the corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct row {
    char path[512];
    char container[32];
    char members[32];
    unsigned long long events, unparsable;
    char phases[128];
} row;

typedef struct manifest {
    row rows[256];
    size_t n;
} manifest;

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
        s[--n] = '\0';
    size_t i = 0;
    while (s[i] == ' ')
        i++;
    memmove(s, s + i, strlen(s + i) + 1);
}

/* Reads the "| file | bytes | container | gzip members | events | unparsable lines | phases |" table. */
static void load_manifest(manifest *m)
{
    FILE *f = fopen(tu_trace("MANIFEST.md"), "r");
    assert_non_null(f);
    char line[2048];
    m->n = 0;
    while (fgets(line, sizeof line, f)) {
        char *cells[8];
        int nc = 0;
        if (line[0] != '|')
            continue;
        for (char *p = strtok(line + 1, "|"); p && nc < 8; p = strtok(NULL, "|"))
            cells[nc++] = p;
        if (nc < 7)
            continue;
        for (int i = 0; i < nc; i++)
            trim(cells[i]);
        if (strchr(cells[0], '/') == NULL || strstr(cells[0], "---") || cells[1][0] < '0' || cells[1][0] > '9')
            continue;
        row *r = &m->rows[m->n++];
        snprintf(r->path, sizeof r->path, "%s", cells[0]);
        snprintf(r->container, sizeof r->container, "%s", cells[2]);
        snprintf(r->members, sizeof r->members, "%s", cells[3]);
        r->events = strtoull(cells[4], NULL, 10);
        r->unparsable = strtoull(cells[5], NULL, 10);
        snprintf(r->phases, sizeof r->phases, "%s", cells[6]);
    }
    fclose(f);
    assert_true(m->n > 100);
}

static const row *find_row(const manifest *m, const char *path)
{
    for (size_t i = 0; i < m->n; i++) {
        size_t lp = strlen(path), lr = strlen(m->rows[i].path);
        if (lp > lr && strcmp(path + lp - lr, m->rows[i].path) == 0 && path[lp - lr - 1] == '/')
            return &m->rows[i];
    }
    return NULL;
}

static const struct {
    const char *suffix;
    unsigned long long records;
} dasf_counts[] = {
    {"Tutorial_5_Profile-ResourceMonitor-c096.reconstructed.msgpack", 10},
    {"Tutorial_5_Profile-TracePlugin-c096.reconstructed.msgpack", 11},
    {"test_analysis_integration_events.synthetic.msgpack", 3},
    {"test_analysis_setUp_events.synthetic.msgpack", 4},
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void check_file(const manifest *m, const dfs_file_info *f, size_t *matched)
{
    const row *r = find_row(m, f->path);
    for (size_t i = 0; i < sizeof dasf_counts / sizeof *dasf_counts; i++) {
        if (ends_with(f->path, dasf_counts[i].suffix)) {
            assert_int_equal(f->format, DFS_FMT_DASF);
            assert_int_equal(f->records, dasf_counts[i].records);
            (*matched)++;
            return;
        }
    }
    if (!r) {
        if (f->format != DFS_FMT_NOT_A_TRACE)
            fail_msg("%s: not in MANIFEST.md but read as %s", f->path, dfs_format_name(f->format));
        return;
    }
    (*matched)++;
    if (strcmp(dfs_format_name(f->format), r->container) != 0)
        fail_msg("%s: format %s, manifest %s", f->path, dfs_format_name(f->format), r->container);
    if (f->records != r->events || f->bad_records != r->unparsable)
        fail_msg("%s: %llu events / %llu unparsable, manifest %llu / %llu", f->path,
                 (unsigned long long)f->records, (unsigned long long)f->bad_records, r->events,
                 r->unparsable);
    if (strcmp(f->phase_letters, r->phases) != 0)
        fail_msg("%s: phases '%s', manifest '%s'", f->path, f->phase_letters, r->phases);
    if (strcmp(r->members, "-") == 0) {
        assert_false(f->gzip);
    } else {
        assert_true(f->gzip);
        unsigned long long members = strtoull(r->members, NULL, 10);
        bool truncated = strstr(r->members, "truncated") != NULL;
        if (f->gzip_members != members || f->incomplete != truncated)
            fail_msg("%s: %u gzip members (incomplete %d), manifest %s", f->path, f->gzip_members,
                     f->incomplete, r->members);
    }
}

static void read_corpus(int jobs, uint64_t chunk, uint64_t gzseg)
{
    manifest *m = malloc(sizeof *m);
    assert_non_null(m);
    load_manifest(m);
    dfs_run *run = tu_run(jobs, chunk, gzseg);
    assert_int_equal(dfs_run_add_path(run, tu_trace("")), DFS_OK);
    int verdict = dfs_run_read(run, NULL, 0);
    assert_int_equal(verdict, DFS_EXIT_DAMAGED); /* the corpus holds damaged files on purpose */
    size_t matched = 0;
    for (size_t i = 0; i < dfs_run_file_count(run); i++)
        check_file(m, dfs_run_file(run, i), &matched);
    assert_int_equal(matched, m->n + 4);
    dfs_run_free(run);
    free(m);
}

static void corpus_counts_match_manifest(void **state)
{
    (void)state;
    read_corpus(2, 0, 0);
}

/* The same answers when every file is cut into many chunks and segments, on one or three threads. */
static void corpus_counts_do_not_depend_on_splitting(void **state)
{
    (void)state;
    read_corpus(1, 4096, 600);
    read_corpus(3, 8192, 1100);
}

int main(void)
{
    tu_require_corpus();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_counts_match_manifest),
        cmocka_unit_test(corpus_counts_do_not_depend_on_splitting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
