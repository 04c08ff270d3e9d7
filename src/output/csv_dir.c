/* csv_dir.c - a directory of CSV files, each written atomically (csv_dir.h). A file whose writer
 * fails is not left behind: its temporary file is discarded and the writing stops there. Every
 * name is checked against the inputs before the first file is written, so that a refusal leaves
 * the directory as it was. */
#include "output/csv_dir.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "output/atomic.h"

static int make_dir(const char *dir, bool parents, char *err, size_t errlen)
{
    if (parents)
        return dfs_make_dirs(dir, err, errlen) == 0 ? 0 : -1;
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 0;
    snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    return -1;
}

static int path_of(char *path, size_t size, const char *dir, const dfs_csv_file *f, char *err, size_t errlen)
{
    if (snprintf(path, size, "%s/%s", dir, f->name) < (int)size)
        return 0;
    snprintf(err, errlen, "output path too long");
    return -1;
}

static int write_file(const char *dir, const dfs_csv_file *f, const void *ctx, dfs_output_guard *guard, char *err,
                      size_t errlen)
{
    char path[4096];
    if (path_of(path, sizeof path, dir, f, err, errlen) != 0)
        return -1;
    dfs_atomic_file af;
    if (dfs_atomic_open(&af, path, guard, err, errlen) != 0)
        return -1;
    bool ok = f->write(af.fp, ctx, f->which);
    if (!ok)
        snprintf(err, errlen, "out of memory writing %s", path);
    return dfs_atomic_close(&af, ok, err, errlen) == 0 && ok ? 0 : -1;
}

int dfs_csv_dir_write(const char *dir, bool parents, const dfs_csv_file *files, size_t n, const void *ctx,
                      dfs_output_guard *guard, char *err, size_t errlen)
{
    char path[4096];
    for (size_t i = 0; i < n; i++)
        if (path_of(path, sizeof path, dir, &files[i], err, errlen) != 0 ||
            dfs_output_refused(guard, path, err, errlen))
            return -1;
    if (make_dir(dir, parents, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (write_file(dir, &files[i], ctx, guard, err, errlen) != 0)
            return -1;
    return 0;
}
