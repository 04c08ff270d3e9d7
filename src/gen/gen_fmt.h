/* gen_fmt.h - writes generator records in the text layout of one trace generation.
 *
 * The workload model describes a record once (gen_rec); the formatter decides the key order, how
 * numbers are written (strings in 2023), how hashes look (u64, 16-bit, hex string) or whether
 * names are written in clear, and the framing of the file. Strings handed to it must not need
 * JSON escaping (the model only produces plain ASCII names and paths). */
#ifndef DFS_GEN_FMT_H
#define DFS_GEN_FMT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/gen.h"
#include "output/textout.h"

typedef enum gen_argk {
    GA_INT,    /* a JSON integer everywhere */
    GA_STR,    /* a JSON string everywhere */
    GA_DLIO,   /* DLIO's numeric args (epoch, step, image_idx, ...): strings before v2 */
    GA_IONUM,  /* byte counts of read/write: strings in the 2023 generation only */
    GA_HASH,   /* a hash reference (cmd_hash, exec_hash): u64 / 16-bit / hex by generation */
    GA_TENTHS, /* a decimal with one fractional digit: i is the value times ten */
    GA_RAW,    /* s is JSON text written as is (nested objects, arrays) */
} gen_argk;

typedef struct gen_arg {
    const char *key;
    gen_argk kind;
    int64_t i;     /* numbers, and the hash for GA_HASH */
    const char *s; /* GA_STR, GA_RAW */
} gen_arg;

/* A complete event (ph X / 1). */
typedef struct gen_rec {
    const char *name;
    const char *cat;
    uint8_t type;       /* v2 instrumentation type */
    uint64_t id;
    int64_t pid, tid, ts, dur;
    int64_t p_idx;      /* parent id, -1 = none */
    int32_t level;      /* call depth; 0 = not written */
    const char *fname;  /* file argument or NULL: hashed as fhash or written in clear */
    size_t fname_len;
    uint64_t fhash;
    const gen_arg *args;
    unsigned nargs;
} gen_rec;

/* A metadata record (ph M / 4): FH, HH, SH, thread_name, process_name, PR. */
typedef struct gen_meta {
    const char *name;
    uint64_t id;            /* v1 only */
    int64_t pid, tid;
    const char *str;        /* args.name */
    size_t str_len;
    bool value_is_hash;
    uint64_t hash;          /* args.value when value_is_hash */
    const char *value_json; /* args.value as raw JSON text otherwise */
} gen_meta;

typedef struct gen_fmt {
    dfs_gen_format format;
    dfs_textout *out;
    const char *host;      /* written in clear by 2023 */
    uint64_t hhash;
    uint64_t records;
    bool first;            /* no record written yet (2023 indent, Chrome separators) */
} gen_fmt;

void gen_fmt_init(gen_fmt *f, dfs_gen_format format, dfs_textout *out, const char *host);
/* The hash DFTracer would write for a string in this generation (u64, or 16 bits for v1-h16). */
uint64_t gen_fmt_hash(const gen_fmt *f, const char *s, size_t n);
/* True when the generation references names through FH/HH/SH records. */
bool gen_fmt_uses_hashes(const gen_fmt *f);

void gen_fmt_open(gen_fmt *f);   /* leading framing */
void gen_fmt_close(gen_fmt *f);  /* trailing framing */
void gen_fmt_complete(gen_fmt *f, const gen_rec *r);
void gen_fmt_meta(gen_fmt *f, const gen_meta *m);
/* v2 aggregated record (ph 3): dft_cnt calls of one name in the interval starting at ts. */
void gen_fmt_aggregated(gen_fmt *f, const char *name, const char *cat, uint8_t type, int64_t ts,
                        int64_t pid, int64_t tid, uint64_t count, int64_t dmin, int64_t dmax,
                        int64_t dsum);
/* Counter sample (v2 ph 2, Chrome C). */
void gen_fmt_counter(gen_fmt *f, const char *name, const char *cat, uint8_t type, int64_t ts,
                     int64_t pid, int64_t tid, const gen_arg *args, unsigned nargs);
/* Chrome begin/end pair halves (ph B / E). */
void gen_fmt_edge(gen_fmt *f, char ph, const char *name, const char *cat, int64_t ts, int64_t pid,
                  int64_t tid);
#endif
