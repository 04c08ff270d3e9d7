#include "output/csv.h"

#include <math.h>
#include <string.h>

#include "util/shortest.h"

void dfs_csv_text(FILE *out, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void dfs_csv_num(FILE *out, double v)
{
    fputc(',', out);
    if (isfinite(v)) {
        char buf[DFS_PY_REPR_MAX];
        fwrite(buf, 1, dfs_shortest_json_finite(v, buf), out);
    }
}
