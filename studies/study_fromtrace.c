/* study_fromtrace.c - calibrate and validate from traces (study_fromtrace.h): the two commands -
 * read the traces, fit (or load) the profile, write it and read it back, predict and compare. */
#include "study_fromtrace.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"

/* 0, or -1 with err when path is one of the traces (an output never replaces an input). */
static int not_an_input(const rs_tset_t *ts, const char *what, const char *path, rs_err_t *err) {
    struct stat a, b;
    for (int i = 0; path && i < rs_tset_count(ts); i++)
        if (stat(path, &a) == 0 && stat(rs_tset_path(ts, i), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s is the input %s: an output never replaces an input", what, path,
                           rs_tset_path(ts, i));
    return 0;
}

/* The fitted profile: its name (given, else the traced GPU's, else "from-trace") and note. */
static void fitted_profile(const rs_tset_t *ts, const rs_tfit_t *f, const char *name, rs_hw_t *hw) {
    char nm[RS_NAME_LEN], note[256], bl[96] = "";
    const char *gpu = rs_trace_get_meta(rs_tset_trace(ts, 0), "import.gpu");
    snprintf(nm, sizeof nm, "%s", name && name[0] ? name : gpu && gpu[0] ? gpu : "from-trace");
    for (int i = 0; i < f->calib.n_blocks; i++) {
        const size_t u = strlen(bl);
        snprintf(bl + u, sizeof bl - u, "%s%lld", i ? "," : "", (long long)f->calib.blocks[i]);
    }
    snprintf(note, sizeof note, "ringsim calibrate --from-trace: %d trace(s), first %.60s, B = %.48s, N = %lld; memory "
             "figures: this host's", rs_tset_count(ts), rs_tset_path(ts, 0), bl, (long long)f->shape.n_ranks);
    rs_tfit_to_hw(f, nm, note, hw);
}

/* Write hw to path and read it back. Returns 0 or -1 with err. */
static int write_profile(const rs_hw_t *hw, const char *path, rs_err_t *err) {
    rs_hw_t back;
    if (rs_hw_write_json(hw, path, hw->calibration_note, err) != 0) return -1;
    rs_err_t e = {0};
    char pending[4200]; /* outputs are committed at the end of the run (output.h): read it where it is now */
    if (rs_hw_load(rs_out_read_path(path, pending, sizeof pending), &back, &e) != 0)
        return rs_errc(err, e.code, "the profile written does not load back: %s", e.msg);
    return 0;
}

int rs_study_calibrate_from_trace(const rs_tfit_opts_t *o, const char *out_path, const char *name, FILE *out, rs_err_t *err) {
    rs_tset_t *ts = rs_tset_load(o, err);
    rs_tfit_t *f = ts ? malloc(sizeof *f) : NULL;
    int rc = 0;
    if (!ts || !f || not_an_input(ts, "--out", out_path, err) != 0 || rs_tfit_run(ts, o, f, err) != 0) {
        if (ts && !f) rs_errf(err, "out of memory");
        rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    rs_hw_t hw;
    if (rc == 0) {
        fprintf(out, "# ringsim calibrate --from-trace\n");
        rs_tfit_print(f, ts, out);
        fitted_profile(ts, f, name, &hw);
        if (write_profile(&hw, out_path, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
        else
            fprintf(out, "# profile %s (%s): F_peak(%s) %.6g TFLOP/s, %d efficiency points, W %.6g GB/s, L %.6g s, %d kernel curves\n",
                    out_path, hw.name, rs_dtype_name(f->dtype), hw.flops_per_s[f->dtype] * 1e-12, hw.cal.n_eff,
                    hw.intra.bw_bytes_per_s * 1e-9, hw.intra.latency_s, hw.kernels.n_curves);
        if (rc == 0 && hw.kernels.n_curves)
            fprintf(out, "# the presets' merges run at the profile's memory bandwidth, %.4g GB/s (a trace does not measure it: "
                         "set kernels.merge_bw_bytes_per_s to the traced device's)\n", hw.mem_bw_bytes_per_s * 1e-9);
    }
    free(f);
    rs_tset_free(ts);
    return rc;
}

/* The profile validate predicts with (into hw; the activations' dtype into dtype): `calibrated`
 * loaded, else fitted from the traces (printed). Returns 0 or -1 with err (bad input). */
static int validate_profile(const rs_tset_t *ts, const rs_tval_in_t *in, rs_hw_t *hw, rs_dtype_t *dtype, rs_err_t *err) {
    *dtype = rs_tfit_dtype(in->fit, rs_tset_problem(ts, 0));
    if (in->calibrated) {
        if (rs_hw_load(in->calibrated, hw, err) == 0) return 0;
        rs_err_option(err, "--calibrated", in->calibrated);
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    rs_tfit_t *f = malloc(sizeof *f);
    if (!f) return rs_errc(err, RS_ERR_BAD_INPUT, "out of memory");
    int rc = rs_tfit_run(ts, in->fit, f, err);
    if (rc == 0) {
        fprintf(in->out, "# ringsim validate --from-trace: the profile fitted from the traces (ringsim calibrate --from-trace)\n");
        rs_tfit_print(f, ts, in->out);
        fitted_profile(ts, f, NULL, hw);
        fputc('\n', in->out);
    }
    free(f);
    return rc == 0 ? 0 : rs_err_mark(err, RS_ERR_BAD_INPUT);
}

int rs_study_validate_from_trace(const rs_tval_in_t *in, rs_err_t *err) {
    rs_tset_t *ts = rs_tset_load(in->fit, err);
    rs_hw_t hw;
    rs_dtype_t dtype = RS_DTYPE_BF16; /* validate_profile's */
    int rc = 0;
    if (!ts || not_an_input(ts, "--save-profile", in->save_profile, err) != 0 || validate_profile(ts, in, &hw, &dtype, err) != 0)
        rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
    rs_tval_row_t *rows = rc == 0 ? calloc((size_t)rs_tset_count(ts), sizeof *rows) : NULL;
    if (rc == 0 && !rows) rc = rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    if (rc == 0) rc = rs_tval_run(ts, &hw, dtype, in->out_dir, rows, err);
    if (rc == 0 && in->save_profile && write_profile(&hw, in->save_profile, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
    if (rc == 0) {
        fprintf(in->out, "# profile %s: %s\n", in->calibrated ? in->calibrated : "fitted from the traces", hw.name);
        rs_tval_print(ts, rows, in->out);
        if (in->out_dir) fprintf(in->out, "# predicted traces, per-step CSVs and pred-vs-meas figures in %s\n", in->out_dir);
    }
    for (int i = 0; rows && i < rs_tset_count(ts); i++) rs_compare_free(&rows[i].cmp);
    free(rows);
    rs_tset_free(ts);
    return rc;
}
