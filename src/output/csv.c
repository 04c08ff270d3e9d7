/* csv.c - CSV fields (csv.h); the characters of a text field are output/escape.c's CSV rules. */
#include "output/csv.h"

#include <math.h>
#include <string.h>

#include "output/escape.h"
#include "util/shortest.h"

void dfs_csv_text(FILE *out, const char *s)
{
    if (s)
        dfs_csv_escape(dfs_put_file, out, s, strlen(s));
}

void dfs_csv_num(FILE *out, double v)
{
    fputc(',', out);
    if (isfinite(v)) {
        char buf[DFS_PY_REPR_MAX];
        fwrite(buf, 1, dfs_shortest_json_finite(v, buf), out);
    }
}
