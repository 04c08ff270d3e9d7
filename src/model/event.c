/* event.c - names and accessors of the event model. */
#include <string.h>

#include "dfscope.h"

const char *dfs_phase_name(dfs_phase phase)
{
    static const char *const names[DFS_PHASE_COUNT] = {
        "complete", "begin", "end", "instant", "counter",
        "aggregated", "metadata", "flow", "async", "other",
    };
    return phase < DFS_PHASE_COUNT ? names[phase] : "other";
}

const char *dfs_format_name(dfs_format f)
{
    switch (f) {
    case DFS_FMT_NOT_A_TRACE: return "not_a_trace";
    case DFS_FMT_JSON_LINES: return "json-lines";
    case DFS_FMT_JSON_ARRAY: return "json-array";
    case DFS_FMT_JSON_OBJECT: return "json-object";
    case DFS_FMT_DASF: return "dasf-msgpack";
    case DFS_FMT_DASF_TEXT: return "dasf-text";
    default: return "unknown";
    }
}

const char *dfs_dialect_name(dfs_dialect d)
{
    static const char *const names[DFS_DIALECT_COUNT] = {
        "unknown", "dftracer-2023", "dftracer-v1", "dftracer-v2", "smdebug-system",
        "smdebug-framework", "horovod", "composer", "kineto", "tf-profiler", "chrome", "dasf",
    };
    return d < DFS_DIALECT_COUNT ? names[d] : "unknown";
}

const dfs_value *dfs_event_arg(const dfs_event *ev, dfs_str key)
{
    for (uint32_t i = 0; i < ev->nargs; i++)
        if (ev->args[i].key == key)
            return &ev->args[i].val;
    return NULL;
}

bool dfs_value_int(const dfs_value *v, int64_t *out)
{
    if (!v)
        return false;
    switch (v->type) {
    case DFS_V_INT:
    case DFS_V_BOOL:
        *out = v->as.i;
        return true;
    case DFS_V_UINT:
        *out = v->as.u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v->as.u;
        return true;
    case DFS_V_FLOAT:
        if (!(v->as.f == v->as.f) || v->as.f > 9.2e18 || v->as.f < -9.2e18)
            return false;
        *out = (int64_t)v->as.f;
        return true;
    default:
        return false;
    }
}

int64_t dfs_file_abs_ns(const dfs_file_info *f, int64_t ts)
{
    /* A damaged file can claim a start time near the end of int64 ns: saturate, never wrap. */
    __int128 t = ts;
    if (f->clock_scale_den > 0 && (f->clock_scale_num != 1 || f->clock_scale_den != 1))
        t = t * f->clock_scale_num / f->clock_scale_den;
    t += f->clock_offset_ns;
    if (t > INT64_MAX)
        return INT64_MAX;
    if (t < INT64_MIN)
        return INT64_MIN;
    return (int64_t)t;
}
