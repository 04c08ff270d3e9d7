/* rules.c - `dfscope rules`: names and parameters, the consumer that keeps the samples and
 * events the rules read, and the finish step that orders them and runs the rules (rules.h). */
#include "analyze/rules/rules.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/rules/rules_internal.h"
#include "util/keymap.h"
#include "util/suggest.h"
#include "util/u64map.h"
#include "util/vec.h"

/* ---- names and parameters ------------------------------------------------------------------- */

#define SCAN {"scan_interval_us", DFS_RP_POSITIVE, 60e6, "length of a scan window (µs)"}
#define MAXDP(n) {"max_datapoints", DFS_RP_POSITIVE, n, "lists are reset beyond this many items"}
#define SNAPSHOT {"snapshot_window_s", DFS_RP_SECONDS, 0.02, "samples this close to a snapshot's first belong to it (s)"}
#define PATIENCE(n) {"patience", DFS_RP_COUNT, n, "values needed before the first check"}

typedef struct rule_def {
    const char *name;
    const char *ref; /* RuleParameters as the reference writes them: "label:param" or "param", comma-separated */
    size_t nparams;
    dfs_rule_param_info params[DFS_RULES_MAX_PARAMS];
} rule_def;

static const rule_def defs[DFS_RULE__COUNT] = {
    [DFS_RULE_DATALOADER] = {"Dataloader", "min_threshold,max_threshold", 5,
        {{"min_threshold", DFS_RP_NUMBER, 70, "fewest parallel data loaders, % of the cores"},
         {"max_threshold", DFS_RP_NUMBER, 200, "most parallel data loaders, % of the cores"},
         PATIENCE(10), SCAN, MAXDP(1000)}},
    [DFS_RULE_IO_BOTTLENECK] = {"IOBottleneck", "threshold,io_threshold,gpu_threshold,patience", 7,
        {{"threshold", DFS_RP_NUMBER, 50, "% of snapshots with a bottleneck to trigger"},
         {"io_threshold", DFS_RP_NUMBER, 50, "I/O wait above this is high (%)"},
         {"gpu_threshold", DFS_RP_NUMBER, 10, "GPU utilization below this is low (%)"},
         PATIENCE(1000), SCAN, MAXDP(1000000), SNAPSHOT}},
    [DFS_RULE_CPU_BOTTLENECK] = {"CPUBottleneck", "threshold,cpu_threshold,gpu_threshold,patience", 7,
        {{"threshold", DFS_RP_NUMBER, 50, "% of snapshots with a bottleneck to trigger"},
         {"cpu_threshold", DFS_RP_NUMBER, 90, "CPU utilization above this is high (%)"},
         {"gpu_threshold", DFS_RP_NUMBER, 10, "GPU utilization below this is low (%)"},
         PATIENCE(1000), SCAN, MAXDP(1000000), SNAPSHOT}},
    [DFS_RULE_LOW_GPU] = {"LowGPUUtilization", "threshold_p95,threshold_p5,window,patience", 6,
        {{"threshold_p95", DFS_RP_NUMBER, 70, "p95 below this: under-utilized (%)"},
         {"threshold_p5", DFS_RP_NUMBER, 10, "p5 below this with p95 above threshold_p95: fluctuating (%)"},
         {"window", DFS_RP_POSITIVE, 500, "last values the quantiles look at"},
         PATIENCE(1000), SCAN, MAXDP(1000000)}},
    [DFS_RULE_STEP_OUTLIER] = {"StepOutlier", "threshold:stddev,mode,n_outliers,stddev", 5,
        {{"stddev", DFS_RP_NUMBER, 3, "outlier: duration > mean + stddev * sigma"},
         {"mode", DFS_RP_TEXT, 0, "also count events named exactly this as steps (None: off)"},
         {"n_outliers", DFS_RP_COUNT, 10, "outliers tolerated before a violation"},
         {"min_steps", DFS_RP_COUNT, 100, "durations needed per node and step name (more than this)"},
         SCAN}},
    [DFS_RULE_MAX_INIT] = {"MaxInitializationTime", "threshold", 2,
        {{"threshold", DFS_RP_NUMBER, 20, "minutes allowed before the first step"}, SCAN}},
    [DFS_RULE_BATCH_SIZE] = {"BatchSize",
        "cpu_threshold_p95,gpu_threshold_p95,gpu_memory_threshold_p95,patience,window", 7,
        {{"cpu_threshold_p95", DFS_RP_NUMBER, 70, "total CPU p95 below this is low (%)"},
         {"gpu_threshold_p95", DFS_RP_NUMBER, 70, "GPU utilization p95 below this is low (%)"},
         {"gpu_memory_threshold_p95", DFS_RP_NUMBER, 70, "GPU memory p95 below this is low (%)"},
         PATIENCE(1000), {"window", DFS_RP_POSITIVE, 500, "last values the quantiles look at"},
         SCAN, MAXDP(1000000)}},
    [DFS_RULE_LOAD_BALANCING] = {"LoadBalancing", "threshold,patience", 4,
        {{"threshold", DFS_RP_NUMBER, 0.2, "Jensen-Shannon distance above this is imbalanced"},
         PATIENCE(1000), SCAN, MAXDP(1000000)}},
    [DFS_RULE_GPU_MEMORY_INCREASE] = {"GPUMemoryIncrease", "increase,patience,window", 5,
        {{"increase", DFS_RP_NUMBER, 5, "moving-average increase that is a violation (% points)"},
         PATIENCE(1000), {"window", DFS_RP_POSITIVE, 10, "values in the moving average"}, SCAN,
         MAXDP(1000000)}},
    [DFS_RULE_OVERALL_SYSTEM_USAGE] = {"OverallSystemUsage", "", 2, {SCAN, MAXDP(1000000)}},
};

/* What to do when a rule triggers: the remedy a user acts on, in the rule's terms. */
static const char *const recommendations[DFS_RULE__COUNT] = {
    [DFS_RULE_DATALOADER] = "set the data loader's worker count (num_workers) near the number of CPU cores: too few "
                            "leave the GPU waiting for batches, too many compete for the cores",
    [DFS_RULE_IO_BOTTLENECK] = "the GPU idles while the CPUs wait for I/O: read from faster storage or a local "
                               "cache, prefetch with more loader workers, or pack the dataset into fewer, larger files",
    [DFS_RULE_CPU_BOTTLENECK] = "the GPU idles while the CPUs are busy: move pre-processing to the GPU, cache "
                                "pre-processed data, or use an instance with more CPU cores per GPU",
    [DFS_RULE_LOW_GPU] = "the GPU is under-used or fluctuates: raise the batch size, look for an input bottleneck "
                         "(dfscope steps), or use a smaller GPU instance",
    [DFS_RULE_STEP_OUTLIER] = "some steps take far longer than the rest: see what ran during the slowest one "
                              "(dfscope timeline --slowest-step): checkpoints, evaluation, data-loader stalls",
    [DFS_RULE_MAX_INIT] = "training starts long after the job: stage data and compiled kernels in advance; inputs "
                          "from different runs give this too, so analyze one run at a time",
    [DFS_RULE_BATCH_SIZE] = "CPU, GPU and GPU memory are all lightly used: raise the batch size, or use a smaller "
                            "instance",
    [DFS_RULE_LOAD_BALANCING] = "work is spread unevenly over the GPUs: check the data-parallel setup (one process "
                                "per GPU, balanced shards)",
    [DFS_RULE_GPU_MEMORY_INCREASE] = "GPU memory use keeps growing: look for tensors kept across steps, or choose a "
                                     "GPU with more memory before it runs out",
    [DFS_RULE_OVERALL_SYSTEM_USAGE] = "none: the rule reports usage and never triggers",
};

const char *dfs_rule_name(dfs_rule_id r)
{
    return (unsigned)r < DFS_RULE__COUNT ? defs[r].name : "";
}

bool dfs_rule_find(const char *name, size_t len, dfs_rule_id *out)
{
    for (int r = 0; r < DFS_RULE__COUNT; r++)
        if (strlen(defs[r].name) == len && strncasecmp(defs[r].name, name, len) == 0) {
            *out = (dfs_rule_id)r;
            return true;
        }
    return false;
}

size_t dfs_rule_params(dfs_rule_id r, const dfs_rule_param_info **out)
{
    if ((unsigned)r >= DFS_RULE__COUNT) {
        *out = NULL;
        return 0;
    }
    *out = defs[r].params;
    return defs[r].nparams;
}

void dfs_rules_options_init(dfs_rules_options *o)
{
    memset(o, 0, sizeof *o);
    for (int r = 0; r < DFS_RULE__COUNT; r++)
        for (size_t p = 0; p < defs[r].nparams; p++)
            o->num[r][p] = defs[r].params[p].def;
}

static int param_index(dfs_rule_id r, const char *name, size_t len)
{
    for (size_t p = 0; p < defs[r].nparams; p++)
        if (strlen(defs[r].params[p].name) == len && memcmp(defs[r].params[p].name, name, len) == 0)
            return (int)p;
    return -1;
}

static bool value_fits(const dfs_rule_param_info *pi, double v)
{
    switch (pi->kind) {
    case DFS_RP_COUNT: return v >= 0 && v <= 1e15 && v == floor(v);
    case DFS_RP_POSITIVE: return v >= 1 && v <= 1e15 && v == floor(v);
    case DFS_RP_SECONDS: return v >= 0 && v <= 1e9;
    default: return isfinite(v);
    }
}

static const char *kind_text(dfs_rule_param_kind k)
{
    switch (k) {
    case DFS_RP_COUNT: return "an integer >= 0";
    case DFS_RP_POSITIVE: return "an integer >= 1";
    case DFS_RP_SECONDS: return "a number >= 0";
    default: return "a finite number";
    }
}

/* "unknown rule 'X'", with the rule it most likely meant, else "(see --list)"; IN tells where. */
static void unknown_rule(const char *word, size_t n, const char *in, char *err, size_t errlen)
{
    char name[DFS_SUGGEST_MAX + 1];
    snprintf(name, sizeof name, "%.*s", (int)(n < DFS_SUGGEST_MAX ? n : DFS_SUGGEST_MAX), word);
    dfs_suggest s;
    dfs_suggest_init(&s, name);
    for (int r = 0; r < DFS_RULE__COUNT; r++)
        dfs_suggest_offer(&s, defs[r].name);
    const char *guess = dfs_suggest_best(&s);
    snprintf(err, errlen, "unknown rule '%.*s'%s%s%s%s%s", (int)n, word, in ? " in --param '" : "", in ? in : "",
             in ? "'" : "", guess ? ". Did you mean '" : " (see --list)", guess ? guess : "");
    if (guess && strlen(err) + 2 < errlen)
        strcat(err, "'?");
}

bool dfs_rules_set_param(dfs_rules_options *o, const char *a, char *err, size_t errlen)
{
    const char *dot = strchr(a, '.'), *eq = strchr(a, '=');
    if (!dot || !eq || eq < dot) {
        snprintf(err, errlen, "--param takes Rule.name=value, not '%s'", a);
        return false;
    }
    dfs_rule_id r;
    if (!dfs_rule_find(a, (size_t)(dot - a), &r)) {
        unknown_rule(a, (size_t)(dot - a), a, err, errlen);
        return false;
    }
    int p = param_index(r, dot + 1, (size_t)(eq - dot - 1));
    if (p < 0) {
        snprintf(err, errlen, "%s has no parameter '%.*s'", defs[r].name, (int)(eq - dot - 1), dot + 1);
        return false;
    }
    const dfs_rule_param_info *pi = &defs[r].params[p];
    if (pi->kind == DFS_RP_TEXT) {
        o->text[r][p] = strcmp(eq + 1, "None") == 0 ? NULL : eq + 1;
        return true;
    }
    char *end;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || !value_fits(pi, v)) {
        snprintf(err, errlen, "%s.%s takes %s, not '%s'", defs[r].name, pi->name, kind_text(pi->kind), eq + 1);
        return false;
    }
    o->num[r][p] = v;
    return true;
}

bool dfs_rules_select(dfs_rules_options *o, const char *list, char *err, size_t errlen)
{
    uint32_t add = 0;
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, ",");
        dfs_rule_id r;
        if (n == 3 && strncasecmp(s, "all", 3) == 0)
            add |= (1u << DFS_RULE__COUNT) - 1;
        else if (n && dfs_rule_find(s, n, &r))
            add |= 1u << r;
        else if (n) {
            unknown_rule(s, n, NULL, err, errlen);
            return false;
        }
        s += n + (s[n] == ',');
    }
    if (!add) {
        snprintf(err, errlen, "--rules names no rule");
        return false;
    }
    o->selected |= add;
    return true;
}

/* ---- what the consumer keeps --------------------------------------------------------------- */

enum raw_src { SRC_SMDEBUG, SRC_COMPOSER_CPU, SRC_COMPOSER_MEM };
enum raw_kind { RAW_X, RAW_BEGIN, RAW_END };
enum step_class { NAME_UNKNOWN, NAME_STEP, NAME_PROFILER_STEP, NAME_BATCH, NAME_OTHER };

typedef struct raw_sample {
    int64_t ts;
    double value;
    uint64_t offset;
    uint32_t file;
    dfs_str node, dev;
    int64_t pid;
    uint8_t dim, src;
    bool mem_used;
} raw_sample;

typedef struct raw_event {
    int64_t ts, dur, pid, tid;
    uint64_t offset;
    uint32_t file;
    dfs_str name, host;
    uint8_t kind, cls;
    bool has_args_pid, has_step;
    int64_t args_pid, step; /* step: args.step_num, or args.batch of a Composer B */
    rl_raw pin_memory, num_workers;
} raw_event;

/* The run's ids of the strings the consumer compares against; 0 until the parser met them. */
typedef struct run_ids {
    dfs_str dim[RL_DIM__COUNT], mem_used, value, cpu, cpu_percent, mem_virtual, used_gb, available_gb,
        pin_memory, num_workers;
} run_ids;

typedef struct part {
    DFS_VEC(raw_sample) samples;
    DFS_VEC(raw_event) events;
    dfs_u64map name_class; /* name id -> enum step_class */
    run_ids ids;
    const char *mode; /* StepOutlier.mode, or NULL */
    uint64_t no_value;
    bool failed;
} part;

typedef DFS_VEC(const char *) note_vec;

struct dfs_rules {
    dfs_rules_options opt;
    dfs_consumer consumer;
    const char *extra[9];
    part total;
    bool failed;
    dfs_arena arena;
    dfs_strtab *labels;
    rl_sample *samples;
    rl_event *events;
    size_t nsamples, nevents;
    note_vec notes;
    dfs_rule_result rules[DFS_RULE__COUNT];
    dfs_rules_result result;
};

static const char *const dim_names[RL_DIM__COUNT] = {
    [RL_DIM_CPU] = "CPUUtilization", [RL_DIM_GPU] = "GPUUtilization",
    [RL_DIM_GPU_MEM] = "GPUMemoryUtilization", [RL_DIM_IO_WAIT] = "I/OWaitPercentage",
    [RL_DIM_NETWORK] = "Algorithm"};

static dfs_str find_id(const dfs_run *run, dfs_str known, const char *s)
{
    return known ? known : dfs_str_find(run, s, strlen(s));
}

static void refresh_ids(run_ids *d, const dfs_run *run)
{
    for (int i = 1; i < RL_DIM__COUNT; i++)
        d->dim[i] = find_id(run, d->dim[i], dim_names[i]);
    d->mem_used = find_id(run, d->mem_used, "MemoryUsedPercent");
    d->value = find_id(run, d->value, "Value");
    d->cpu = find_id(run, d->cpu, "cpu");
    d->cpu_percent = find_id(run, d->cpu_percent, "cpu_percent");
    d->mem_virtual = find_id(run, d->mem_virtual, "memory/virtual");
    d->used_gb = find_id(run, d->used_gb, "used_gb");
    d->available_gb = find_id(run, d->available_gb, "available_gb");
    d->pin_memory = find_id(run, d->pin_memory, "pin_memory");
    d->num_workers = find_id(run, d->num_workers, "num_workers");
}

static bool arg_number(const dfs_event *ev, dfs_str key, double *out)
{
    const dfs_value *v = key ? dfs_event_arg(ev, key) : NULL;
    if (!v)
        return false;
    if (v->type == DFS_V_FLOAT) {
        *out = v->as.f;
        return true;
    }
    int64_t i;
    if (v->type == DFS_V_UINT) {
        *out = (double)v->as.u;
        return true;
    }
    if (dfs_value_int(v, &i) && v->type != DFS_V_BOOL) {
        *out = (double)i;
        return true;
    }
    return false;
}

static rl_raw raw_arg(const dfs_event *ev, dfs_str key)
{
    rl_raw r = {0};
    const dfs_value *v = key ? dfs_event_arg(ev, key) : NULL;
    if (!v || v->type == DFS_V_NONE)
        return r;
    r.type = v->type;
    if (v->type == DFS_V_BOOL || v->type == DFS_V_INT)
        r.i = v->as.i;
    else if (v->type == DFS_V_UINT) {
        r.type = DFS_V_FLOAT;
        r.d = (double)v->as.u;
    } else if (v->type == DFS_V_FLOAT)
        r.d = v->as.f;
    else if (v->type == DFS_V_STR)
        r.s = v->as.s;
    else
        r.type = DFS_V_NULL; /* lists, maps, null: present but not a scalar */
    return r;
}

static uint8_t dim_of(const run_ids *d, dfs_str name)
{
    for (int i = 1; i < RL_DIM__COUNT; i++)
        if (name && name == d->dim[i])
            return (uint8_t)i;
    return RL_DIM_OTHER;
}

static void keep_smdebug_sample(part *p, const dfs_event *ev)
{
    uint8_t dim = dim_of(&p->ids, ev->name);
    bool mem_used = ev->tid_str && ev->tid_str == p->ids.mem_used;
    if (dim == RL_DIM_OTHER && !mem_used)
        return;
    double v;
    if (!arg_number(ev, p->ids.value, &v)) {
        p->no_value++;
        return;
    }
    raw_sample s = {.ts = ev->ts, .value = v, .offset = ev->offset, .file = ev->file,
                    .node = ev->host ? ev->host : ev->pid_str, .dev = ev->tid_str, .pid = ev->pid,
                    .dim = dim, .src = SRC_SMDEBUG, .mem_used = mem_used};
    if (!dfs_vec_push(&p->samples, s))
        p->failed = true;
}

/* Composer's `cpu` counter is the whole machine's percentage, one series per rank; its
 * `memory/virtual` holds used and available (both bytes/512: the ratio is right). */
static void keep_composer_sample(part *p, const dfs_event *ev)
{
    raw_sample s = {.ts = ev->ts, .offset = ev->offset, .file = ev->file, .pid = ev->pid};
    double used, avail;
    if (ev->name == p->ids.cpu && arg_number(ev, p->ids.cpu_percent, &s.value)) {
        s.dim = RL_DIM_CPU;
        s.src = SRC_COMPOSER_CPU;
    } else if (ev->name == p->ids.mem_virtual && arg_number(ev, p->ids.used_gb, &used) &&
               arg_number(ev, p->ids.available_gb, &avail) && used + avail > 0) {
        s.value = 100.0 * used / (used + avail);
        s.src = SRC_COMPOSER_MEM;
        s.mem_used = true;
    } else {
        return;
    }
    if (!dfs_vec_push(&p->samples, s))
        p->failed = true;
}

static enum step_class classify_name(const char *s, size_t n, const char *mode)
{
    if (memmem(s, n, "Step:ModeKeys", 13) || (mode && strlen(mode) == n && memcmp(s, mode, n) == 0))
        return NAME_STEP;
    if (n > 13 && memcmp(s, "ProfilerStep#", 13) == 0)
        return NAME_PROFILER_STEP;
    if (n == 11 && memcmp(s, "event/batch", 11) == 0)
        return NAME_BATCH;
    return NAME_OTHER;
}

static enum step_class name_class(part *p, const dfs_run *run, dfs_str name)
{
    uint32_t c;
    if (dfs_u64map_get(&p->name_class, name, &c))
        return (enum step_class)c;
    size_t n;
    const char *s = dfs_str_get(run, name, &n);
    c = classify_name(s ? s : "", s ? n : 0, p->mode);
    if (!dfs_u64map_put(&p->name_class, name, c))
        p->failed = true;
    return (enum step_class)c;
}

static bool framework_dialect(dfs_dialect d)
{
    return d == DFS_DIALECT_SMDEBUG_FRAMEWORK || d == DFS_DIALECT_HOROVOD || d == DFS_DIALECT_TF_PROFILER;
}

static void keep_event(part *p, const dfs_run *run, const dfs_event *ev, dfs_dialect dialect)
{
    bool timed = (ev->flags & (DFS_EF_HAS_TS | DFS_EF_BAD_TIME)) == DFS_EF_HAS_TS;
    bool complete = ev->phase == DFS_PHASE_COMPLETE && (ev->flags & DFS_EF_HAS_DUR) && ev->dur >= 0;
    bool marker = ev->phase == DFS_PHASE_BEGIN || ev->phase == DFS_PHASE_END;
    if (!timed || !ev->name || !(complete || marker))
        return;
    enum step_class cls = name_class(p, run, ev->name);
    bool keep = complete ? framework_dialect(dialect) || cls == NAME_STEP || cls == NAME_PROFILER_STEP
                         : cls == NAME_BATCH;
    if (!keep)
        return;
    raw_event e = {.ts = ev->ts, .dur = complete ? ev->dur : 0, .pid = ev->pid, .tid = ev->tid,
                   .offset = ev->offset, .file = ev->file, .name = ev->name, .host = ev->host,
                   .kind = complete ? RAW_X : ev->phase == DFS_PHASE_BEGIN ? RAW_BEGIN : RAW_END,
                   .cls = (uint8_t)cls};
    const dfs_value *v = dfs_event_arg(ev, DFS_KEY_STR(DFS_KEY_PID));
    e.has_args_pid = v && dfs_value_int(v, &e.args_pid);
    v = dfs_event_arg(ev, DFS_KEY_STR(cls == NAME_BATCH ? DFS_KEY_BATCH : DFS_KEY_STEP_NUM));
    e.has_step = v && dfs_value_int(v, &e.step);
    e.pin_memory = raw_arg(ev, p->ids.pin_memory);
    e.num_workers = raw_arg(ev, p->ids.num_workers);
    if (!dfs_vec_push(&p->events, e))
        p->failed = true;
}

static void part_free(part *p)
{
    dfs_vec_free(&p->samples);
    dfs_vec_free(&p->events);
    dfs_u64map_free(&p->name_class);
}

static const char *mode_param(const dfs_rules_options *o)
{
    return o->text[DFS_RULE_STEP_OUTLIER][1];
}

static void *worker_begin(void *user)
{
    const dfs_rules *rs = user;
    part *p = calloc(1, sizeof *p);
    if (p) {
        dfs_u64map_init(&p->name_class);
        p->mode = mode_param(&rs->opt);
    }
    return p;
}

static void on_batch(void *state, const dfs_run *run, const dfs_batch *b)
{
    part *p = state;
    if (!p || p->failed)
        return;
    refresh_ids(&p->ids, run);
    const dfs_file_info *fi = dfs_run_file(run, b->file);
    dfs_dialect dialect = fi ? fi->dialect : DFS_DIALECT_UNKNOWN;
    for (size_t i = 0; i < b->count && !p->failed; i++) {
        const dfs_event *ev = &b->events[i];
        if (ev->phase == DFS_PHASE_COUNTER && ev->ph == '?')
            keep_smdebug_sample(p, ev);
        else if (ev->phase == DFS_PHASE_COUNTER && dialect == DFS_DIALECT_COMPOSER)
            keep_composer_sample(p, ev);
        else if (ev->phase != DFS_PHASE_COUNTER && ev->phase != DFS_PHASE_METADATA)
            keep_event(p, run, ev, dialect);
    }
}

#define TAKE_OVER(dst, src) ((dst) = (src), (src).v = NULL, (src).n = (src).cap = 0)


static void worker_end(void *user, const dfs_run *run, void *state)
{
    (void)run;
    dfs_rules *rs = user;
    part *p = state, *t = &rs->total;
    if (!p) {
        rs->failed = true;
        return;
    }
    if (!t->samples.n && !t->events.n) { /* the first worker's vectors are taken over whole */
        TAKE_OVER(t->samples, p->samples);
        TAKE_OVER(t->events, p->events);
    }
    if (p->failed || !dfs_vec_append(&t->samples, &p->samples) || !dfs_vec_append(&t->events, &p->events))
        rs->failed = true;
    t->no_value += p->no_value;
    part_free(p);
    free(p);
}

dfs_rules *dfs_rules_new(const dfs_rules_options *o)
{
    dfs_rules *rs = calloc(1, sizeof *rs);
    if (!rs)
        return NULL;
    rs->opt = *o;
    rs->labels = dfs_strtab_new();
    if (!rs->labels) {
        free(rs);
        return NULL;
    }
    dfs_arena_init(&rs->arena, 64 * 1024);
    dfs_u64map_init(&rs->total.name_class);
    static const char *const extra[] = {"Value", "cpu_percent", "used_gb", "available_gb",
                                        "pin_memory", "num_workers", NULL};
    memcpy(rs->extra, extra, sizeof extra);
    rs->consumer = (dfs_consumer){
        .user = rs,
        .want = {.keys = DFS_KEYBIT(DFS_KEY_PID) | DFS_KEYBIT(DFS_KEY_STEP_NUM) | DFS_KEYBIT(DFS_KEY_BATCH),
                 .extra = rs->extra},
        .worker_begin = worker_begin,
        .on_batch = on_batch,
        .worker_end = worker_end,
    };
    return rs;
}

void dfs_rules_free(dfs_rules *rs)
{
    if (!rs)
        return;
    part_free(&rs->total);
    free(rs->samples);
    free(rs->events);
    dfs_vec_free(&rs->notes);
    dfs_arena_free(&rs->arena);
    dfs_strtab_free(rs->labels);
    free(rs);
}

dfs_consumer *dfs_rules_consumer(dfs_rules *rs)
{
    return &rs->consumer;
}

/* ---- the rules' view of the data ------------------------------------------------------------- */

const char *rl_label(const rl_ctx *c, dfs_str s)
{
    size_t n;
    const char *t = dfs_strtab_get(c->labels, s, &n);
    return t ? t : "";
}

double rl_param(const rl_ctx *c, dfs_rule_id r, const char *name)
{
    int p = param_index(r, name, strlen(name));
    return p < 0 ? NAN : c->opt->num[r][p];
}

const char *rl_param_text(const rl_ctx *c, dfs_rule_id r, const char *name)
{
    int p = param_index(r, name, strlen(name));
    return p < 0 ? NULL : c->opt->text[r][p];
}

static void note(dfs_rules *rs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(dfs_rules *rs, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = dfs_arena_strdup(&rs->arena, buf, strlen(buf));
    if (!s || !dfs_vec_push(&rs->notes, s))
        rs->failed = true;
}

static dfs_str label(dfs_rules *rs, const char *s, size_t n)
{
    dfs_str id = n ? dfs_strtab_intern(rs->labels, s, n) : 0;
    if (n && !id)
        rs->failed = true;
    return id;
}

static dfs_str labelf(dfs_rules *rs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static dfs_str labelf(dfs_rules *rs, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return label(rs, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* The run's string as a label of the analysis (run ids are per run; labels outlive nothing). */
typedef struct relabel {
    dfs_rules *rs;
    const dfs_run *run;
    dfs_u64map cache;
} relabel;

static dfs_str from_run(relabel *rl, dfs_str id)
{
    uint32_t got;
    if (!id)
        return 0;
    if (dfs_u64map_get(&rl->cache, id, &got))
        return got;
    size_t n;
    const char *s = dfs_str_get(rl->run, id, &n);
    dfs_str l = label(rl->rs, s ? s : "", s ? n : 0);
    if (!dfs_u64map_put(&rl->cache, id, l))
        rl->rs->failed = true;
    return l;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The number a file name starts with (smdebug names files by a timestamp); UINT64_MAX if none. */
static uint64_t leading_number(const char *path)
{
    const char *b = base_name(path);
    if (!isdigit((unsigned char)*b))
        return UINT64_MAX;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*b); b++)
        v = v > (UINT64_MAX - 10) / 10 ? UINT64_MAX - 1 : v * 10 + (uint64_t)(*b - '0');
    return v;
}

typedef struct file_key {
    uint64_t num;
    const char *path;
    uint32_t file;
} file_key;

static int cmp_file_key(const void *a, const void *b)
{
    const file_key *x = a, *y = b;
    if (x->num != y->num)
        return x->num < y->num ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* Reader order of the files: by the number their name starts with, then by path. */
static uint32_t *file_ranks(const dfs_run *run)
{
    size_t n = dfs_run_file_count(run);
    file_key *k = malloc((n ? n : 1) * sizeof *k);
    uint32_t *rank = malloc((n ? n : 1) * sizeof *rank);
    if (!k || !rank) {
        free(k);
        free(rank);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *path = dfs_run_file(run, i)->path;
        k[i] = (file_key){leading_number(path ? path : ""), path ? path : "", (uint32_t)i};
    }
    if (n > 1)
        qsort(k, n, sizeof *k, cmp_file_key);
    for (size_t i = 0; i < n; i++)
        rank[k[i].file] = (uint32_t)i;
    free(k);
    return rank;
}

#define READER_CMP(a, b, rank)                                                                     \
    ((a)->file != (b)->file ? (rank[(a)->file] < rank[(b)->file] ? -1 : 1)                         \
                            : (a)->offset != (b)->offset ? ((a)->offset < (b)->offset ? -1 : 1) : 0)

static int cmp_raw_sample(const void *a, const void *b, void *ctx)
{
    const uint32_t *rank = ctx;
    return READER_CMP((const raw_sample *)a, (const raw_sample *)b, rank);
}

static int cmp_raw_event(const void *a, const void *b, void *ctx)
{
    const uint32_t *rank = ctx;
    return READER_CMP((const raw_event *)a, (const raw_event *)b, rank);
}

/* qsort_r unless already in order (one worker, or files read in reader order). */
static void sort_unless_sorted(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                               void *ctx)
{
    const char *c = v;
    for (size_t i = 1; i < n; i++)
        if (cmp(c + (i - 1) * size, c + i * size, ctx) > 0) {
            qsort_r(v, n, size, cmp, ctx);
            return;
        }
}

static bool usable_file(dfs_rules *rs, const dfs_run *run, uint32_t file, bool *warned)
{
    const dfs_file_info *fi = dfs_run_file(run, file);
    if (!fi->relative_time)
        return true;
    if (!warned[file])
        note(rs, "%s: no absolute clock (%s); left out of the scan windows", fi->path,
             dfs_dialect_name(fi->dialect));
    warned[file] = true;
    return false;
}

static bool convert_samples(dfs_rules *rs, relabel *rl, const uint32_t *rank, bool *warned)
{
    part *t = &rs->total;
    sort_unless_sorted(t->samples.v, t->samples.n, sizeof *t->samples.v, cmp_raw_sample, (void *)rank);
    rs->samples = malloc((t->samples.n ? t->samples.n : 1) * sizeof *rs->samples);
    if (!rs->samples)
        return false;
    bool composer_mem = false;
    for (size_t i = 0; i < t->samples.n; i++) {
        const raw_sample *r = &t->samples.v[i];
        if (!usable_file(rs, rl->run, r->file, warned))
            continue;
        rl_sample *s = &rs->samples[rs->nsamples++];
        s->ts = dfs_file_abs_ns(dfs_run_file(rl->run, r->file), r->ts);
        s->value = r->value;
        s->dim = r->dim;
        s->mem_used = r->mem_used;
        if (r->src == SRC_SMDEBUG) {
            s->node = from_run(rl, r->node);
            s->dev = from_run(rl, r->dev);
        } else {
            s->node = labelf(rs, "rank%lld", (long long)r->pid);
            s->dev = label(rs, r->src == SRC_COMPOSER_CPU ? "cpu" : "MemoryUsedPercent",
                           r->src == SRC_COMPOSER_CPU ? 3 : 17);
            composer_mem |= r->src == SRC_COMPOSER_MEM;
        }
    }
    if (composer_mem)
        note(rs, "Composer memory/virtual read as MemoryUsedPercent = 100 * used / (used + available)");
    if (t->no_value)
        note(rs, "%llu system samples without a numeric Value skipped", (unsigned long long)t->no_value);
    return !rs->failed;
}

/* smdebug framework files are named <end_us>_<node>_<suffix>.json: the node is the second field. */
static dfs_str node_from_file_name(dfs_rules *rs, const char *path)
{
    const char *b = base_name(path), *u1 = strchr(b, '_');
    if (!u1)
        return label(rs, b, strlen(b));
    const char *u2 = strchr(u1 + 1, '_');
    return label(rs, u1 + 1, u2 ? (size_t)(u2 - u1 - 1) : strlen(u1 + 1));
}

static dfs_str event_node(dfs_rules *rs, relabel *rl, const raw_event *r, dfs_str *file_node)
{
    const dfs_file_info *fi = dfs_run_file(rl->run, r->file);
    if (fi->dialect == DFS_DIALECT_SMDEBUG_FRAMEWORK) {
        if (!file_node[r->file])
            file_node[r->file] = node_from_file_name(rs, fi->path);
        return file_node[r->file];
    }
    if (r->host)
        return from_run(rl, r->host);
    if (fi->dialect == DFS_DIALECT_COMPOSER)
        return labelf(rs, "rank%lld", (long long)r->pid);
    return label(rs, base_name(fi->path), strlen(base_name(fi->path)));
}

static dfs_str event_phase(dfs_rules *rs, relabel *rl, const raw_event *r)
{
    const dfs_file_info *fi = dfs_run_file(rl->run, r->file);
    if (!framework_dialect(fi->dialect))
        return 0;
    dfs_str p = dfs_run_process_name(rl->run, r->file, r->pid);
    return p ? from_run(rl, p) : label(rs, "Unknown", 7);
}

static rl_raw relabel_raw(relabel *rl, rl_raw v)
{
    if (v.type == DFS_V_STR)
        v.s = from_run(rl, v.s);
    return v;
}

/* The step group and number of a step event. */
static void step_of(dfs_rules *rs, relabel *rl, const raw_event *r, rl_event *e)
{
    e->is_step = r->cls == NAME_STEP || r->cls == NAME_PROFILER_STEP || r->cls == NAME_BATCH;
    if (!e->is_step)
        return;
    if (r->cls == NAME_PROFILER_STEP) {
        size_t n;
        const char *s = dfs_str_get(rl->run, r->name, &n);
        e->step_name = label(rs, "ProfilerStep", 12);
        e->step_num = s && n > 13 ? label(rs, s + 13, n - 13) : 0;
        return;
    }
    e->step_name = e->name;
    e->step_num = r->has_step ? labelf(rs, "%lld", (long long)r->step) : 0;
}

static void fill_event(dfs_rules *rs, relabel *rl, const raw_event *r, int64_t start, int64_t end,
                       dfs_str *file_node)
{
    rl_event *e = &rs->events[rs->nevents++];
    memset(e, 0, sizeof *e);
    e->start = start;
    e->end = end;
    e->node = event_node(rs, rl, r, file_node);
    e->phase = event_phase(rs, rl, r);
    e->name = from_run(rl, r->name);
    e->has_args_pid = r->has_args_pid;
    e->args_pid = r->args_pid;
    e->pin_memory = relabel_raw(rl, r->pin_memory);
    e->num_workers = relabel_raw(rl, r->num_workers);
    step_of(rs, rl, r, e);
}

/* Composer's event/batch markers: B/E paired by a stack per (file, pid, tid). */
typedef struct be_key {
    uint32_t file, pad;
    int64_t pid, tid;
} be_key;

typedef struct be_state {
    dfs_keymap stacks;              /* be_key -> index of its stack */
    DFS_VEC(DFS_VEC(uint32_t)) st;  /* open B (indices into the raw events) */
    uint64_t orphans, open;
} be_state;

static bool pair_marker(dfs_rules *rs, relabel *rl, be_state *b, size_t i, dfs_str *file_node)
{
    const raw_event *r = &rs->total.events.v[i];
    be_key k = {r->file, 0, r->pid, r->tid};
    uint32_t at;
    bool inserted;
    if (!dfs_keymap_get_or_put(&b->stacks, &k, (uint32_t)b->st.n, &at, &inserted))
        return false;
    if (inserted && !dfs_vec_reserve(&b->st, 1))
        return false;
    if (inserted)
        memset(&b->st.v[b->st.n++], 0, sizeof *b->st.v);
    if (r->kind == RAW_BEGIN)
        return dfs_vec_push(&b->st.v[at], (uint32_t)i);
    if (!b->st.v[at].n) {
        b->orphans++;
        return true;
    }
    const raw_event *begin = &rs->total.events.v[b->st.v[at].v[--b->st.v[at].n]];
    const dfs_file_info *fi = dfs_run_file(rl->run, r->file);
    int64_t start = dfs_file_abs_ns(fi, begin->ts), end = dfs_file_abs_ns(fi, r->ts);
    if (end < start) {
        b->orphans++;
        return true;
    }
    fill_event(rs, rl, begin, start, end, file_node);
    return true;
}

static bool convert_events(dfs_rules *rs, relabel *rl, const uint32_t *rank, bool *warned)
{
    part *t = &rs->total;
    sort_unless_sorted(t->events.v, t->events.n, sizeof *t->events.v, cmp_raw_event, (void *)rank);
    rs->events = malloc((t->events.n ? t->events.n : 1) * sizeof *rs->events);
    dfs_str *file_node = calloc(dfs_run_file_count(rl->run) + 1, sizeof *file_node);
    be_state b = {0};
    dfs_keymap_init(&b.stacks, sizeof(be_key));
    bool ok = rs->events && file_node;
    for (size_t i = 0; ok && i < t->events.n; i++) {
        const raw_event *r = &t->events.v[i];
        if (!usable_file(rs, rl->run, r->file, warned))
            continue;
        if (r->kind != RAW_X) {
            ok = pair_marker(rs, rl, &b, i, file_node);
            continue;
        }
        int64_t start = dfs_file_abs_ns(dfs_run_file(rl->run, r->file), r->ts), end;
        if (dfs_span_end(start, r->dur, &end)) /* else the file's clock took the end out of int64 */
            fill_event(rs, rl, r, start, end, file_node);
    }
    for (size_t i = 0; i < b.st.n; i++) {
        b.open += b.st.v[i].n;
        dfs_vec_free(&b.st.v[i]);
    }
    if (b.orphans || b.open)
        note(rs, "event/batch markers: %llu E without a B dropped, %llu B never closed",
             (unsigned long long)b.orphans, (unsigned long long)b.open);
    dfs_vec_free(&b.st);
    dfs_keymap_free(&b.stacks);
    free(file_node);
    return ok && !rs->failed;
}

static bool steps_source(const dfs_run *run)
{
    for (size_t i = 0; i < dfs_run_file_count(run); i++) {
        const dfs_file_info *fi = dfs_run_file(run, i);
        if (!fi->unreadable && !fi->relative_time &&
            (fi->dialect == DFS_DIALECT_SMDEBUG_FRAMEWORK || fi->dialect == DFS_DIALECT_KINETO ||
             fi->dialect == DFS_DIALECT_COMPOSER))
            return true;
    }
    return false;
}

static void time_range(rl_ctx *c)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < c->nsamples; i++) {
        lo = c->samples[i].ts < lo ? c->samples[i].ts : lo;
        hi = c->samples[i].ts > hi ? c->samples[i].ts : hi;
    }
    for (size_t i = 0; i < c->nevents; i++) {
        lo = c->events[i].start < lo ? c->events[i].start : lo;
        hi = c->events[i].end > hi ? c->events[i].end : hi;
    }
    c->have_time = lo <= hi;
    c->t0 = c->have_time ? lo : 0;
    c->t_end = c->have_time ? hi : 0;
}

/* ---- running the rules ----------------------------------------------------------------------- */

/* A parameter as Python's f-string prints it: integers without a fraction. */
static size_t format_param(char *buf, size_t cap, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return (size_t)snprintf(buf, cap, "%lld", (long long)v);
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, cap, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return strlen(buf);
}

static const char *rule_parameters(dfs_rules *rs, dfs_rule_id r)
{
    char out[512] = "", val[64];
    size_t used = 0;
    const char *s = defs[r].ref;
    while (*s) {
        size_t n = strcspn(s, ","), colon = strcspn(s, ":");
        size_t lab = colon < n ? colon : n;
        const char *pname = colon < n ? s + colon + 1 : s;
        int p = param_index(r, pname, colon < n ? n - colon - 1 : n);
        const char *text = p < 0 ? "" : rs->opt.text[r][p];
        if (p >= 0 && defs[r].params[p].kind != DFS_RP_TEXT)
            format_param(val, sizeof val, rs->opt.num[r][p]);
        else
            snprintf(val, sizeof val, "%s", text ? text : "None");
        int w = snprintf(out + used, sizeof out - used, "%s%.*s:%s", used ? "\n" : "", (int)lab, s, val);
        used += w > 0 && (size_t)w < sizeof out - used ? (size_t)w : 0;
        s += n + (s[n] == ',');
    }
    char *copy = dfs_arena_strdup(&rs->arena, out, used);
    if (!copy)
        rs->failed = true;
    return copy ? copy : "";
}

static bool run_rule(rl_ctx *c, dfs_rule_id r, rl_out *o)
{
    switch (r) {
    case DFS_RULE_DATALOADER: return rl_rule_dataloader(c, o);
    case DFS_RULE_IO_BOTTLENECK: return rl_rule_bottleneck(c, o, true);
    case DFS_RULE_CPU_BOTTLENECK: return rl_rule_bottleneck(c, o, false);
    case DFS_RULE_LOW_GPU: return rl_rule_low_gpu(c, o);
    case DFS_RULE_STEP_OUTLIER: return rl_rule_step_outlier(c, o);
    case DFS_RULE_MAX_INIT: return rl_rule_max_init(c, o);
    case DFS_RULE_BATCH_SIZE: return rl_rule_batch_size(c, o);
    case DFS_RULE_LOAD_BALANCING: return rl_rule_load_balancing(c, o);
    case DFS_RULE_GPU_MEMORY_INCREASE: return rl_rule_gpu_memory_increase(c, o);
    case DFS_RULE_OVERALL_SYSTEM_USAGE: return rl_rule_overall_system_usage(c, o);
    default: return false;
    }
}

static bool run_rules(dfs_rules *rs, rl_ctx *c)
{
    uint32_t sel = rs->opt.selected ? rs->opt.selected : (1u << DFS_RULE__COUNT) - 1;
    size_t n = 0;
    for (int r = 0; r < DFS_RULE__COUNT; r++) {
        if (!(sel & (1u << r)))
            continue;
        dfs_rule_result *res = &rs->rules[n++];
        res->id = (dfs_rule_id)r;
        res->name = defs[r].name;
        res->parameters = rule_parameters(rs, (dfs_rule_id)r);
        rl_out o = {.res = res, .details = rl_obj(&c->tree, NULL, NULL)};
        if (!o.details || !run_rule(c, (dfs_rule_id)r, &o) || c->tree.failed)
            return false;
        res->details = o.details;
        res->reason = o.reason[0] ? dfs_arena_strdup(&rs->arena, o.reason, strlen(o.reason)) : NULL;
        res->enable = o.enable[0] ? dfs_arena_strdup(&rs->arena, o.enable, strlen(o.enable)) : NULL;
        res->recommendation = recommendations[r];
        res->summary = dfs_arena_strdup(&rs->arena, o.summary, strlen(o.summary));
        if (!res->summary || (o.reason[0] && !res->reason) || (o.enable[0] && !res->enable))
            return false;
    }
    rs->result.rules = rs->rules;
    rs->result.nrules = n;
    return true;
}

static void fill_result(dfs_rules *rs, const rl_ctx *c)
{
    dfs_rules_result *res = &rs->result;
    res->mode = rs->opt.mode;
    res->samples = rs->nsamples;
    res->framework_events = rs->nevents;
    for (size_t i = 0; i < rs->nevents; i++)
        res->steps += rs->events[i].is_step;
    res->has_steps_source = c->has_steps_source;
    res->have_time = c->have_time;
    res->first_ns = c->t0;
    res->last_ns = c->t_end;
    res->notes = rs->notes.v;
    res->nnotes = rs->notes.n;
}

const dfs_rules_result *dfs_rules_finish(dfs_rules *rs, const dfs_run *run)
{
    if (rs->failed)
        return NULL;
    size_t nfiles = dfs_run_file_count(run);
    uint32_t *rank = file_ranks(run);
    bool *warned = calloc(nfiles + 1, sizeof *warned);
    relabel rl = {rs, run, {0}};
    dfs_u64map_init(&rl.cache);
    bool ok = rank && warned && convert_samples(rs, &rl, rank, warned) &&
              convert_events(rs, &rl, rank, warned);
    dfs_u64map_free(&rl.cache);
    free(rank);
    free(warned);
    if (!ok)
        return NULL;
    rl_ctx c = {.opt = &rs->opt, .labels = rs->labels, .samples = rs->samples, .nsamples = rs->nsamples,
                .events = rs->events, .nevents = rs->nevents, .has_steps_source = steps_source(run),
                .tree = {&rs->arena, false}};
    c.dataloader_worker = dfs_strtab_find(rs->labels, "DataLoaderWorker", 16);
    c.dataloader_iter = dfs_strtab_find(rs->labels, "DataLoaderIter", 14);
    c.dataloader_init = dfs_strtab_find(rs->labels, "DataLoaderIterInitialize", 24);
    time_range(&c);
    if (!run_rules(rs, &c) || rs->failed)
        return NULL;
    fill_result(rs, &c);
    return &rs->result;
}
