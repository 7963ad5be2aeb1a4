/* opt_values.h - option values with a syntax of their own, read by the CUSTOM rows of several tables
 * (opt_values.c): increasing size lists ("16,32,1K": --blocks, --nodes, --seq of plan --inference)
 * and INDEX:FACTOR pairs (--straggler RANK:F, --degrade HOP:F), and the memory model's --runtime and
 * --loss-chunk (memory, plan). Messages name the option and quote its whole value. */
#ifndef RS_CLI_OPT_VALUES_H
#define RS_CLI_OPT_VALUES_H

#include <stdint.h>

#include "memory.h"
#include "schedule.h"
#include "util.h"

/* A size list option: its name and what it accepts. */
typedef struct {
    const char *name;    /* "--blocks" */
    int64_t min, max;    /* each size in [min, max] (K/M/G suffixes) */
    int min_n, max_n;    /* how many sizes */
} rs_cli_sizes_t;

/* The block sizes B a measuring command takes (--blocks of validate and calibrate): one range. */
#define RS_CLI_BLOCK_RANGE 2, ((int64_t)1 << 16)

/* "16,32,1K": increasing sizes as l accepts them, into out and *n_out. Returns 0 or -1 with err
 * "--blocks 64: give at least 2 sizes", "--nodes 4,2: sizes must increase", "--seq 1,x: 'x' is not a
 * size in [1, 4294967296] (K/M/G suffixes)", "at most 8 sizes", "empty list". */
int rs_cli_parse_sizes(const rs_cli_sizes_t *l, const char *arg, int64_t *out, int *n_out, rs_err_t *err);

/* The pairs of a repeatable INDEX:FACTOR option so far, and where the next goes. */
typedef struct {
    const char *flag;    /* "--straggler" */
    const char *what;    /* what the index counts: "rank" or "hop" */
    int64_t *index;      /* the indices given; the new one goes to index[n] */
    double *factor;      /* their factors; the new one to factor[n] */
    int n;               /* pairs given so far */
} rs_cli_pairs_t;

/* "3:1.5": an index >= 0 and a factor in RS_RANGE_FACTOR, into l->index[l->n] and l->factor[l->n]
 * (the caller counts it); an index given before is refused (factors do not multiply). Returns 0 or
 * -1 with err "--straggler 3: expected RANK:FACTOR, one colon, e.g. 3:1.5". */
int rs_cli_parse_pair(const rs_cli_pairs_t *l, const char *arg, rs_err_t *err);

/* --layout: one layout, a comma list of them (each once), or "all", into out (RS_LAYOUT_COUNT slots)
 * and *n. Returns 0 or -1 with err "--layout X: expected contiguous, striped, zigzag, a comma list of
 * them, or all" (also for an empty item) or "--layout zigzag,zigzag: zigzag is given twice (each
 * layout once)". */
int rs_cli_parse_layouts(const char *arg, rs_layout_t *out, int *n, rs_err_t *err);

/* --runtime: pytorch, jax-gpu, jax-tpu or none into *out. Returns 0 or -1 with err "--runtime X:
 * expected pytorch, jax-gpu, jax-tpu or none". */
int rs_cli_parse_runtime(const char *arg, rs_runtime_t *out, rs_err_t *err);
/* --loss-chunk: a size in [1, 2^30] tokens, or "none" (0: every local token's logits at once) into
 * *tokens. Returns 0 or -1 with err (rs_parse_size's message). */
int rs_cli_parse_loss_chunk(const char *arg, int64_t *tokens, rs_err_t *err);

#endif /* RS_CLI_OPT_VALUES_H */
