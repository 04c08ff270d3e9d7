/* test_mapping.c - plain files read through the sliding mapping when they change while read or
 * when memory is short. A consumer's first batch is the hook: it truncates or grows the file, or
 * lowers the address-space limit, at a known point of the read (after the first 1 MiB view of the
 * first 16 MiB window), so nothing depends on timing.
 *  - a file cut inside the window being read, between windows, or while read in pieces ends the
 *    read with incomplete_file at the cut, exit 1, never SIGBUS;
 *  - bytes appended while a file is read are not read;
 *  - the SIGBUS guard turns a vanished page into zeros, restores the disposition it replaced and
 *    hands any other SIGBUS to it;
 *  - under an address-space limit files are read with read() (unmapped_read), and a window that
 *    cannot be mapped halfway through a file makes the rest be read that way, not "unreadable". */
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#include "read/mapguard.h"


/* ---- a trace of fixed-width lines ------------------------------------------------------------- */

#define HEADER "[\n"
static const char line_fmt[] =
    "{\"id\":%u,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":%u,\"dur\":5,\"ph\":\"X\",\"args\":{}}\n";

static size_t line_len(void)
{
    return (size_t)snprintf(NULL, 0, line_fmt, 1000000000u, 1000000000u);
}

static void append_lines(const char *path, unsigned first, unsigned n)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    for (unsigned i = first; i < first + n; i++)
        fprintf(f, line_fmt, 1000000000u + i, 1000000000u + 10 * i);
    assert_int_equal(fclose(f), 0);
}

/* A fresh trace of at least `bytes` bytes; returns its number of records. */
static unsigned make_trace(const char *path, size_t bytes)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(HEADER, f);
    assert_int_equal(fclose(f), 0);
    unsigned n = (unsigned)((bytes - strlen(HEADER)) / line_len() + 1);
    append_lines(path, 0, n);
    return n;
}

/* The records wholly inside the first `size` bytes. */
static uint64_t records_within(uint64_t size)
{
    return (size - strlen(HEADER)) / line_len();
}

static const char *trace_path(const char *name)
{
    static char path[4][256];
    static int slot;
    char *p = path[slot++ % 4];
    const char *dir = getenv("TMPDIR");
    snprintf(p, 256, "%s/dfscope-test-mapping-%d-%s.pfw", dir && *dir ? dir : "/tmp", (int)getpid(), name);
    return p;
}

/* ---- the hook: a consumer that acts on the file at its first batch -------------------------------- */

typedef enum act { ACT_NONE, ACT_TRUNCATE, ACT_APPEND, ACT_LIMIT } act;

typedef struct hook {
    const char *path;
    act what;
    uint64_t arg;            /* TRUNCATE: the new size; APPEND: lines; LIMIT: bytes below the use */
    atomic_int fired;
    atomic_uint_fast64_t events;
} hook;


static void set_address_limit(uint64_t bytes)
{
    struct rlimit rl = {(rlim_t)bytes, (rlim_t)bytes};
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        _exit(90);
}

static void *hook_begin(void *user) { return user; }

static void hook_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    (void)run;
    hook *h = state;
    atomic_fetch_add(&h->events, b->count);
    if (atomic_exchange(&h->fired, 1))
        return;
    if (h->what == ACT_TRUNCATE && truncate(h->path, (off_t)h->arg) != 0)
        abort();
    if (h->what == ACT_APPEND)
        append_lines(h->path, 5000000, (unsigned)h->arg);
    if (h->what == ACT_LIMIT) /* the window being read is unmapped before the next one is mapped */
        set_address_limit(tu_mapped_bytes() - h->arg);
}

static void hook_end(void *user, const dfs_run *run, void *state)
{
    (void)user;
    (void)run;
    (void)state;
}

/* Reads `path` with the hook; returns the verdict. */
static int read_with(dfs_run *run, hook *h)
{
    dfs_consumer c = {.user = h, .worker_begin = hook_begin, .on_batch = hook_batch, .worker_end = hook_end};
    dfs_consumer *cs[] = {&c};
    if (dfs_run_add_path(run, h->path) != DFS_OK)
        return -1;
    return dfs_run_read(run, cs, 1);
}

/* The first example of a problem kind whose detail holds `text`, or NULL. */
static const dfs_example *example_with(const dfs_run *run, dfs_problem p, const char *text)
{
    const dfs_example *ex;
    size_t n = dfs_run_problem_examples(run, p, &ex);
    for (size_t i = 0; i < n; i++)
        if (strstr(ex[i].detail, text))
            return &ex[i];
    return NULL;
}

/* A problem kind by its code (so that this file also builds where a kind is missing). */
static int problem_named(const char *code)
{
    for (int p = 0; p < DFS_PROB__COUNT; p++)
        if (strcmp(dfs_problem_code((dfs_problem)p), code) == 0)
            return p;
    return -1;
}

/* ---- files that shrink or grow while they are read ------------------------------------------------ */

/* Reads a 40 MB trace at -j 1, truncated to `cut` at the first batch: the records before the cut
 * are read, the rest is not, and the cut is reported where it is, as damage. */
static dfs_run *read_cut_at(const char *name, uint64_t cut)
{
    const char *path = trace_path(name);
    make_trace(path, 40u << 20);
    hook h = {.path = path, .what = ACT_TRUNCATE, .arg = cut};
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(read_with(run, &h), DFS_EXIT_DAMAGED);
    assert_int_equal(atomic_load(&h.events), records_within(cut));
    const dfs_example *ex = example_with(run, DFS_PROB_INCOMPLETE_FILE, "shrank");
    assert_non_null(ex);
    assert_int_equal(ex->offset, cut);
    assert_true(dfs_run_file(run, 0)->incomplete);
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_UNREADABLE), 0);
    unlink(path);
    return run;
}

static void shrink_inside_the_window(void **state)
{
    (void)state;
    /* beyond the first 1 MiB view, inside the first window: its pages vanish under the reader */
    dfs_run *run = read_cut_at("inside", 1500000);
    assert_non_null(example_with(run, DFS_PROB_INCOMPLETE_FILE, "last line is cut"));
    dfs_run_free(run);
}

static void shrink_between_windows(void **state)
{
    (void)state;
    /* the first window stays whole; the second is cut */
    dfs_run_free(read_cut_at("between", (16u << 20) + 1000));
}

static void shrink_while_read_in_pieces(void **state)
{
    (void)state;
    const char *path = trace_path("pieces");
    make_trace(path, 40u << 20);
    hook h = {.path = path, .what = ACT_TRUNCATE, .arg = 6000000};
    dfs_run *run = tu_run(2, 4u << 20, 0);
    assert_int_equal(read_with(run, &h), DFS_EXIT_DAMAGED);
    assert_non_null(example_with(run, DFS_PROB_INCOMPLETE_FILE, "shrank"));
    assert_int_equal(dfs_run_problem_count(run, DFS_PROB_UNREADABLE), 0);
    dfs_run_free(run);
    unlink(path);
}

static void growth_is_not_read(void **state)
{
    (void)state;
    const char *path = trace_path("grow");
    unsigned n = make_trace(path, 20u << 20);
    hook h = {.path = path, .what = ACT_APPEND, .arg = 1000};
    dfs_run *run = tu_run(1, 0, 0);
    assert_int_equal(read_with(run, &h), DFS_EXIT_OK);
    assert_int_equal(atomic_load(&h.events), n);
    assert_int_equal(dfs_run_damage_total(run), 0);
    dfs_run_free(run);
    unlink(path);
}

/* ---- the guard itself ------------------------------------------------------------------------------ */

static volatile sig_atomic_t app_calls;

static void app_handler(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    (void)ctx;
    app_calls++;
}

static void install_app_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = app_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGBUS, &sa, NULL), 0);
}

static bool app_handler_installed(void)
{
    struct sigaction now;
    assert_int_equal(sigaction(SIGBUS, NULL, &now), 0);
    return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == app_handler;
}

static void default_disposition(void)
{
    signal(SIGBUS, SIG_DFL);
}

static void guard_turns_a_vanished_page_into_zeros(void **state)
{
    (void)state;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const char *path = trace_path("guard");
    char *bytes = malloc(3 * page);
    assert_non_null(bytes);
    memset(bytes, 'x', 3 * page);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, 3 * page), (ssize_t)(3 * page));
    free(bytes);
    char *map = mmap(NULL, 3 * page, PROT_READ, MAP_PRIVATE, fd, 0);
    assert_true(map != MAP_FAILED);
    install_app_handler();
    dfs_mapguard g;
    assert_true(dfs_mapguard_begin(&g, map, 3 * page));
    assert_int_equal(dfs_mapguard_touch(&g, 0, 3 * page), 3 * page);
    assert_int_equal(ftruncate(fd, (off_t)page + 10), 0);
    /* parsing on after the cut: the third page reads as zeros instead of raising SIGBUS */
    assert_int_equal(((volatile const char *)map)[2 * page + 5], 0);
    size_t at;
    assert_true(dfs_mapguard_vanished(&g, &at));
    assert_int_equal(at, 2 * page);
    assert_int_equal(map[page + 5], 'x'); /* the page holding the new end is still the file's */
    assert_int_equal(dfs_mapguard_touch(&g, page, 3 * page), 2 * page);
    dfs_mapguard_end(&g);
    assert_int_equal(app_calls, 0);
    assert_true(app_handler_installed()); /* the application's disposition is back */
    default_disposition();
    munmap(map, 3 * page);
    close(fd);
    unlink(path);
}

static void guard_passes_other_sigbus_on(void **state)
{
    (void)state;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *anon = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(anon != MAP_FAILED);
    install_app_handler();
    app_calls = 0;
    dfs_mapguard g;
    assert_true(dfs_mapguard_begin(&g, anon, page));
    raise(SIGBUS); /* sent, not a fault on the window: the application's handler gets it */
    dfs_mapguard_end(&g);
    assert_int_equal(app_calls, 1);
    assert_true(app_handler_installed());
    default_disposition();
    munmap(anon, page);
}

static void reading_keeps_the_application_disposition(void **state)
{
    (void)state;
    const char *path = trace_path("keep");
    unsigned n = make_trace(path, 20u << 20);
    install_app_handler();
    app_calls = 0;
    hook h = {.path = path};
    dfs_run *run = tu_run(2, 4u << 20, 0);
    assert_int_equal(read_with(run, &h), DFS_EXIT_OK);
    assert_int_equal(atomic_load(&h.events), n);
    assert_true(app_handler_installed());
    assert_int_equal(app_calls, 0);
    default_disposition();
    dfs_run_free(run);
    unlink(path);
}

/* ---- memory limits (in a child process: the limit cannot be lifted again) ------------------------- */

/* Reads a trace of `bytes` with the hook (what, arg) at -j 1. 0 when every record is read, the
 * verdict is 0 and unmapped_read says `why` at offset 0 (from_start) or further on; else a code
 * that says what failed (the child's exit status). */
static int read_unmapped(const char *name, size_t bytes, act what, uint64_t arg, const char *why, bool from_start)
{
    const char *path = trace_path(name);
    unsigned n = make_trace(path, bytes);
    hook h = {.path = path, .what = what, .arg = arg};
    if (what == ACT_NONE)
        set_address_limit(tu_mapped_bytes() + (512u << 20));
    dfs_run *run = tu_run(1, 0, 0);
    int verdict = read_with(run, &h);
    int kind = problem_named("unmapped_read");
    const dfs_example *ex = kind < 0 ? NULL : example_with(run, (dfs_problem)kind, why);
    int rc = verdict != DFS_EXIT_OK ? 10 + verdict
             : atomic_load(&h.events) != n ? 20
             : !ex ? 21
             : (ex->offset == 0) != from_start ? 22
             : 0;
    dfs_run_free(run);
    unlink(path);
    return rc;
}

static int read_under_a_limit(void)
{
    return read_unmapped("limit", 20u << 20, ACT_NONE, 0, "ulimit -v", true);
}

static void limit_reads_without_mapping(void **state)
{
    (void)state;
    tu_in_child(read_under_a_limit);
}

static int window_cannot_be_mapped(void)
{
    /* after the first window goes, 12 MiB are left: no room for a 16 MiB window, enough for read() */
    return read_unmapped("nomap", 40u << 20, ACT_LIMIT, 4u << 20, "cannot map", false);
}

static void window_failure_reads_on_with_read(void **state)
{
    (void)state;
    tu_in_child(window_cannot_be_mapped);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shrink_inside_the_window),
        cmocka_unit_test(shrink_between_windows),
        cmocka_unit_test(shrink_while_read_in_pieces),
        cmocka_unit_test(growth_is_not_read),
        cmocka_unit_test(guard_turns_a_vanished_page_into_zeros),
        cmocka_unit_test(guard_passes_other_sigbus_on),
        cmocka_unit_test(reading_keeps_the_application_disposition),
        cmocka_unit_test(limit_reads_without_mapping),
        cmocka_unit_test(window_failure_reads_on_with_read),
    };
    if (getenv("DFS_TEST_FILTER")) /* one test at a time, e.g. where another one kills the process */
        cmocka_set_test_filter(getenv("DFS_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
