/* atomic.c - output files that appear whole or not at all, never over an input (atomic.h).
 *
 * The registry of live temporaries is this library's one piece of process-global state, and it
 * must be: a fatal signal (SIGINT, SIGTERM, SIGHUP, SIGPIPE) reaches a handler that knows nothing
 * of the writer's stack, and only a fixed table it can read with async-signal-safe means (atomic
 * loads, unlink) lets it remove a half-written temporary before the process dies. Each slot holds
 * a copy of the temporary's name in static storage, so the handler never reads memory that
 * dfs_atomic_close frees; a slot is published (state LIVE) only once its name is complete.
 *
 * Invariants: the target is replaced only by rename(2) of a complete, flushed and synced
 * temporary in its directory; a temporary is in the registry from its creation until it is
 * renamed or unlinked; new files are created with 0666 & ~umask, a replaced file keeps its mode
 * (and its owner, when the process may set it).
 *
 * DFSCOPE_TEST_HOLD (tests only; tests/cli/reliability_outputs.sh): the name of a FIFO. When it is
 * set, every temporary, once created, waits until a writer opens that FIFO and writes a byte or
 * closes it: a test signals the process there, provably with its temporary in place. */
#include "output/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the registry of live temporaries ---- */

enum { SLOTS = 1024, SLOT_FREE = 0, SLOT_FILLING = 1, SLOT_LIVE = 2 };

static struct {
    atomic_int state;
    char name[PATH_MAX];
} live[SLOTS];
static atomic_int discarding; /* set by dfs_atomic_discard_all: the process is going down */

/* A slot for name (which fits: mkstemp names are shorter than PATH_MAX), or -1 when all are in use. */
static int enlist(const char *name)
{
    for (int i = 0; i < SLOTS; i++) {
        int expected = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&live[i].state, &expected, SLOT_FILLING))
            continue;
        snprintf(live[i].name, sizeof live[i].name, "%s", name);
        atomic_store(&live[i].state, SLOT_LIVE);
        if (atomic_load(&discarding)) /* a handler ran meanwhile and may have missed this one */
            unlink(name);
        return i;
    }
    return -1;
}

static void delist(int slot)
{
    if (slot >= 0)
        atomic_store(&live[slot].state, SLOT_FREE);
}

void dfs_atomic_discard_all(void)
{
    atomic_store(&discarding, 1);
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&live[i].state) == SLOT_LIVE)
            unlink(live[i].name);
}

/* ---- the target ---- */

/* path with the file part's symlinks followed, as rename must see it to replace the file a link
 * points to (a dangling link names the file to create). malloc'd; NULL with errno set. */
static char *follow_links(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char link[PATH_MAX];
        ssize_t n = hops < 40 ? readlink(cur, link, sizeof link - 1) : -1;
        if (n < 0) {
            int e = hops < 40 ? errno : ELOOP;
            free(cur);
            errno = e;
            return NULL;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dirlen = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dirlen + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dirlen);
            memcpy(next + dirlen, link, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    errno = ENOMEM;
    return NULL;
}

bool dfs_output_refused(dfs_output_guard *guard, const char *path, char *err, size_t errlen)
{
    if (!guard || !dfs_run_holds_file(guard->inputs, path))
        return false;
    guard->refused = true;
    snprintf(err, errlen, "refusing to write the output over the input %s", path);
    return true;
}

/* ---- the temporary ---- */

/* Creates target.tmp.XXXXXX with mode 0666 & ~umask (mkstemp's 0600 would need the umask, which
 * only a racy umask() call reads). Returns the descriptor, or -1 with errno set. */
static int create_temp(char *name, size_t size, const char *target)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^ (uintptr_t)name;
    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        for (int i = 0; i < 6; i++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            suffix[i] = letters[(x >> 33) % (sizeof letters - 1)];
        }
        suffix[6] = '\0';
        snprintf(name, size, "%s.tmp.%s", target, suffix);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* The replaced file's owner, then its mode (a change of owner may clear set-id bits). */
static void keep_attributes(int fd, const struct stat *old)
{
    if (old->st_uid != geteuid() || old->st_gid != getegid()) {
        if (fchown(fd, old->st_uid, old->st_gid) != 0) {
            /* not allowed (not root): the file is the writer's, as a copy would be */
        }
    }
    fchmod(fd, old->st_mode & 07777);
}

/* Tests only (see the header): waits on the FIFO DFSCOPE_TEST_HOLD names. */
static void hold_for_tests(void)
{
    const char *fifo = getenv("DFSCOPE_TEST_HOLD");
    int fd = fifo && *fifo ? open(fifo, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return;
    char c;
    while (read(fd, &c, 1) < 0 && errno == EINTR) {
    }
    close(fd);
}

static int fail_open(dfs_atomic_file *f, int e, char *err, size_t errlen, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s%s", path, what, strerror(e));
    free(f->target);
    free(f->temp);
    memset(f, 0, sizeof *f);
    f->slot = -1;
    return e;
}

/* A device or FIFO: written in place, as a shell's redirection would. */
static int open_direct(dfs_atomic_file *f, char *err, size_t errlen)
{
    int fd = open(f->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return fail_open(f, errno, err, errlen, f->target, "cannot open: ");
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int e = errno;
        close(fd);
        return fail_open(f, e, err, errlen, f->target, "");
    }
    return 0;
}

/* Signals a fault raises in the thread that caused it: never blocked (blocked, they kill). */
static const int synchronous[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};

/* create_temp and enlist with no signal between them, which would leave an unlisted file. The
 * descriptor, or -1 with errno set (EMFILE: the registry is full, nothing created). */
static int create_listed(dfs_atomic_file *f, size_t n)
{
    sigset_t async, saved;
    sigfillset(&async);
    for (size_t i = 0; i < sizeof synchronous / sizeof *synchronous; i++)
        sigdelset(&async, synchronous[i]);
    pthread_sigmask(SIG_BLOCK, &async, &saved);
    int fd = create_temp(f->temp, n, f->target);
    int e = errno;
    f->slot = fd < 0 ? -1 : enlist(f->temp);
    if (fd >= 0 && f->slot < 0) {
        close(fd);
        unlink(f->temp);
        fd = -1;
        e = EMFILE;
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    errno = e;
    return fd;
}

static int open_temp(dfs_atomic_file *f, const struct stat *old, char *err, size_t errlen)
{
    size_t n = strlen(f->target) + 16;
    f->temp = malloc(n);
    if (!f->temp)
        return fail_open(f, ENOMEM, err, errlen, f->target, "");
    int fd = create_listed(f, n);
    if (fd < 0)
        return fail_open(f, errno, err, errlen, f->target, "cannot create: ");
    if (old)
        keep_attributes(fd, old);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->temp);
        delist(f->slot);
        return fail_open(f, e, err, errlen, f->target, "");
    }
    hold_for_tests();
    return 0;
}

int dfs_atomic_open(dfs_atomic_file *f, const char *path, dfs_output_guard *guard, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->slot = -1;
    if (dfs_output_refused(guard, path, err, errlen))
        return EEXIST;
    f->target = follow_links(path);
    if (!f->target)
        return fail_open(f, errno, err, errlen, path, "cannot follow the link: ");
    struct stat st;
    if (stat(f->target, &st) != 0)
        return open_temp(f, NULL, err, errlen);
    if (S_ISDIR(st.st_mode))
        return fail_open(f, EISDIR, err, errlen, path, "");
    if (S_ISREG(st.st_mode))
        return open_temp(f, &st, err, errlen);
    return open_direct(f, err, errlen);
}

int dfs_atomic_close(dfs_atomic_file *f, bool keep, char *err, size_t errlen)
{
    int e = 0;
    if (fflush(f->fp) != 0 || ferror(f->fp))
        e = errno ? errno : EIO;
    if (!e && keep && f->temp && fsync(fileno(f->fp)) != 0) /* a device may not sync */
        e = errno;
    if (fclose(f->fp) != 0 && !e)
        e = errno ? errno : EIO;
    if (f->temp && keep && !e && rename(f->temp, f->target) != 0)
        e = errno;
    if (f->temp && (!keep || e))
        unlink(f->temp);
    delist(f->slot);
    if (e)
        snprintf(err, errlen, "%s: write failed: %s", f->target, strerror(e));
    free(f->target);
    free(f->temp);
    f->fp = NULL;
    f->target = f->temp = NULL;
    f->slot = -1;
    return e;
}

bool dfs_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int dfs_make_dirs(const char *dir, char *err, size_t errlen)
{
    if (!*dir) { /* the walk below starts one byte in */
        snprintf(err, errlen, "cannot create a directory with an empty name");
        return EINVAL;
    }
    char *path = strdup(dir);
    if (!path) {
        snprintf(err, errlen, "out of memory");
        return ENOMEM;
    }
    /* every prefix ending at a '/', then the whole path; existing ones are fine */
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            int rc = errno;
            snprintf(err, errlen, "cannot create %s: %s", path, strerror(rc));
            free(path);
            return rc;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    struct stat st;
    int rc = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (rc)
        snprintf(err, errlen, "%s is not a directory", path);
    free(path);
    return rc;
}
