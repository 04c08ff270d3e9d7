/* test_shrink_while_read.c - a plain trace truncated by another thread or process while dfscope
 * reads it ends the read with a damage report (incomplete_file, naming the file and the offset of
 * the cut) and the damaged verdict (exit code 1), never with SIGBUS.
 *
 * Each case runs in a child process, so that a SIGBUS kills the child, not the test program, and
 * the parent fails the case saying which signal it was. The truncation is timed without sleeping:
 * the consumer's first batch (after the first 1 MiB view of the first 16 MiB window was parsed,
 * while the rest of that window is mapped but not yet touched) asks a helper thread or a helper
 * process to truncate the file and waits until it has; the pages past the new end then vanish
 * under the reader. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ---- a trace of fixed-width lines ------------------------------------------------------------- */

#define HEADER "[\n"
#define TRACE_BYTES (20u << 20) /* more than one 16 MiB mapping window */

static const char line_fmt[] =
    "{\"id\":%u,\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":9,\"tid\":9,\"ts\":%u,\"dur\":7,\"ph\":\"X\",\"args\":{}}\n";

static size_t line_len(void) { return (size_t)snprintf(NULL, 0, line_fmt, 1000000000u, 1000000000u); }

/* Writes the trace; returns its number of records. */
static unsigned make_trace(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(HEADER, f);
    unsigned n = (unsigned)((TRACE_BYTES - strlen(HEADER)) / line_len() + 1);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, line_fmt, 1000000000u + i, 1000000000u + 10 * i);
    assert_int_equal(fclose(f), 0);
    return n;
}

static uint64_t records_within(uint64_t size) { return (size - strlen(HEADER)) / line_len(); }

static void trace_path(char *out, size_t n, const char *name)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, n, "%s/dfscope-test-shrink-%d-%s.pfw", dir && *dir ? dir : "/tmp", (int)getpid(), name);
}

/* ---- the truncation, by a helper thread or a helper process ------------------------------------- */

typedef enum helper_kind { BY_THREAD, BY_PROCESS } helper_kind;

typedef struct cutter {
    const char *path;
    uint64_t cut;            /* the size the file is truncated to */
    helper_kind by;
    atomic_int fired;        /* the first batch has asked for the cut */
    atomic_uint_fast64_t events;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int asked, done;         /* under lock: the reader's request and the helper's answer */
    bool failed;             /* the helper could not truncate */
} cutter;

/* The helper thread: waits for the request, truncates, answers. */
static void *helper_thread(void *arg)
{
    cutter *c = arg;
    pthread_mutex_lock(&c->lock);
    while (!c->asked)
        pthread_cond_wait(&c->cond, &c->lock);
    c->failed = truncate(c->path, (off_t)c->cut) != 0;
    c->done = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* A helper process (only async-signal-safe calls after fork: the reader has threads). */
static bool cut_by_process(const cutter *c)
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0)
        _exit(truncate(c->path, (off_t)c->cut) == 0 ? 0 : 1);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void *cutter_begin(void *user) { return user; }

static void cutter_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    (void)run;
    cutter *c = state;
    atomic_fetch_add(&c->events, b->count);
    if (atomic_exchange(&c->fired, 1))
        return;
    if (c->by == BY_PROCESS) {
        c->failed = !cut_by_process(c);
        return;
    }
    pthread_mutex_lock(&c->lock);
    c->asked = 1;
    pthread_cond_broadcast(&c->cond);
    while (!c->done)
        pthread_cond_wait(&c->cond, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

static void cutter_end(void *user, const dfs_run *run, void *state)
{
    (void)user;
    (void)run;
    (void)state;
}

/* ---- one case, in a child process --------------------------------------------------------------- */

typedef struct shrink_case {
    const char *name;
    helper_kind by;
    uint64_t cut;
    int jobs;
    uint64_t chunk;          /* piece size at -j > 1 (0: the default) */
} shrink_case;

/* Exit codes of the child, each a failed expectation (said by the parent). */
enum { OK = 0, E_VERDICT = 10, E_NO_REPORT, E_WRONG_FILE, E_WRONG_OFFSET, E_EVENTS, E_UNREADABLE, E_HELPER };

static const char *child_failure(int code)
{
    switch (code) {
    case E_VERDICT: return "the verdict is not DFS_EXIT_DAMAGED (exit code 1)";
    case E_NO_REPORT: return "no incomplete_file report saying the file shrank";
    case E_WRONG_FILE: return "the report does not name the truncated file";
    case E_WRONG_OFFSET: return "the report's offset is not where the file was cut";
    case E_EVENTS: return "records were lost before the cut, or read past it after it was made";
    case E_UNREADABLE: return "the cut was reported as an unreadable file";
    case E_HELPER: return "the helper could not truncate the file";
    default: return "unexpected exit code";
    }
}

/* The first incomplete_file example that says the file shrank, or NULL. */
static const dfs_example *shrank_report(const dfs_run *run)
{
    const dfs_example *ex;
    size_t n = dfs_run_problem_examples(run, DFS_PROB_INCOMPLETE_FILE, &ex);
    for (size_t i = 0; i < n; i++)
        if (strstr(ex[i].detail, "shrank"))
            return &ex[i];
    return NULL;
}

/* Reads the trace of `records` records while it is cut; returns OK or the failed expectation. */
static int read_and_judge(const shrink_case *k, const char *path, unsigned records)
{
    cutter c = {.path = path, .cut = k->cut, .by = k->by};
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.cond, NULL);
    pthread_t helper;
    if (k->by == BY_THREAD && pthread_create(&helper, NULL, helper_thread, &c) != 0)
        return E_HELPER;
    dfs_run *run = tu_run(k->jobs, k->chunk, 0);
    dfs_consumer con = {.user = &c, .worker_begin = cutter_begin, .on_batch = cutter_batch, .worker_end = cutter_end};
    dfs_consumer *cs[] = {&con};
    int verdict = dfs_run_add_path(run, path) == DFS_OK ? dfs_run_read(run, cs, 1) : -1;
    if (k->by == BY_THREAD) {
        pthread_mutex_lock(&c.lock);
        c.asked = 1; /* a read that never batched still lets the helper end */
        pthread_cond_broadcast(&c.cond);
        pthread_mutex_unlock(&c.lock);
        pthread_join(helper, NULL);
    }
    const dfs_example *ex = shrank_report(run);
    int rc = OK;
    if (c.failed)
        rc = E_HELPER;
    else if (verdict != DFS_EXIT_DAMAGED)
        rc = E_VERDICT;
    else if (!ex)
        rc = E_NO_REPORT;
    else if (ex->file != 0 || strcmp(dfs_run_file(run, 0)->path, path) != 0)
        rc = E_WRONG_FILE;
    else if (k->jobs == 1 ? ex->offset != k->cut : ex->offset < k->cut)
        rc = E_WRONG_OFFSET; /* pieces read past the cut by the other worker report where they were */
    else if (k->jobs == 1 && atomic_load(&c.events) != records_within(k->cut))
        rc = E_EVENTS;
    else if (k->jobs > 1 && atomic_load(&c.events) > records)
        rc = E_EVENTS; /* the other worker may have read records past the cut before it was made */
    else if (dfs_run_problem_count(run, DFS_PROB_UNREADABLE) != 0)
        rc = E_UNREADABLE;
    dfs_run_free(run);
    return rc;
}

static void run_case(const shrink_case *k)
{
    char path[256];
    trace_path(path, sizeof path, k->name);
    unsigned records = make_trace(path);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGBUS, SIG_DFL); /* cmocka's handler would catch it: a SIGBUS must kill the child */
        signal(SIGSEGV, SIG_DFL);
        _exit(read_and_judge(k, path, records));
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    unlink(path);
    if (WIFSIGNALED(status))
        fail_msg("%s: the read was killed by signal %d (%s) instead of reporting the cut", k->name,
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WEXITSTATUS(status) != OK)
        fail_msg("%s: %s", k->name, child_failure(WEXITSTATUS(status)));
}

/* ---- the cases -------------------------------------------------------------------------------- */

static void thread_cuts_inside_the_mapped_window(void **state)
{
    (void)state;
    /* past the first 1 MiB view, inside the first window: mapped pages vanish under the reader */
    run_case(&(shrink_case){"thread-window", BY_THREAD, 3000000, 1, 0});
}

static void process_cuts_inside_the_mapped_window(void **state)
{
    (void)state;
    run_case(&(shrink_case){"process-window", BY_PROCESS, 5000000, 1, 0});
}

static void thread_cuts_in_the_next_window(void **state)
{
    (void)state;
    run_case(&(shrink_case){"thread-next", BY_THREAD, (16u << 20) + 12345, 1, 0});
}

static void process_cuts_where_the_first_view_ends(void **state)
{
    (void)state;
    /* a cut inside the last line of the first view: that view's whole records were read */
    run_case(&(shrink_case){"process-first-view", BY_PROCESS, 1u << 20, 1, 0});
}

static void process_cuts_while_two_workers_read_pieces(void **state)
{
    (void)state;
    /* two workers, each with its own guarded window, one of them past the cut */
    run_case(&(shrink_case){"process-pieces", BY_PROCESS, 9000000, 2, 4u << 20});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_cuts_inside_the_mapped_window),
        cmocka_unit_test(process_cuts_inside_the_mapped_window),
        cmocka_unit_test(thread_cuts_in_the_next_window),
        cmocka_unit_test(process_cuts_where_the_first_view_ends),
        cmocka_unit_test(process_cuts_while_two_workers_read_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
