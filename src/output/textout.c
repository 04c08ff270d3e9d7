/* textout.c - buffered, optionally gzip-compressed text output (textout.h). */
#include "output/textout.h"

#include <errno.h>
#include <isa-l/igzip_lib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GEN_ZBUF (1u << 20)

struct dfs_textout {
    int fd;
    int err;
    bool gzip;
    bool member_open;
    uint64_t member_bytes;   /* 0: one member for the whole file */
    uint64_t member_text;    /* text fed to the current member, buffered part included */
    uint32_t members;
    uint64_t flushed_text;   /* text already handed to write() or deflate */
    uint64_t disk;
    char *buf;
    size_t len;
    unsigned char *zbuf;
    unsigned char *level_buf;
    struct isal_zstream zs;
};

dfs_textout *dfs_textout_new(int fd, bool gzip, uint64_t member_bytes)
{
    dfs_textout *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->fd = fd;
    o->gzip = gzip;
    o->member_bytes = gzip ? member_bytes : 0;
    o->buf = malloc(DFS_TEXTOUT_BUFFER);
    if (gzip) {
        o->zbuf = malloc(GEN_ZBUF);
        o->level_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
    }
    if (!o->buf || (gzip && (!o->zbuf || !o->level_buf))) {
        dfs_textout_free(o);
        return NULL;
    }
    return o;
}

void dfs_textout_free(dfs_textout *o)
{
    if (!o)
        return;
    free(o->buf);
    free(o->zbuf);
    free(o->level_buf);
    free(o);
}

static void write_all(dfs_textout *o, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0 && o->err == 0) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            o->err = errno ? errno : EIO;
            return;
        }
        p += w;
        n -= (size_t)w;
        o->disk += (uint64_t)w;
    }
}

static void begin_member(dfs_textout *o)
{
    isal_deflate_init(&o->zs);
    o->zs.level = 1; /* level 1 is several times faster than zlib and good enough for traces */
    o->zs.level_buf = o->level_buf;
    o->zs.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    o->zs.gzip_flag = IGZIP_GZIP;
    o->zs.flush = NO_FLUSH;
    o->member_open = true;
    o->members++;
}

static void deflate_block(dfs_textout *o, const char *in, size_t n, bool end_member)
{
    if (!o->member_open)
        begin_member(o);
    o->zs.next_in = (uint8_t *)(uintptr_t)in;
    o->zs.avail_in = (uint32_t)n;
    o->zs.end_of_stream = end_member ? 1 : 0;
    for (;;) {
        o->zs.next_out = o->zbuf;
        o->zs.avail_out = GEN_ZBUF;
        if (isal_deflate(&o->zs) != COMP_OK) {
            o->err = EIO;
            return;
        }
        write_all(o, o->zbuf, GEN_ZBUF - o->zs.avail_out);
        if (o->err)
            return;
        bool done = end_member ? o->zs.internal_state.state == ZSTATE_END : o->zs.avail_in == 0;
        if (done)
            break;
    }
    if (end_member) {
        o->member_open = false;
        o->member_text = 0;
    }
}

static void flush(dfs_textout *o, bool end_member)
{
    if (o->len == 0 && !(end_member && o->member_open))
        return;
    if (o->err == 0) {
        if (o->gzip)
            deflate_block(o, o->buf, o->len, end_member);
        else
            write_all(o, o->buf, o->len);
    }
    o->flushed_text += o->len;
    o->len = 0;
}

char *dfs_textout_reserve(dfs_textout *o, size_t n)
{
    if (DFS_TEXTOUT_BUFFER - o->len < n)
        flush(o, false);
    return o->buf + o->len;
}

void dfs_textout_commit(dfs_textout *o, size_t used)
{
    o->len += used;
    o->member_text += used;
}

void dfs_textout_put(dfs_textout *o, const char *s, size_t n)
{
    char *p = dfs_textout_reserve(o, n);
    memcpy(p, s, n);
    dfs_textout_commit(o, n);
}

void dfs_textout_record_end(dfs_textout *o)
{
    if (o->member_bytes && o->member_text >= o->member_bytes)
        flush(o, true);
}

int dfs_textout_finish(dfs_textout *o)
{
    flush(o, o->gzip);
    return o->err;
}

int dfs_textout_error(const dfs_textout *o)
{
    return o->err;
}

uint64_t dfs_textout_text_bytes(const dfs_textout *o)
{
    return o->flushed_text + o->len;
}

uint64_t dfs_textout_disk_bytes(const dfs_textout *o)
{
    return o->disk;
}

uint32_t dfs_textout_members(const dfs_textout *o)
{
    return o->members;
}
