#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *tu_trace(const char *rel)
{
    static char path[8][4096];
    static int slot;
    struct stat st;
    if (stat(DFS_TRACES, &st) != 0)
        return NULL;
    char *p = path[slot++ & 7];
    snprintf(p, 4096, "%s/%s", DFS_TRACES, rel);
    return p;
}

void tu_require_corpus(void)
{
    struct stat st;
    if (stat(DFS_TRACES "/MANIFEST.md", &st) != 0) {
        fprintf(stderr, "SKIP: trace corpus not found at %s (clone with ../shared/traces beside it)\n",
                DFS_TRACES);
        exit(77);
    }
}

/* Every temporary file made by tu_temp_file, removed when the test program exits (a test that
 * fails half-way leaves nothing behind in /tmp either). */
static char **temp_paths;
static size_t ntemp_paths;

static void remove_temp_files(void)
{
    for (size_t i = 0; i < ntemp_paths; i++) {
        remove(temp_paths[i]);
        free(temp_paths[i]);
    }
    free(temp_paths);
    temp_paths = NULL;
    ntemp_paths = 0;
}

static void remember_temp_file(const char *path)
{
    if (ntemp_paths == 0 && atexit(remove_temp_files) != 0)
        return;
    char **grown = realloc(temp_paths, (ntemp_paths + 1) * sizeof *grown);
    char *copy = strdup(path);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            temp_paths = grown;
        return;
    }
    temp_paths = grown;
    temp_paths[ntemp_paths++] = copy;
}

const char *tu_temp_file(const char *suffix, const void *data, size_t len)
{
    static char path[8][256];
    static int slot;
    char *p = path[slot++ & 7];
    snprintf(p, 256, "/tmp/dfscope-test-XXXXXX%s", suffix ? suffix : "");
    int fd = mkstemps(p, suffix ? (int)strlen(suffix) : 0);
    if (fd < 0) {
        perror("mkstemps");
        exit(1);
    }
    remember_temp_file(p);
    if (len && write(fd, data, len) != (ssize_t)len) {
        perror("write");
        exit(1);
    }
    close(fd);
    return p;
}

void tu_parser_init(tu_parser *t, uint32_t file)
{
    memset(t, 0, sizeof *t);
    t->table = dfs_strtab_new();
    t->strs = dfs_strcache_new(t->table);
    if (!t->table || !t->strs) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    dfs_batchbuf_init(&t->batch);
    dfs_options_init(&t->opt);
    t->opt.max_examples = 5;
    dfs_pctx_init(&t->p, t->table, t->strs, &t->want, &t->opt, &t->batch);
    dfs_stream_init(&t->st, file, 0, t->opt.max_examples);
    t->p.st = &t->st;
}

void tu_parser_free(tu_parser *t)
{
    dfs_stream_free(&t->st);
    dfs_pctx_free(&t->p);
    dfs_batchbuf_free(&t->batch);
    dfs_strcache_free(t->strs);
    dfs_strtab_free(t->table);
}

dfs_run *tu_run(int jobs, uint64_t chunk_bytes, uint64_t gzip_segment_bytes)
{
    dfs_options o;
    dfs_options_init(&o);
    o.jobs = jobs;
    if (chunk_bytes)
        o.chunk_bytes = chunk_bytes;
    if (gzip_segment_bytes)
        o.gzip_segment_bytes = gzip_segment_bytes;
    dfs_run *run = dfs_run_new(&o);
    if (!run) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return run;
}

void tu_put(tu_bytes *m, const void *p, size_t n)
{
    if (m->n + n > m->cap) {
        size_t cap = m->cap ? m->cap : 256;
        while (cap < m->n + n)
            cap *= 2;
        m->b = realloc(m->b, cap);
        assert_non_null(m->b);
        m->cap = cap;
    }
    if (n)
        memcpy(m->b + m->n, p, n);
    m->n += n;
}

void tu_put_byte(tu_bytes *m, unsigned v)
{
    unsigned char c = (unsigned char)v;
    tu_put(m, &c, 1);
}

void tu_put_be(tu_bytes *m, uint64_t v, unsigned width)
{
    for (unsigned i = width; i-- > 0;)
        tu_put_byte(m, (unsigned)(v >> (8 * i)) & 0xff);
}

uint64_t tu_mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

void tu_in_child(int (*fn)(void))
{
#ifdef TU_UNDER_ASAN
    (void)fn;
    skip();
#else
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn());
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
        skip();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "child: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

dfs_insight_rules *tu_shipped_rules(void)
{
    char err[512] = "";
    dfs_insight_rules *r = dfs_insight_rules_new();
    assert_non_null(r);
    if (!dfs_insight_rules_add_builtin(r, err, sizeof err))
        fail_msg("shipped rules: %s", err);
    return r;
}
