/* fromtrace_fixtures.h - traces of a KNOWN profile for the tests of the --from-trace studies
 * (fromtrace_fixtures.c).
 *
 * The walk's traces of a zigzag causal ring (N = 4, 32/8 heads, d 128, bf16) at B = 1024, 2048, 4096
 * (forward) and 2048 (backward) on a machine of peak F with an efficiency curve, alpha-beta (L, W)
 * and a host cost per received transfer, exported to Kineto JSON (rs_import_export_kineto) and
 * imported back (rs_import_read), as a user's run would come in: the fit must recover them.
 *
 * The kernel traces: a machine whose attention kernel has KNOWN curves by call shape and mask
 * (forward and backward at B = 1024, 2048, 4096, run by the flash-attn preset: one call per step over
 * its rows; merges at 1e30 B/s and no launch cost, so a step's compute is its call).
 */
#ifndef RS_FROMTRACE_FIXTURES_H
#define RS_FROMTRACE_FIXTURES_H

#include <stdint.h>

#include "machine.h"
#include "test_main.h"
#include "study_fromtrace.h"

#define F_PEAK 400e12
#define W_BPS 150e9
#define L_S 4e-6
#define HOST_S 2e-6
#define N_TRACES 4
#define N_KTRACES 6

extern const int64_t blocks[N_TRACES];     /* B of trace i */
extern const rs_pass_t passes[N_TRACES];   /* its pass */
extern const double effs[3];               /* the efficiency at B = 1024, 2048, 4096 */
extern char paths[N_TRACES][600];          /* the traces' CSVs (make_trace) */
extern const char *path_ptr[N_TRACES];
extern char kpaths[N_KTRACES][600];        /* the kernel traces' (make_kernel_traces) */
extern const char *kpath_ptr[N_KTRACES];

/* The known efficiency at B. */
double known_eff(int64_t B);
/* Trace i of the known profile into paths[i] (in the scratch directory). Returns 0 or -1. */
int make_trace(int i);
/* The kernel traces into kpaths. Returns 0 or -1. */
int make_kernel_traces(void);

/* One known curve of the kernel. */
typedef struct {
    rs_pass_t pass;
    rs_kmask_t mask;
    int n;
    rs_kpoint_t pt[6];
} known_curve_t;
extern const known_curve_t known_curves[4];
/* t's curves are the known kernel's, point by point within 1% (asserted). */
void expect_known_curves(const rs_kernel_table_t *t);

/* A test program's setup (rs_test_program_t, with a scratch directory): the known traces made in the
 * scratch directory. Returns 0, or 1 when one cannot be made. */
int ft_setup(void);

/* The fit's options for the known traces first..first + n - 1. */
rs_tfit_opts_t fit_opts(int first, int n);
/* o's traces loaded and fitted into f (asserted, fatally); the set, for the caller to free. */
rs_tset_t *fit_traces(const rs_tfit_opts_t *o, rs_tfit_t *f);
/* fit_traces, and the fit's profile (named "fitted") into hw. */
rs_tset_t *fit_profile(const rs_tfit_opts_t *o, rs_tfit_t *f, rs_hw_t *hw);

#endif /* RS_FROMTRACE_FIXTURES_H */
