/* rules_report.c - `dfscope rules` output (rules_report.h). */
#include "output/rules_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/csv.h"
#include "output/escape.h"
#include "output/format.h"
#include "output/json.h"
#include "util/shortest.h"

#define LIST_ITEMS 8   /* array items shown in the table */
#define MAX_DEPTH 6    /* nesting shown in the table */

static const char *mode_name(dfs_rules_mode m)
{
    return m == DFS_RULES_COMPAT ? "compatible" : "clean";
}

/* ---- JSON -------------------------------------------------------------------------------------- */

static void json_rv(dfs_jw *w, const char *key, const dfs_rv *v)
{
    switch (v->type) {
    case DFS_RV_NULL: dfs_jw_null(w, key); break;
    case DFS_RV_BOOL: dfs_jw_bool(w, key, v->as.b); break;
    case DFS_RV_INT: dfs_jw_int(w, key, v->as.i); break;
    case DFS_RV_NUM: dfs_jw_double(w, key, v->as.d); break;
    case DFS_RV_STR: dfs_jw_cstr(w, key, v->as.s); break;
    case DFS_RV_OBJ:
    case DFS_RV_ARR:
        if (v->type == DFS_RV_OBJ)
            dfs_jw_object(w, key);
        else
            dfs_jw_array(w, key);
        for (const dfs_rv *c = v->head; c; c = c->next)
            json_rv(w, v->type == DFS_RV_OBJ ? c->key : NULL, c);
        dfs_jw_end(w);
        break;
    }
}

static void json_params(dfs_jw *w, const dfs_rule_result *r)
{
    dfs_jw_object(w, "parameters");
    const char *s = r->parameters;
    while (*s) {
        size_t line = strcspn(s, "\n"), colon = strcspn(s, ":");
        if (colon < line) {
            char key[64], val[128];
            snprintf(key, sizeof key, "%.*s", (int)colon, s);
            snprintf(val, sizeof val, "%.*s", (int)(line - colon - 1), s + colon + 1);
            char *end;
            double d = strtod(val, &end);
            if (*val && !*end)
                dfs_jw_double(w, key, d);
            else if (strcmp(val, "None") == 0)
                dfs_jw_null(w, key);
            else
                dfs_jw_cstr(w, key, val);
        }
        s += line + (s[line] == '\n');
    }
    dfs_jw_end(w);
}

static void json_rule(dfs_jw *w, const dfs_rule_result *r)
{
    dfs_jw_object(w, NULL);
    dfs_jw_cstr(w, "rule", r->name);
    dfs_jw_bool(w, "evaluated", r->evaluated);
    if (r->reason)
        dfs_jw_cstr(w, "reason", r->reason);
    else
        dfs_jw_null(w, "reason");
    dfs_jw_uint(w, "RuleTriggered", r->triggered);
    dfs_jw_uint(w, "Violations", r->violations);
    json_rv(w, "Details", r->details);
    dfs_jw_uint(w, "Datapoints", r->datapoints);
    dfs_jw_cstr(w, "RuleParameters", r->parameters);
    json_params(w, r);
    dfs_jw_uint(w, "windows", r->windows);
    dfs_jw_cstr(w, "summary", r->summary ? r->summary : "");
    if (r->enable)
        dfs_jw_cstr(w, "enable_with", r->enable);
    else
        dfs_jw_null(w, "enable_with");
    dfs_jw_cstr(w, "recommendation", r->recommendation ? r->recommendation : "");
    dfs_jw_end(w);
}

void dfs_rules_write_json(FILE *out, const dfs_rules_result *r)
{
    dfs_jw w;
    dfs_jw_init(&w, out, true);
    dfs_jw_object(&w, NULL);
    dfs_jw_cstr(&w, "schema", "dfscope-rules/1");
    dfs_jw_cstr(&w, "dfscope_version", DFS_VERSION_STRING);
    dfs_jw_cstr(&w, "mode", mode_name(r->mode));
    dfs_jw_object(&w, "inputs");
    dfs_jw_uint(&w, "system_samples", r->samples);
    dfs_jw_uint(&w, "framework_events", r->framework_events);
    dfs_jw_uint(&w, "steps", r->steps);
    dfs_jw_bool(&w, "steps_source", r->has_steps_source);
    if (r->have_time) {
        dfs_jw_double(&w, "first_timestamp", dfs_rules_seconds(r->first_ns));
        dfs_jw_double(&w, "last_timestamp", dfs_rules_seconds(r->last_ns));
    } else {
        dfs_jw_null(&w, "first_timestamp");
        dfs_jw_null(&w, "last_timestamp");
    }
    dfs_jw_end(&w);
    dfs_jw_array(&w, "notes");
    for (size_t i = 0; i < r->nnotes; i++)
        dfs_jw_cstr(&w, NULL, r->notes[i]);
    dfs_jw_end(&w);
    dfs_jw_array(&w, "rules");
    for (size_t i = 0; i < r->nrules; i++)
        json_rule(&w, &r->rules[i]);
    dfs_jw_end(&w);
    dfs_jw_end(&w);
    fputc('\n', out);
}

/* ---- CSV --------------------------------------------------------------------------------------- */

void dfs_rules_write_csv(FILE *out, const dfs_rules_result *r)
{
    fputs("rule,evaluated,reason,RuleTriggered,Violations,Datapoints,RuleParameters,windows,summary\n", out);
    for (size_t i = 0; i < r->nrules; i++) {
        const dfs_rule_result *x = &r->rules[i];
        dfs_csv_text(out, x->name);
        fprintf(out, ",%s,", x->evaluated ? "true" : "false");
        dfs_csv_text(out, x->reason ? x->reason : "");
        fprintf(out, ",%llu,%llu,%llu,", (unsigned long long)x->triggered, (unsigned long long)x->violations,
                (unsigned long long)x->datapoints);
        dfs_csv_text(out, x->parameters);
        fprintf(out, ",%llu,", (unsigned long long)x->windows);
        dfs_csv_text(out, x->summary ? x->summary : "");
        fputc('\n', out);
    }
}

/* ---- table ------------------------------------------------------------------------------------- */

/* Beyond these magnitudes no fixed spelling reads (a 309-digit number, 0.000... with the digits cut
 * off): the shortest text keeps its exponent there. No value a rule measures comes near them. */
#define FIXED_MAX 1e18
#define FIXED_MIN 1e-12

/* The shortest text that reads back as the same double ("1", "0.0001"), in fixed notation where
 * that one would take an exponent (output/format.h) and a fixed spelling reads; n/a where there is
 * no number (the details then say why: has_no_number). */
static void text_double(FILE *out, double d)
{
    char text[DFS_PY_REPR_MAX > 64 ? DFS_PY_REPR_MAX : 64];
    if (!isfinite(d)) {
        fputs(DFS_FMT_NA, out);
        return;
    }
    dfs_shortest_g_finite(d, text);
    double a = fabs(d);
    if (strchr(text, 'e') && d == floor(d) && a < FIXED_MAX)
        dfs_fmt_fixed(text, sizeof text, d, 0); /* 30, 1,600,000,000,000,000 */
    else if (strchr(text, 'e') && a >= FIXED_MIN && a < FIXED_MAX)
        dfs_fmt_plain(text, sizeof text, d);
    fputs(text, out);
}

static bool has_no_number(const dfs_rv *v)
{
    if (v->type == DFS_RV_NUM)
        return !isfinite(v->as.d);
    for (const dfs_rv *c = v->head; c; c = c->next)
        if (has_no_number(c))
            return true;
    return false;
}

static void text_scalar(FILE *out, const dfs_rv *v)
{
    switch (v->type) {
    case DFS_RV_NULL: fputs("None", out); break;
    case DFS_RV_BOOL: fputs(v->as.b ? "True" : "False", out); break;
    case DFS_RV_INT: fprintf(out, "%lld", (long long)v->as.i); break;
    case DFS_RV_NUM: text_double(out, v->as.d); break;
    case DFS_RV_STR: dfs_term_puts(out, v->as.s); break; /* details quote the trace */
    default: fputs(v->type == DFS_RV_OBJ ? "{...}" : "[...]", out); break;
    }
}

static bool is_scalar(const dfs_rv *v)
{
    return v->type != DFS_RV_OBJ && v->type != DFS_RV_ARR;
}

/* An object of scalars on one line: "{a: 1, b: 2}". */
static void text_inline(FILE *out, const dfs_rv *v)
{
    fputc(v->type == DFS_RV_OBJ ? '{' : '[', out);
    size_t k = 0;
    for (const dfs_rv *c = v->head; c; c = c->next, k++) {
        if (k == LIST_ITEMS && v->type == DFS_RV_ARR) {
            fprintf(out, ", ... (%zu values)", v->n);
            break;
        }
        fputs(k ? ", " : "", out);
        if (c->key) {
            dfs_term_puts(out, c->key);
            fputs(": ", out);
        }
        if (is_scalar(c))
            text_scalar(out, c);
        else
            text_inline(out, c);
    }
    fputc(v->type == DFS_RV_OBJ ? '}' : ']', out);
}

static bool all_scalars(const dfs_rv *v)
{
    for (const dfs_rv *c = v->head; c; c = c->next)
        if (!is_scalar(c))
            return false;
    return true;
}

static void text_tree(FILE *out, const dfs_rv *v, int depth)
{
    size_t k = 0;
    for (const dfs_rv *c = v->head; c; c = c->next, k++) {
        if (v->type == DFS_RV_ARR && k == LIST_ITEMS) {
            fprintf(out, "%*s... %zu more\n", 2 * depth, "", v->n - k);
            break;
        }
        fprintf(out, "%*s", 2 * depth, "");
        dfs_term_puts(out, c->key ? c->key : "-");
        fputs(c->key ? ":" : "", out);
        if (is_scalar(c)) {
            fputc(' ', out);
            text_scalar(out, c);
            fputc('\n', out);
        } else if (all_scalars(c) || depth >= MAX_DEPTH) {
            fputc(' ', out);
            text_inline(out, c);
            fputc('\n', out);
        } else {
            fputc('\n', out);
            text_tree(out, c, depth + 1);
        }
    }
}

static void text_header(FILE *out, const dfs_rules_result *r)
{
    fprintf(out, "mode: %s%s\n", mode_name(r->mode),
            r->mode == DFS_RULES_COMPAT ? " (the reference's behaviour, quirks included)"
                                        : " (reference bugs fixed; --compat smdebug for its numbers)");
    char a[64], b[64];
    fprintf(out, "data: %llu system samples, %llu framework events (%llu steps)",
            (unsigned long long)r->samples, (unsigned long long)r->framework_events,
            (unsigned long long)r->steps);
    if (r->have_time)
        fprintf(out, ", %s .. %s", dfs_fmt_time(a, sizeof a, r->first_ns), dfs_fmt_time(b, sizeof b, r->last_ns));
    fputc('\n', out);
    for (size_t i = 0; i < r->nnotes; i++)
        fprintf(out, "note: %s\n", r->notes[i]);
}

void dfs_rules_write_text(FILE *out, const dfs_rules_result *r)
{
    text_header(out, r);
    fprintf(out, "\n%-22s %-9s %9s %10s %10s  %s\n", "rule", "evaluated", "triggered", "violations",
            "datapoints", "note");
    for (size_t i = 0; i < r->nrules; i++) {
        const dfs_rule_result *x = &r->rules[i];
        fprintf(out, "%-22s %-9s %9llu %10llu %10llu  ", x->name, x->evaluated ? "yes" : "no",
                (unsigned long long)x->triggered, (unsigned long long)x->violations,
                (unsigned long long)x->datapoints);
        dfs_term_puts(out, x->reason ? x->reason : x->summary ? x->summary : "");
        if (x->enable)
            fprintf(out, " (%s runs it)", x->enable);
        fputc('\n', out);
    }
    for (size_t i = 0; i < r->nrules; i++) {
        const dfs_rule_result *x = &r->rules[i];
        fprintf(out, "\n%s: %s\n", x->name,
                !x->evaluated ? "not evaluated" : x->triggered ? "TRIGGERED" : "not triggered");
        if (x->reason) {
            fputs("  reason: ", out);
            dfs_term_puts(out, x->reason);
            fputc('\n', out);
        }
        if (x->enable)
            fprintf(out, "  to run it on these inputs: %s\n", x->enable);
        if (x->triggered && x->recommendation)
            fprintf(out, "  recommendation: %s\n", x->recommendation);
        if (x->summary && *x->summary) {
            fputs("  ", out);
            dfs_term_puts(out, x->summary);
            fputc('\n', out);
        }
        fputs("  parameters: ", out);
        for (const char *p = x->parameters; *p; p++)
            fputs(*p == '\n' ? ", " : (char[2]){*p, 0}, out);
        fputs(*x->parameters ? "\n" : "(none)\n", out);
        if (x->details && x->details->n) {
            fputs("  details:\n", out);
            text_tree(out, x->details, 2);
            if (has_no_number(x->details))
                fputs("  (n/a: no value: a statistic over no data points, or a division by zero)\n", out);
        }
    }
}

void dfs_rules_write_list(FILE *out)
{
    for (int r = 0; r < DFS_RULE__COUNT; r++) {
        const dfs_rule_param_info *p;
        size_t n = dfs_rule_params((dfs_rule_id)r, &p);
        fprintf(out, "%s\n", dfs_rule_name((dfs_rule_id)r));
        for (size_t i = 0; i < n; i++) {
            char def[32];
            if (p[i].kind == DFS_RP_TEXT)
                snprintf(def, sizeof def, "None");
            else
                snprintf(def, sizeof def, "%g", p[i].def);
            fprintf(out, "  %-26s %-10s %s\n", p[i].name, def, p[i].help);
        }
    }
}
