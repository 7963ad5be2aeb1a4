/* import_raw.h - private to traces/import*.c: the raw store, what a trace reader hands to the
 * assembly step (defined in import_raw.c).
 *
 * A reader (import_kineto.c, import_nsys.c; import_readers.h) appends "raw ranks": the attention and
 * SendRecv kernels of one process (GPU execution interval, host launch time, launch order, stream,
 * interned name) and the step ranges (NVTX / record_function ranges whose name matches the step
 * pattern). It keeps nothing else, so memory grows with the kernels that matter, not with the file.
 * import_steps.c assigns the raw kernels to ring steps and import.c turns them into traces (import.h).
 * Times are integer nanoseconds on the file's own clock, already shifted by the file's base (Kineto
 * baseTimeNanoseconds, nsys session start) so ranks align.
 */
#ifndef RS_IMPORT_RAW_H
#define RS_IMPORT_RAW_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "import.h"

#define RS_RAW_NO_TIME INT64_MIN /* launch_ns of a kernel whose launch was not recorded */

typedef struct {
    int64_t start_ns;   /* GPU execution start */
    int64_t end_ns;     /* GPU execution end (>= start_ns) */
    int64_t launch_ns;  /* host launch (runtime API call) time, or RS_RAW_NO_TIME */
    int64_t order;      /* launch order: the CUPTI correlation id, or -1 when unknown */
    int64_t device;     /* CUDA device id */
    int64_t stream;     /* CUDA stream id */
    uint32_t name;      /* index into rs_raw_t names */
    uint8_t role;       /* rs_kernel_role_t */
} rs_raw_kernel_t;

typedef struct {
    int64_t start_ns;   /* range start, host clock (same clock as kernels in these files) */
    int64_t end_ns;     /* range end */
    uint32_t name;      /* index into rs_raw_t names */
    int32_t step;       /* step index parsed from the name */
    int8_t pass_hint;   /* RS_PASS_FORWARD / RS_PASS_BACKWARD from the name, -1 when it says neither */
} rs_raw_range_t;

typedef struct {
    char *file;            /* the file it came from (owned) */
    int64_t proc;          /* process id (nsys) or -1 */
    int64_t rank_key;      /* ring order key: the process's global rank when known, else -1 */
    int64_t device;        /* CUDA device of its kernels (-1 unknown) */
    rs_raw_kernel_t *k;    /* [nk] attention and SendRecv kernels, in file order */
    size_t nk, ck;
    rs_raw_range_t *r;     /* [nr] step ranges */
    size_t nr, cr;
} rs_raw_rank_t;

typedef struct {
    char **names;          /* interned strings (kernel and range names) */
    int16_t *roles;        /* [n_names] kernel role of each name, -1 none (classified once) */
    uint32_t n_names, cap_names;
    uint32_t *hash;        /* open-addressing table of name indices + 1 (0 = empty) */
    uint32_t cap_hash;     /* power of two */
    rs_raw_rank_t *ranks;  /* [n_ranks] */
    size_t n_ranks, cap_ranks;
    rs_kclass_t *kc;       /* kernel classifier (owned) */
    regex_t step_re;       /* step range pattern (REG_EXTENDED | REG_ICASE) */
    char gpu_name[128];    /* first GPU name seen ("" unknown) */
} rs_raw_t;

/* Empty store with the classifier of kernel_regex (extra attention kernels, NULL = none) and the
 * step range pattern step_regex (NULL = RS_IMPORT_STEP_REGEX). 0, or -1 with err naming
 * --kernel-regex or --step-regex (bad pattern, no group around the step number) or OOM; then nothing
 * is left to free. */
int rs_raw_init(rs_raw_t *raw, const char *kernel_regex, const char *step_regex, rs_err_t *err);
/* Free everything raw holds (the names too, unless taken). Can't fail. */
void rs_raw_free(rs_raw_t *raw);
/* Hand the interned names to the caller (*n_names of them; free each, then the array); raw keeps
 * none. Can't fail. */
char **rs_raw_take_names(rs_raw_t *raw, uint32_t *n_names);

/* Intern s[0..len) (kernel names are classified on first sight). Returns the index, or UINT32_MAX
 * on OOM. */
uint32_t rs_raw_intern(rs_raw_t *raw, const char *s, size_t len);
/* Role of interned name i (rs_kernel_role_t), or -1. */
static inline int rs_raw_role(const rs_raw_t *raw, uint32_t i) { return raw->roles[i]; }
/* If name is a step range, fill step and pass_hint and return 1; else 0. */
int rs_raw_step_range(const rs_raw_t *raw, const char *name, int32_t *step, int8_t *pass_hint);

/* New raw rank for file (copied). NULL on OOM. The pointer stays valid until the next call. */
rs_raw_rank_t *rs_raw_add_rank(rs_raw_t *raw, const char *file);
/* Append *x (size bytes) to the growable array (*v, *n, *cap). 0 or -1 on OOM. */
int rs_raw_grow(void **v, size_t *n, size_t *cap, size_t size, const void *x);
/* Append to a rank. 0 or -1 on OOM. */
int rs_raw_add_kernel(rs_raw_rank_t *r, const rs_raw_kernel_t *k);
int rs_raw_add_range(rs_raw_rank_t *r, const rs_raw_range_t *g);

#endif /* RS_IMPORT_RAW_H */
