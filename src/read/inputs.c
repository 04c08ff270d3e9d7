/* inputs.c - turning the paths a user names into the run's input files.
 * A path is a file, a directory (walked recursively, entries in name order so runs are
 * reproducible) or a glob pattern. The same file named twice is read once. Nothing met on a walk
 * is skipped in silence: an entry that cannot be read (a folder that cannot be opened or listed,
 * a dangling or looping symlink, a folder nested too deep) becomes an unreadable input, reported
 * and failing the run (exit 2) like an unreadable file; only FIFOs, sockets and devices, which
 * are not traces, and a symlink back to a folder being walked (read already) are passed over.
 * The identities (device, inode) of the inputs are kept: outputs are checked against them
 * (dfs_run_holds_file). */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/run.h"

static dfs_status append_input(dfs_run *run, const char *path, uint64_t size)
{
    if (!dfs_vec_reserve(&run->inputs, 1))
        return DFS_ERR_NOMEM;
    dfs_input *in = &run->inputs.v[run->inputs.n];
    memset(in, 0, sizeof *in);
    in->path = strdup(path);
    if (!in->path)
        return DFS_ERR_NOMEM;
    in->info.path = in->path;
    in->info.size = size;
    in->info.clock_scale_num = 1;
    in->info.clock_scale_den = 1;
    for (int k = 0; k < 3; k++)
        dfs_u64map_init(&in->defs.first[k]);
    run->inputs.n++;
    return DFS_OK;
}

static dfs_status add_file(dfs_run *run, const char *path, const struct stat *st)
{
    uint64_t id[2] = {(uint64_t)st->st_dev, (uint64_t)st->st_ino};
    int fresh = dfs_keyset_add(&run->seen_files, id);
    if (fresh < 0)
        return DFS_ERR_NOMEM;
    if (fresh == 0)
        return DFS_OK; /* named twice: read once */
    return append_input(run, path, (uint64_t)st->st_size);
}

/* An entry of a walked directory that cannot be read, as an unreadable input saying why. */
static dfs_status add_unreadable(dfs_run *run, const char *path, const char *why, int err)
{
    char text[512];
    snprintf(text, sizeof text, "%s%s%s", why, err ? ": " : "", err ? strerror(err) : "");
    const char *kept = dfs_run_keep_text(run, text, strlen(text));
    if (!kept || append_input(run, path, 0) != DFS_OK)
        return DFS_ERR_NOMEM;
    dfs_input *in = &run->inputs.v[run->inputs.n - 1];
    in->info.unreadable = true;
    in->info.error = kept;
    return DFS_OK;
}

dfs_status dfs_run_add_listed(dfs_run *run, const char *path, uint64_t size)
{
    if (run->read_done)
        return DFS_ERR_USAGE;
    return append_input(run, path, size);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

enum { MAX_DEPTH = 64 };

/* Directories met on the current walk, to stop symlink loops. */
typedef struct walk_stack {
    uint64_t dev[MAX_DEPTH], ino[MAX_DEPTH];
    int depth;
} walk_stack;

static dfs_status add_any(dfs_run *run, const char *path, bool named, walk_stack *ws);

/* A named directory that cannot be read is the caller's error; one met on a walk is an input. */
static dfs_status directory_fails(dfs_run *run, const char *path, bool named, const char *why, int err)
{
    if (!named)
        return add_unreadable(run, path, why, err);
    snprintf(run->error, sizeof run->error, "%s: %s%s%s", path, why, err ? ": " : "", err ? strerror(err) : "");
    return DFS_ERR_INPUT;
}

static dfs_status add_directory(dfs_run *run, const char *path, const struct stat *st, bool named,
                                walk_stack *ws)
{
    for (int i = 0; i < ws->depth; i++)
        if (ws->dev[i] == (uint64_t)st->st_dev && ws->ino[i] == (uint64_t)st->st_ino)
            return DFS_OK; /* a loop through a symlink */
    if (ws->depth == MAX_DEPTH)
        return directory_fails(run, path, named, "directory nested too deep (more than 64 levels): not read", 0);
    DIR *d = opendir(path);
    if (!d)
        return directory_fails(run, path, named, "cannot open directory", errno);
    DFS_VEC(char *) names = {0};
    dfs_status rc = DFS_OK;
    for (struct dirent *e; errno = 0, (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(n);
        if (!child || !dfs_vec_push(&names, child)) {
            free(child);
            rc = DFS_ERR_NOMEM;
            break;
        }
        snprintf(child, n, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
    }
    int list_error = rc == DFS_OK ? errno : 0; /* readdir's end (0) or its failure */
    closedir(d);
    /* what was listed before a failure is still read */
    dfs_status listed = list_error ? directory_fails(run, path, named, "cannot list directory", list_error) : DFS_OK;
    if (names.n) /* an empty directory has no array, and qsort's pointer must not be NULL */
        qsort(names.v, names.n, sizeof *names.v, compare_names);
    ws->dev[ws->depth] = (uint64_t)st->st_dev;
    ws->ino[ws->depth] = (uint64_t)st->st_ino;
    ws->depth++;
    for (size_t i = 0; i < names.n; i++) {
        if (rc == DFS_OK) {
            dfs_status r = add_any(run, names.v[i], false, ws);
            if (r == DFS_ERR_NOMEM)
                rc = r;
        }
        free(names.v[i]);
    }
    ws->depth--;
    dfs_vec_free(&names);
    return rc == DFS_OK ? listed : rc;
}

static dfs_status add_any(dfs_run *run, const char *path, bool named, walk_stack *ws)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (!named) /* a dangling or looping symlink, a name too long... */
            return add_unreadable(run, path, strerror(errno), 0);
        snprintf(run->error, sizeof run->error, "%s: %s", path, strerror(errno));
        return DFS_ERR_INPUT;
    }
    if (S_ISDIR(st.st_mode))
        return add_directory(run, path, &st, named, ws);
    if (S_ISREG(st.st_mode))
        return add_file(run, path, &st);
    /* FIFOs, sockets and devices found while walking a directory are not traces; named
     * explicitly they are an error (reading a FIFO without a writer would block). */
    if (!named)
        return DFS_OK;
    snprintf(run->error, sizeof run->error, "%s: not a regular file", path);
    return DFS_ERR_INPUT;
}

static bool has_glob_chars(const char *s) { return strpbrk(s, "*?[") != NULL; }

bool dfs_inputs_exist(const char *path, char *why, size_t n)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
            return true;
        snprintf(why, n, "%s: not a regular file", path);
        return false;
    }
    int err = errno;
    if (!has_glob_chars(path)) {
        snprintf(why, n, "%s: %s", path, strerror(err));
        return false;
    }
    glob_t g;
    int rc = glob(path, GLOB_ERR, NULL, &g);
    globfree(&g);
    if (rc == 0)
        return true;
    snprintf(why, n, rc == GLOB_NOMATCH ? "%s: no file matches" : "%s: cannot expand the pattern", path);
    return false;
}

dfs_status dfs_inputs_add(dfs_run *run, const char *path)
{
    walk_stack ws = {.depth = 0};
    struct stat st;
    if (stat(path, &st) == 0 || !has_glob_chars(path))
        return add_any(run, path, true, &ws);
    glob_t g;
    int rc = glob(path, GLOB_ERR, NULL, &g);
    if (rc == GLOB_NOMATCH) {
        snprintf(run->error, sizeof run->error, "%s: no file matches", path);
        return DFS_ERR_INPUT;
    }
    if (rc != 0) {
        snprintf(run->error, sizeof run->error, "%s: cannot expand the pattern", path);
        return DFS_ERR_INPUT;
    }
    dfs_status result = DFS_OK;
    for (size_t i = 0; i < g.gl_pathc && result != DFS_ERR_NOMEM; i++) {
        dfs_status r = add_any(run, g.gl_pathv[i], true, &ws);
        if (r != DFS_OK)
            result = r;
    }
    globfree(&g);
    return result;
}

/* The set seen_files holds the files found by stat; inputs listed by another rank (no stat) are
 * compared one by one. */
bool dfs_run_holds_file(const dfs_run *run, const char *path)
{
    struct stat st;
    if (!run || stat(path, &st) != 0)
        return false;
    uint64_t id[2] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino};
    if (dfs_keyset_has(&run->seen_files, id))
        return true;
    if (run->seen_files.count >= run->inputs.n)
        return false;
    for (size_t i = 0; i < run->inputs.n; i++) {
        struct stat in;
        if (stat(run->inputs.v[i].path, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino)
            return true;
    }
    return false;
}
