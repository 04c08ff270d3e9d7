/* gen_model.h - the simulated DLIO training job behind the generated traces.
 *
 * A job is planned once for all ranks (dataset size, epochs, steps, start time) from the options
 * and the seed, then each rank is simulated on its own clock and random stream, writing its
 * records through a gen_fmt as the calls end. */
#ifndef DFS_GEN_MODEL_H
#define DFS_GEN_MODEL_H
#include <stdbool.h>
#include <stdint.h>

#include "gen/gen.h"
#include "gen/gen_fmt.h"

/* xoshiro256** seeded through splitmix64: small, fast and identical on every platform. */
typedef struct gen_rng {
    uint64_t s[4];
} gen_rng;

void gen_rng_seed(gen_rng *r, uint64_t seed);
uint64_t gen_rng_next(gen_rng *r);
/* Uniform in [lo, hi] (hi >= lo). */
int64_t gen_rng_range(gen_rng *r, int64_t lo, int64_t hi);

typedef struct gen_profile gen_profile;

typedef struct gen_job {
    dfs_gen_format format;
    const gen_profile *prof;
    unsigned ranks;
    uint64_t seed;
    uint64_t target_bytes;   /* per file; 0 = count records instead */
    uint64_t target_records; /* per file when target_bytes is 0 */
    uint64_t files;          /* dataset files, one sample each */
    uint32_t steps_per_epoch;
    uint32_t epochs;         /* planned; the budget decides where the run really stops */
    uint32_t checkpoint_every;
    int64_t t0;              /* job start, µs since the Unix epoch */
    int64_t pid0;            /* pid of rank 0 */
    uint64_t perm_a, perm_b; /* per-job sample shuffle */
    bool gzip;
    uint64_t member_bytes;   /* v2 gzip member size, reported in the end record */
} gen_job;

void gen_job_plan(gen_job *job, const dfs_gen_options *o);
/* Simulates one rank, writing its whole file through `f` (framing included). Returns an errno
 * value (ENOMEM) or 0; write errors are left in the dfs_textout. */
int gen_rank_run(const gen_job *job, unsigned rank, gen_fmt *f);
/* Host name of a rank (8 ranks per node, like the reference DLIO run). */
void gen_rank_host(const gen_job *job, unsigned rank, char *buf, size_t cap);
#endif
