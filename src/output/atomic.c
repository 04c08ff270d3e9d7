#include "output/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dfs_atomic_open(dfs_atomic_file *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    size_t n = strlen(path) + 32;
    f->target = strdup(path);
    f->temp = malloc(n);
    if (!f->target || !f->temp) {
        free(f->target);
        free(f->temp);
        snprintf(err, errlen, "out of memory");
        return ENOMEM;
    }
    snprintf(f->temp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(f->temp);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(e));
        free(f->target);
        free(f->temp);
        return e;
    }
    fchmod(fd, 0644);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->temp);
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        free(f->target);
        free(f->temp);
        return e;
    }
    return 0;
}

int dfs_atomic_close(dfs_atomic_file *f, bool keep, char *err, size_t errlen)
{
    int e = 0;
    if (fflush(f->fp) != 0 || ferror(f->fp))
        e = errno ? errno : EIO;
    if (!e && keep && fsync(fileno(f->fp)) != 0)
        e = errno;
    if (fclose(f->fp) != 0 && !e)
        e = errno ? errno : EIO;
    if (keep && !e && rename(f->temp, f->target) != 0)
        e = errno;
    if (!keep || e)
        unlink(f->temp);
    if (e)
        snprintf(err, errlen, "%s: write failed: %s", f->target, strerror(e));
    free(f->target);
    free(f->temp);
    f->fp = NULL;
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
