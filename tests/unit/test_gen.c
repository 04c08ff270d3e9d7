/* test_gen.c - the synthetic trace generator: determinism, sizes, and the layout of every
 * generation checked by simple independent text rules (not by dfscope's own readers). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gen/gen.h"
#include "testutil.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------- */

static char *make_temp_dir(void)
{
    char tmpl[] = "/tmp/dfscope-gen-XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void remove_dir(char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

static size_t count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static size_t count_hidden(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Whole file, decompressed by zlib when it is gzip (all members). */
static char *read_text(const char *path, size_t *len)
{
    gzFile g = gzopen(path, "rb");
    assert_non_null(g);
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (cap - n < (1 << 16)) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        int got = gzread(g, buf + n, (unsigned)(cap - n));
        assert_true(got >= 0);
        if (got == 0)
            break;
        n += (size_t)got;
    }
    gzclose(g);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static unsigned char *read_raw(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Inflates member after member with zlib; with `lines`, every member must end with a newline
 * (DFTracer 2.x cuts members between records). */
static unsigned count_members(const char *path, bool lines, uint64_t *text)
{
    size_t n;
    unsigned char *raw = read_raw(path, &n);
    unsigned char *out = malloc(1 << 20);
    unsigned members = 0;
    size_t pos = 0;
    *text = 0;
    while (pos < n) {
        z_stream z;
        memset(&z, 0, sizeof z);
        assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
        z.next_in = raw + pos;
        z.avail_in = (uInt)(n - pos);
        int rc;
        char last = 0;
        do {
            z.next_out = out;
            z.avail_out = 1 << 20;
            rc = inflate(&z, Z_NO_FLUSH);
            assert_true(rc == Z_OK || rc == Z_STREAM_END);
            size_t got = (1 << 20) - z.avail_out;
            if (got)
                last = (char)out[got - 1];
            *text += got;
        } while (rc != Z_STREAM_END);
        if (lines)
            assert_int_equal(last, '\n');
        pos = n - z.avail_in;
        inflateEnd(&z);
        members++;
    }
    free(out);
    free(raw);
    return members;
}

static void gen_ok(dfs_gen_options *o, dfs_gen_report *r)
{
    char err[256] = "";
    int st = dfs_gen_write(o, r, err, sizeof err);
    if (st != 0)
        fail_msg("dfs_gen_write: %s", err);
}

static void base_options(dfs_gen_options *o, const char *dir, dfs_gen_format f)
{
    dfs_gen_options_init(o);
    o->out_dir = dir;
    o->format = f;
    o->ranks = 2;
    o->total_bytes = 2u << 20;
    o->jobs = 2;
}

/* ---------------------------------------------------------------------------------------------
 * Independent line checks
 * ------------------------------------------------------------------------------------------- */

typedef struct line_stats {
    uint64_t records;
    uint64_t ph[8];        /* v2 integer phases */
    bool has_ts_regression;
    const char *last_record;
    size_t last_len;
} line_stats;

static bool is_record(const char *l, size_t n)
{
    return n >= 2 && l[0] == '{' && l[n - 1] == '}';
}

static int64_t field_int(const char *l, size_t n, const char *key)
{
    char k[32];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = memmem(l, n, k, strlen(k));
    if (!p)
        return -1;
    p += strlen(k);
    if (*p == '"')
        p++;
    return strtoll(p, NULL, 10);
}

/* Checks every line between the framing: a JSON object per line. */
static void check_lines(const char *text, size_t len, dfs_gen_format f, line_stats *st)
{
    memset(st, 0, sizeof *st);
    int64_t prev_ts = -1;
    const char *p = text, *end = text + len;
    bool first = true;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - p);
        const char *l = p;
        p = nl ? nl + 1 : end;
        if (n == 1 && (l[0] == '[' || l[0] == ']'))
            continue;
        if (f == DFS_GEN_2023 && first) {
            assert_true(n > 1 && l[0] == ' '); /* the 2023 first record is indented */
            l++;
            n--;
        }
        first = false;
        if (!is_record(l, n))
            fail_msg("not a record line: %.*s", (int)(n > 200 ? 200 : n), l);
        st->records++;
        st->last_record = l;
        st->last_len = n;
        if (f == DFS_GEN_V2) {
            int64_t ph = field_int(l, n, "ph");
            assert_true(ph >= 1 && ph <= 4);
            st->ph[ph]++;
            assert_non_null(memmem(l, n, "\"type\":", 7));
        }
        if (f == DFS_GEN_2023)
            assert_non_null(memmem(l, n, "\"ts\":\"", 6)); /* numbers written as strings */
        int64_t ts = field_int(l, n, "ts");
        if (ts >= 0 && prev_ts >= 0 && ts < prev_ts)
            st->has_ts_regression = true;
        if (ts >= 0)
            prev_ts = ts;
    }
}

static void check_framing(const char *t, size_t len, dfs_gen_format f)
{
    switch (f) {
    case DFS_GEN_2023:
        assert_memory_equal(t, "[\n {", 4);
        assert_int_equal(t[len - 1], '\n');
        assert_null(strstr(t, "\n]")); /* never closed */
        break;
    case DFS_GEN_V1:
    case DFS_GEN_V1_H16:
        assert_memory_equal(t, "[\n{", 3);
        assert_memory_equal(t + len - 3, "}\n]", 3); /* no newline after the bracket */
        break;
    case DFS_GEN_V2:
        assert_int_equal(t[0], '{');
        assert_int_equal(t[len - 1], '\n');
        assert_null(strstr(t, "\n]"));
        break;
    default:
        break;
    }
}

/* Chrome object form: entries separated by ",\n" between the header and the tail. */
static uint64_t check_chrome(const char *t, size_t len)
{
    const char head[] = "{\"traceEvents\":[\n";
    assert_memory_equal(t, head, sizeof head - 1);
    const char *tail = strstr(t, "\n],");
    assert_non_null(tail);
    assert_memory_equal(t + len - 2, "}\n", 2);
    uint64_t n = 0;
    const char *p = t + sizeof head - 1;
    while (p < tail) {
        const char *sep = strstr(p, ",\n");
        const char *e = sep && sep < tail ? sep : tail;
        assert_true(is_record(p, (size_t)(e - p)));
        n++;
        p = e == tail ? tail : e + 2;
    }
    for (const char *ph = "XMBEC"; *ph; ph++) {
        char k[16];
        snprintf(k, sizeof k, "\"ph\":\"%c\"", *ph);
        assert_non_null(strstr(t, k));
    }
    return n;
}

/* Every fhash value must have been defined by an earlier FH record of the same file. */
static void check_fh_before_use(const char *text)
{
    size_t cap = 1024, n = 0;
    char **defs = malloc(cap * sizeof *defs);
    uint64_t refs = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char *line = strndup(l, len);
        l = nl ? nl + 1 : l + len;
        char *v;
        if (strstr(line, "\"name\":\"FH\"") && (v = strstr(line, "\"value\":")) != NULL) {
            v += 8;
            v[strcspn(v, ",}")] = '\0';
            if (n == cap)
                defs = realloc(defs, (cap *= 2) * sizeof *defs);
            defs[n++] = strdup(v);
        } else if ((v = strstr(line, "\"fhash\":")) != NULL) {
            v += 8;
            v[strcspn(v, ",}")] = '\0';
            bool found = false;
            for (size_t i = n; i-- > 0 && !found;)
                found = strcmp(defs[i], v) == 0;
            if (!found)
                fail_msg("fhash %s used before its FH record", v);
            refs++;
        }
        free(line);
    }
    assert_true(n > 10);
    assert_true(refs > n);
    for (size_t i = 0; i < n; i++)
        free(defs[i]);
    free(defs);
}

/* ---------------------------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------------------------- */

static void same_seed_same_bytes(void **state)
{
    (void)state;
    char *a = make_temp_dir(), *b = make_temp_dir(), *c = make_temp_dir();
    dfs_gen_options o;
    dfs_gen_report ra, rb, rc;
    base_options(&o, a, DFS_GEN_V1);
    o.jobs = 1;
    gen_ok(&o, &ra);
    o.out_dir = b;
    o.jobs = 2; /* the thread count must not matter */
    gen_ok(&o, &rb);
    o.out_dir = c;
    o.seed = 2;
    gen_ok(&o, &rc);
    for (size_t i = 0; i < ra.nfiles; i++) {
        size_t na, nb, nc;
        unsigned char *x = read_raw(ra.files[i].path, &na);
        unsigned char *y = read_raw(rb.files[i].path, &nb);
        unsigned char *z = read_raw(rc.files[i].path, &nc);
        assert_int_equal(na, nb);
        assert_memory_equal(x, y, na);
        assert_true(na != nc || memcmp(x, z, na) != 0);
        free(x);
        free(y);
        free(z);
    }
    dfs_gen_report_free(&ra);
    dfs_gen_report_free(&rb);
    dfs_gen_report_free(&rc);
    remove_dir(a);
    remove_dir(b);
    remove_dir(c);
}

static void gzip_is_deterministic(void **state)
{
    (void)state;
    char *a = make_temp_dir(), *b = make_temp_dir();
    dfs_gen_options o;
    dfs_gen_report ra, rb;
    base_options(&o, a, DFS_GEN_V2);
    o.gzip = true;
    o.member_bytes = 256u << 10;
    gen_ok(&o, &ra);
    o.out_dir = b;
    gen_ok(&o, &rb);
    for (size_t i = 0; i < ra.nfiles; i++) {
        size_t na, nb;
        unsigned char *x = read_raw(ra.files[i].path, &na);
        unsigned char *y = read_raw(rb.files[i].path, &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(x, y, na);
        free(x);
        free(y);
    }
    dfs_gen_report_free(&ra);
    dfs_gen_report_free(&rb);
    remove_dir(a);
    remove_dir(b);
}

static void size_is_met_for_every_format(void **state)
{
    (void)state;
    for (int f = 0; f < DFS_GEN__COUNT; f++) {
        for (int w = 0; w < DFS_GEN__WORKLOADS; w++) {
            char *dir = make_temp_dir();
            dfs_gen_options o;
            dfs_gen_report r;
            base_options(&o, dir, (dfs_gen_format)f);
            o.workload = (dfs_gen_workload)w;
            o.ranks = 3;
            o.total_bytes = 6u << 20;
            gen_ok(&o, &r);
            double ratio = (double)r.bytes / (double)o.total_bytes;
            if (ratio < 0.95 || ratio > 1.05)
                fail_msg("%s/%s: %llu bytes for %llu requested", dfs_gen_format_name(o.format),
                         dfs_gen_workload_name(o.workload), (unsigned long long)r.bytes,
                         (unsigned long long)o.total_bytes);
            for (size_t i = 0; i < r.nfiles; i++) {
                struct stat st;
                assert_int_equal(stat(r.files[i].path, &st), 0);
                assert_int_equal((uint64_t)st.st_size, r.files[i].bytes);
            }
            assert_int_equal(count_entries(dir), 3);
            assert_int_equal(count_hidden(dir), 0); /* no temporary file left */
            dfs_gen_report_free(&r);
            remove_dir(dir);
        }
    }
}

static void events_per_rank_is_met(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    dfs_gen_options o;
    dfs_gen_report r;
    base_options(&o, dir, DFS_GEN_V2);
    o.total_bytes = 0;
    o.events_per_rank = 12000;
    gen_ok(&o, &r);
    for (size_t i = 0; i < r.nfiles; i++) {
        assert_true(r.files[i].records >= 11400);
        assert_true(r.files[i].records <= 12600);
    }
    dfs_gen_report_free(&r);
    remove_dir(dir);
}

static void lines_are_well_formed(void **state)
{
    (void)state;
    for (int f = 0; f < DFS_GEN__COUNT; f++) {
        char *dir = make_temp_dir();
        dfs_gen_options o;
        dfs_gen_report r;
        base_options(&o, dir, (dfs_gen_format)f);
        o.gzip = f == DFS_GEN_V1_H16; /* one gzip generation read back through zlib */
        gen_ok(&o, &r);
        for (size_t i = 0; i < r.nfiles; i++) {
            size_t len;
            char *t = read_text(r.files[i].path, &len);
            assert_int_equal(len, r.files[i].bytes);
            if (f == DFS_GEN_CHROME) {
                assert_int_equal(check_chrome(t, len), r.files[i].records);
                free(t);
                continue;
            }
            check_framing(t, len, (dfs_gen_format)f);
            line_stats st;
            check_lines(t, len, (dfs_gen_format)f, &st);
            assert_int_equal(st.records, r.files[i].records);
            assert_true(st.has_ts_regression); /* written at call end, parents last */
            if (f == DFS_GEN_V2) {
                for (int ph = 1; ph <= 4; ph++)
                    assert_true(st.ph[ph] > 0);
                assert_non_null(memmem(st.last_record, st.last_len, "\"name\":\"end\"", 12));
            }
            if (f == DFS_GEN_V1 || f == DFS_GEN_V1_H16)
                assert_non_null(memmem(st.last_record, st.last_len, "\"name\":\"end\"", 12));
            if (f == DFS_GEN_2023)
                assert_null(strstr(t, "\"ph\":\"M\""));
            free(t);
        }
        dfs_gen_report_free(&r);
        remove_dir(dir);
    }
}

static void fh_precedes_use(void **state)
{
    (void)state;
    const dfs_gen_format formats[] = {DFS_GEN_V1, DFS_GEN_V1_H16, DFS_GEN_V2};
    for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
        char *dir = make_temp_dir();
        dfs_gen_options o;
        dfs_gen_report r;
        base_options(&o, dir, formats[k]);
        gen_ok(&o, &r);
        for (size_t i = 0; i < r.nfiles; i++) {
            size_t len;
            char *t = read_text(r.files[i].path, &len);
            check_fh_before_use(t);
            free(t);
        }
        dfs_gen_report_free(&r);
        remove_dir(dir);
    }
}

static void v2_gzip_is_multi_member(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    dfs_gen_options o;
    dfs_gen_report r;
    base_options(&o, dir, DFS_GEN_V2);
    o.ranks = 1;
    o.total_bytes = 40u << 20; /* the default 16 MiB members: three of them */
    o.gzip = true;
    gen_ok(&o, &r);
    uint64_t text;
    unsigned members = count_members(r.files[0].path, true, &text);
    assert_true(members > 1);
    assert_int_equal(members, r.files[0].gzip_members);
    assert_int_equal(text, r.files[0].bytes);
    assert_non_null(strstr(r.files[0].path, "-app.pfw.gz"));
    dfs_gen_report_free(&r);
    remove_dir(dir);
}

static void v1_gzip_is_single_member(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    dfs_gen_options o;
    dfs_gen_report r;
    base_options(&o, dir, DFS_GEN_V1);
    o.gzip = true;
    o.ranks = 1;
    gen_ok(&o, &r);
    uint64_t text;
    assert_int_equal(count_members(r.files[0].path, false, &text), 1);
    assert_int_equal(text, r.files[0].bytes);
    dfs_gen_report_free(&r);
    remove_dir(dir);
}

static void file_names_follow_the_tools(void **state)
{
    (void)state;
    dfs_gen_options o;
    dfs_gen_options_init(&o);
    char name[128];
    dfs_gen_file_name(&o, 3, name, sizeof name);
    assert_string_equal(name, "trace-3-of-8.pfw");
    o.gzip = true;
    o.format = DFS_GEN_CHROME;
    dfs_gen_file_name(&o, 5, name, sizeof name);
    assert_string_equal(name, "rank5.trace.json.gz");
    o.format = DFS_GEN_V2;
    dfs_gen_file_name(&o, 0, name, sizeof name);
    assert_int_equal(strlen(name), strlen("trace-0123456789abcdef-app.pfw.gz"));
    assert_int_equal(strspn(name + 6, "0123456789abcdef"), 16);
}

static void sizes_and_names_parse(void **state)
{
    (void)state;
    uint64_t v;
    assert_true(dfs_gen_parse_size("4096", &v) && v == 4096);
    assert_true(dfs_gen_parse_size("128M", &v) && v == UINT64_C(128) << 20);
    assert_true(dfs_gen_parse_size("2G", &v) && v == UINT64_C(2) << 30);
    assert_true(dfs_gen_parse_size("64k", &v) && v == UINT64_C(64) << 10);
    assert_true(dfs_gen_parse_size("1.5GiB", &v) && v == UINT64_C(3) << 29);
    assert_false(dfs_gen_parse_size("", &v));
    assert_false(dfs_gen_parse_size("0", &v));
    assert_false(dfs_gen_parse_size("12Q", &v));
    assert_false(dfs_gen_parse_size("-5", &v));
    assert_false(dfs_gen_parse_size("99999999999999999999", &v));
    assert_false(dfs_gen_parse_size("99999999999T", &v));
    dfs_gen_format f;
    assert_true(dfs_gen_parse_format("v1-h16", &f) && f == DFS_GEN_V1_H16);
    assert_false(dfs_gen_parse_format("v3", &f));
    assert_string_equal(dfs_gen_format_name(DFS_GEN_CHROME), "chrome");
}

static void bad_options_are_refused(void **state)
{
    (void)state;
    dfs_gen_options o;
    dfs_gen_report r;
    char err[128];
    dfs_gen_options_init(&o);
    assert_int_equal(dfs_gen_write(&o, &r, err, sizeof err), DFS_ERR_USAGE); /* no directory */
    o.out_dir = "/tmp";
    o.ranks = 0;
    assert_int_equal(dfs_gen_write(&o, &r, err, sizeof err), DFS_ERR_USAGE);
    assert_true(strlen(err) > 0);
    dfs_gen_report_free(&r);
}

static void unwritable_directory_is_an_io_error(void **state)
{
    (void)state;
    const char *file = tu_temp_file(".txt", "x", 1);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/out", file); /* a directory below a regular file */
    dfs_gen_options o;
    dfs_gen_report r;
    char err[256];
    dfs_gen_options_init(&o);
    o.out_dir = sub;
    o.events_per_rank = 100;
    assert_int_equal(dfs_gen_write(&o, &r, err, sizeof err), DFS_ERR_IO);
    assert_non_null(strstr(err, "out"));
    dfs_gen_report_free(&r);
    unlink(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_bytes),
        cmocka_unit_test(gzip_is_deterministic),
        cmocka_unit_test(size_is_met_for_every_format),
        cmocka_unit_test(events_per_rank_is_met),
        cmocka_unit_test(lines_are_well_formed),
        cmocka_unit_test(fh_precedes_use),
        cmocka_unit_test(v2_gzip_is_multi_member),
        cmocka_unit_test(v1_gzip_is_single_member),
        cmocka_unit_test(file_names_follow_the_tools),
        cmocka_unit_test(sizes_and_names_parse),
        cmocka_unit_test(bad_options_are_refused),
        cmocka_unit_test(unwritable_directory_is_an_io_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
