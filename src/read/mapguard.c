/* mapguard.c - SIGBUS on a mapped window of a shrunken file, turned into zero pages and a note
 * the reader can read (mapguard.h says why and what is process-wide).
 *
 * Invariants: `users` counts the guards held in the process and changes only under `lock`; the
 * handler is installed exactly while users > 0, and `saved` (the disposition it replaced) is
 * written only when users goes from 0 to 1, so the handler reads a stable value. Each thread has
 * at most one guard, reachable from its handler through the thread-local `active`, which is set
 * only after the guard is filled in and cleared before the guard is released. The handler uses
 * only async-signal-safe calls (mmap, sigaction, raise) and keeps errno. */
#include "read/mapguard.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned users;
static struct sigaction saved;
static _Thread_local dfs_mapguard *active;

/* The disposition the guard replaced, for a SIGBUS that is not a fault on a guarded window. */
static void pass_on(int sig, siginfo_t *si, void *ctx)
{
    bool fault = si && si->si_code > 0; /* raised by the kernel for an access, not sent */
    if ((saved.sa_flags & SA_SIGINFO) && saved.sa_sigaction) {
        saved.sa_sigaction(sig, si, ctx);
        return;
    }
    if (saved.sa_handler == SIG_IGN && !fault)
        return;
    if (saved.sa_handler != SIG_IGN && saved.sa_handler != SIG_DFL) {
        saved.sa_handler(sig);
        return;
    }
    /* the default (a fault cannot be ignored either): die of this signal once the handler returns */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    int saved_errno = errno;
    dfs_mapguard *g = active;
    char *addr = si ? (char *)si->si_addr : NULL;
    if (g && si && si->si_code > 0 && addr >= g->base && addr < g->base + g->len) {
        size_t off = (size_t)(addr - g->base) & ~(g->page - 1);
        /* the rest of the window is past the file's end too: zero pages in its place */
        void *z = mmap(g->base + off, g->len - off, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (z != MAP_FAILED) {
            if (!g->vanished || off < g->vanished_at)
                g->vanished_at = off;
            g->vanished = 1;
            errno = saved_errno;
            return;
        }
    }
    pass_on(sig, si, ctx);
    errno = saved_errno;
}

static bool ours(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_sigbus;
}

bool dfs_mapguard_begin(dfs_mapguard *g, char *base, size_t len)
{
    memset(g, 0, sizeof *g);
    g->base = base;
    g->len = len;
    g->page = (size_t)sysconf(_SC_PAGESIZE);
    bool ok = true;
    pthread_mutex_lock(&lock);
    if (users == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        ok = sigaction(SIGBUS, NULL, &saved) == 0 && sigaction(SIGBUS, &sa, NULL) == 0;
    }
    if (ok)
        users++;
    pthread_mutex_unlock(&lock);
    if (ok)
        active = g;
    return ok;
}

void dfs_mapguard_end(dfs_mapguard *g)
{
    if (active != g)
        return;
    active = NULL;
    pthread_mutex_lock(&lock);
    if (--users == 0) {
        struct sigaction now;
        if (sigaction(SIGBUS, NULL, &now) == 0 && ours(&now)) /* else the application replaced it */
            sigaction(SIGBUS, &saved, NULL);
    }
    pthread_mutex_unlock(&lock);
}

size_t dfs_mapguard_touch(dfs_mapguard *g, size_t from, size_t to)
{
    for (size_t at = from & ~(g->page - 1); at < to; at += g->page)
        (void)*(volatile const char *)(g->base + at);
    size_t gone;
    if (dfs_mapguard_vanished(g, &gone) && gone < to)
        return gone < from ? from : gone;
    return to;
}

bool dfs_mapguard_vanished(const dfs_mapguard *g, size_t *at)
{
    if (!g->vanished)
        return false;
    *at = g->vanished_at;
    return true;
}
