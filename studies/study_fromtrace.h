/* study_fromtrace.h - calibrate and validate from traces of a run, not from measurements of this
 * machine: `ringsim calibrate --from-trace FILE...` and `ringsim validate --from-trace FILE...`
 * (study_fromtrace.c; docs/import.md section 9). The traces are read and checked by
 * study_fromtrace_traces.h, fitted by study_fromtrace_fit.h, predicted and compared by
 * study_fromtrace_validate.h.
 */
#ifndef RS_STUDY_FROMTRACE_H
#define RS_STUDY_FROMTRACE_H

#include <stdio.h>

#include "study_fromtrace_fit.h"
#include "study_fromtrace_traces.h"
#include "study_fromtrace_validate.h"

/* What `ringsim validate --from-trace` reads and writes. */
typedef struct {
    const rs_tfit_opts_t *fit;   /* the traces, and the problem options for what a header lacks */
    const char *calibrated;      /* the profile to predict with (NULL: fitted from the traces) */
    const char *save_profile;    /* write the profile used (NULL: no) */
    const char *out_dir;         /* the files of rs_tval_run (NULL: none) */
    FILE *out;                   /* the tables */
} rs_tval_in_t;

/* The commands (cli/cmd_calibrate.c, cmd_validate.c): read the traces; calibrate: fit and write the
 * profile to out_path (atomically, read back; named name, "": the traced GPU's); validate: fit (or
 * load `calibrated`), predict, compare, print, and with out_dir the files above (and save_profile:
 * the profile used). Print to out. Return 0, or -1 with err (one line naming the file):
 * RS_ERR_BAD_INPUT (a refused trace, option or profile; out of memory before the fit), RS_ERR_RUNTIME
 * (writing). */
int rs_study_calibrate_from_trace(const rs_tfit_opts_t *o, const char *out_path, const char *name, FILE *out, rs_err_t *err);
int rs_study_validate_from_trace(const rs_tval_in_t *in, rs_err_t *err);

#endif /* RS_STUDY_FROMTRACE_H */
