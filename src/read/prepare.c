/* prepare.c - phase 1 of reading: each file is opened, its head read (and inflated if gzipped)
 * and sniffed; a large multi-member gzip file is given its confirmed segment starts. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/pipeline.h"

/* ---- phase 1: prepare ---------------------------------------------------------------------------- */

static void mark_unreadable(dfs_input *in, const char *what)
{
    in->info.unreadable = true;
    in->info.error = what;
}

/* Confirmed member starts near every gzip_segment_bytes; none kept when the file stays whole. */
static void find_segments(pool *pl, prepared *pr, int fd, uint64_t size)
{
    uint64_t want = size / pl->run->opt.gzip_segment_bytes + 1;
    size_t max = want < MAX_SEGMENTS ? (size_t)want : MAX_SEGMENTS;
    pr->points = malloc(max * sizeof *pr->points);
    if (!pr->points) {
        atomic_store(&pl->failed_alloc, 1);
        return;
    }
    pr->npoints = dfs_gz_split_points(fd, size, pl->run->opt.gzip_segment_bytes, pr->points, max);
    if (pr->npoints <= 1) {
        free(pr->points);
        pr->points = NULL;
        pr->npoints = 1;
    }
}

/* A file that will not be read again (not a trace) keeps what its gzip layer reported. */
static void keep_gzip_damage(pool *pl, prepared *pr, const dfs_diag *found, uint32_t file)
{
    pr->gz_damage = malloc(sizeof *pr->gz_damage);
    if (!pr->gz_damage) {
        atomic_store(&pl->failed_alloc, 1);
        return;
    }
    dfs_stream_init(pr->gz_damage, file, 0, pl->run->opt.max_examples);
    dfs_diag_merge(&pr->gz_damage->diag, found, 0);
}

void dfs_prepare_file(pool *pl, size_t i)
{
    dfs_input *in = &pl->run->inputs.v[i];
    prepared *pr = &pl->prep[i];
    pr->npoints = 1;
    if (in->info.unreadable)
        return; /* found so while listing the inputs (inputs.c), with the reason */
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        mark_unreadable(in, errno == EACCES ? "permission denied" : "cannot open");
        return;
    }
    struct stat st;
    if (fstat(fd, &st) == 0)
        in->info.size = (uint64_t)st.st_size;
    unsigned char *head = malloc(HEAD);
    if (!head) {
        atomic_store(&pl->failed_alloc, 1);
        close(fd);
        return;
    }
    ssize_t n = pread(fd, head, HEAD, 0);
    if (n < 0) {
        mark_unreadable(in, "read error");
    } else if (dfs_gz_magic(head, (size_t)n)) {
        pr->gzip = in->info.gzip = true;
        dfs_diag scratch; /* problems are reported when the file is really read */
        dfs_diag_init(&scratch, pl->run->opt.max_examples);
        dfs_gzreader *gz = dfs_gz_open(fd, in->info.size, 0, UINT64_MAX, &scratch, (uint32_t)i);
        size_t have = 0;
        ssize_t got = 1;
        while (gz && have < HEAD && (got = dfs_gz_read(gz, (char *)head + have, HEAD - have)) > 0)
            have += (size_t)got;
        pr->sniff = dfs_sniff(head, have, got == 0);
        dfs_gz_close(gz);
        if (pr->sniff.format == DFS_FMT_NOT_A_TRACE && dfs_diag_damage(&scratch))
            keep_gzip_damage(pl, pr, &scratch, (uint32_t)i);
        dfs_diag_free(&scratch);
        if (pr->sniff.format != DFS_FMT_NOT_A_TRACE && in->info.size > pl->run->opt.gzip_segment_bytes &&
            !pr->sniff.structural && pr->sniff.format != DFS_FMT_DASF) {
            if (dfs_share_cuts(pl->run, (uint32_t)i))
                dfs_share_gz_marks(pl, pr, fd, (uint32_t)i);
            else
                find_segments(pl, pr, fd, in->info.size);
        }
    } else {
        pr->sniff = dfs_sniff(head, (size_t)n, (uint64_t)n >= in->info.size);
    }
    free(head);
    close(fd);
    if (!in->info.unreadable) {
        in->info.format = pr->sniff.format;
        in->info.dialect = pr->sniff.dialect;
    }
}

