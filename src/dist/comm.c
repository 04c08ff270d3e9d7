/* comm.c - the world of a distributed run: MPI when launched by an MPI launcher (and built with
 * it), else one rank that needs no MPI at all (comm.h). */
#include "dist/comm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DFS_HAVE_MPI
#include <mpi.h>
#endif

/* Messages travel in pieces of at most this many bytes: MPI counts are ints, and a rank short of
 * memory can still take a message in (drain). */
#define PIECE ((size_t)16 << 20)

struct dfs_comm {
    bool mpi;          /* MPI was initialised by dfs_comm_open */
    int rank, size, local_size;
    char library[160];
};

bool dfs_comm_launched(void)
{
#ifdef DFS_HAVE_MPI
    const char *force = getenv("DFSCOPE_MPI");
    if (force && *force)
        return strcmp(force, "0") != 0;
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMI_FD", "PMIX_RANK",
                                       "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]))
            return true;
#endif
    return false;
}

bool dfs_comm_launched_other_rank(void)
{
    if (!dfs_comm_launched())
        return false;
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strcmp(v, "0") != 0;
    }
    return false;
}

#ifdef DFS_HAVE_MPI
static bool mpi_open(dfs_comm *c, char *err, size_t errlen)
{
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Init_thread failed");
        return false;
    }
    c->mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    MPI_Comm local;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
        MPI_Comm_size(local, &c->local_size);
        MPI_Comm_free(&local);
    }
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(version, &len) == MPI_SUCCESS) {
        version[len < (int)sizeof version ? len : (int)sizeof version - 1] = '\0';
        size_t line = strcspn(version, "\r\n,"); /* "Open MPI v4.1.4, package: ..." */
        size_t n = 0;
        for (size_t i = 0; i < line && n + 1 < sizeof c->library; i++) /* "MPICH Version:\t4.0.2" */
            if (version[i] != ' ' && version[i] != '\t')
                c->library[n++] = version[i];
            else if (n && c->library[n - 1] != ' ')
                c->library[n++] = ' ';
        c->library[n] = '\0';
    }
    return true;
}
#endif

dfs_comm *dfs_comm_open(char *err, size_t errlen)
{
    dfs_comm *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->size = c->local_size = 1;
    snprintf(c->library, sizeof c->library, "none");
#ifdef DFS_HAVE_MPI
    if (dfs_comm_launched() && !mpi_open(c, err, errlen)) {
        free(c);
        return NULL;
    }
#else
    (void)err;
    (void)errlen;
#endif
    return c;
}

void dfs_comm_close(dfs_comm *c)
{
    if (!c)
        return;
#ifdef DFS_HAVE_MPI
    int done = 0;
    if (c->mpi && MPI_Finalized(&done) == MPI_SUCCESS && !done)
        MPI_Finalize();
#endif
    free(c);
}

int dfs_comm_rank(const dfs_comm *c) { return c->rank; }
int dfs_comm_size(const dfs_comm *c) { return c->size; }
int dfs_comm_local_size(const dfs_comm *c) { return c->local_size > 0 ? c->local_size : 1; }
const char *dfs_comm_library(const dfs_comm *c) { return c->library; }

#ifdef DFS_HAVE_MPI
enum { TAG_LENGTH = 71, TAG_DATA = 72 };

static void send_pieces(const unsigned char *p, size_t len, int to)
{
    for (size_t at = 0; at < len; at += PIECE) {
        size_t n = len - at < PIECE ? len - at : PIECE;
        MPI_Send(p + at, (int)n, MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD);
    }
}

static void recv_pieces(unsigned char *p, size_t len, int from)
{
    for (size_t at = 0; at < len; at += PIECE) {
        size_t n = len - at < PIECE ? len - at : PIECE;
        MPI_Recv(p + at, (int)n, MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* A receiver that cannot allocate a message still takes it in, one piece at a time through a
 * piece-sized scratch buffer, so the protocol stays in step; the data is lost and the caller
 * reports the failure. Without even that much memory nothing keeps the ranks in step: abort. */
static void drain(size_t len, int from, bool bcast)
{
    void *tmp = malloc(len < PIECE ? len : PIECE);
    if (!tmp)
        MPI_Abort(MPI_COMM_WORLD, 4);
    for (size_t at = 0; at < len; at += PIECE) {
        int n = (int)(len - at < PIECE ? len - at : PIECE);
        if (bcast)
            MPI_Bcast(tmp, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(tmp, n, MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(tmp);
}
#endif

bool dfs_comm_send(dfs_comm *c, int to, const void *buf, size_t len)
{
#ifdef DFS_HAVE_MPI
    if (c->mpi) {
        uint64_t n = len;
        MPI_Send(&n, 1, MPI_UINT64_T, to, TAG_LENGTH, MPI_COMM_WORLD);
        send_pieces(buf, len, to);
        return true;
    }
#endif
    (void)c;
    (void)to;
    (void)buf;
    (void)len;
    return false; /* a single rank has nobody to talk to */
}

bool dfs_comm_recv(dfs_comm *c, int from, void **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
#ifdef DFS_HAVE_MPI
    if (c->mpi) {
        uint64_t n = 0;
        MPI_Recv(&n, 1, MPI_UINT64_T, from, TAG_LENGTH, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (n == 0)
            return true;
        unsigned char *p = n <= SIZE_MAX ? malloc((size_t)n) : NULL;
        if (!p) {
            drain((size_t)n, from, false);
            return false;
        }
        recv_pieces(p, (size_t)n, from);
        *buf = p;
        *len = (size_t)n;
        return true;
    }
#endif
    (void)c;
    (void)from;
    return false;
}

bool dfs_comm_bcast(dfs_comm *c, void **buf, size_t *len)
{
#ifdef DFS_HAVE_MPI
    if (c->mpi && c->size > 1) {
        uint64_t n = c->rank == 0 ? *len : 0;
        MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        if (c->rank == 0) {
            for (size_t at = 0; at < n; at += PIECE)
                MPI_Bcast((unsigned char *)*buf + at, (int)(n - at < PIECE ? n - at : PIECE), MPI_BYTE, 0,
                          MPI_COMM_WORLD);
            return true;
        }
        *buf = NULL;
        *len = 0;
        if (n == 0)
            return true;
        unsigned char *p = malloc((size_t)n);
        if (!p) {
            drain((size_t)n, 0, true);
            return false;
        }
        for (size_t at = 0; at < n; at += PIECE)
            MPI_Bcast(p + at, (int)(n - at < PIECE ? n - at : PIECE), MPI_BYTE, 0, MPI_COMM_WORLD);
        *buf = p;
        *len = (size_t)n;
        return true;
    }
#endif
    (void)c;
    (void)buf;
    (void)len;
    return true; /* one rank: it already has rank 0's buffer */
}

int64_t dfs_comm_max(dfs_comm *c, int64_t v)
{
#ifdef DFS_HAVE_MPI
    if (c->mpi && c->size > 1) {
        int64_t out = v;
        MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        return out;
    }
#endif
    (void)c;
    return v;
}

void dfs_comm_abort(dfs_comm *c, int code)
{
#ifdef DFS_HAVE_MPI
    if (c->mpi)
        MPI_Abort(MPI_COMM_WORLD, code);
#endif
    (void)c;
    exit(code);
}
