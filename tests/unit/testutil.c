#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tu_trace(const char *rel)
{
    static char path[8][4096];
    static int slot;
    struct stat st;
    if (stat(DFS_TRACES, &st) != 0)
        return NULL;
    char *p = path[slot++ & 7];
    snprintf(p, 4096, "%s/%s", DFS_TRACES, rel);
    return p;
}

void tu_require_corpus(void)
{
    struct stat st;
    if (stat(DFS_TRACES "/MANIFEST.md", &st) != 0) {
        fprintf(stderr, "SKIP: trace corpus not found at %s (clone with ../shared/traces beside it)\n",
                DFS_TRACES);
        exit(77);
    }
}

const char *tu_temp_file(const char *suffix, const void *data, size_t len)
{
    static char path[8][256];
    static int slot;
    char *p = path[slot++ & 7];
    snprintf(p, 256, "/tmp/dfscope-test-XXXXXX%s", suffix ? suffix : "");
    int fd = mkstemps(p, suffix ? (int)strlen(suffix) : 0);
    if (fd < 0) {
        perror("mkstemps");
        exit(1);
    }
    if (len && write(fd, data, len) != (ssize_t)len) {
        perror("write");
        exit(1);
    }
    close(fd);
    return p;
}
