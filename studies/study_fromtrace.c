/* study_fromtrace.c - calibrate and validate from traces (study_fromtrace.h): the two commands -
 * read the traces, fit (or load) the profile, write it and read it back, predict and compare. */
#include "study_fromtrace.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "plausible.h"

/* 0, or -1 with err when path is one of the traces (an output never replaces an input). */
static int not_an_input(const rs_tset_t *ts, const char *what, const char *path, rs_err_t *err) {
    struct stat a, b;
    for (int i = 0; path && i < rs_tset_count(ts); i++)
        if (stat(path, &a) == 0 && stat(rs_tset_path(ts, i), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s is the input %s: an output never replaces an input", what, path,
                           rs_tset_path(ts, i));
    return 0;
}

/* Whose fit: the profile name given (NULL or "": none), the command (for warnings), --allow-implausible,
 * and whether the profile is written (its memory figures then must be the device's). */
typedef struct {
    const char *name;
    const char *cmd;
    bool allow;
    bool written;
} rs_fit_as_t;

/* The device the traces ran on: --name when it names a device preset, else the traced GPU's name
 * (import.gpu), else the profile a ringsim trace was made with (hw); NULL when none. */
static const char *traced_device(const rs_tset_t *ts, const char *name) {
    const rs_trace_t *t = rs_tset_trace(ts, 0);
    const char *gpu = rs_trace_get_meta(t, "import.gpu"), *made = rs_trace_get_meta(t, "hw");
    return name && name[0] && rs_device_preset(name) ? name : gpu && gpu[0] ? gpu : made && made[0] ? made : NULL;
}

/* The fitted profile: its name (given, else the traced device's, else "from-trace"), note and memory
 * figures (the traced device's preset's: a trace does not measure them, and this host's are not the
 * device's; with no preset, refused when the profile is written), every figure checked against that device (plausible.h; the warnings of
 * --allow-implausible on stderr as "ringsim CMD: warning: ..."). Returns 0, or -1 with err (bad
 * input) naming the figure and its bound. */
static int fitted_profile(const rs_tset_t *ts, const rs_tfit_t *f, const rs_fit_as_t *as, rs_hw_t *hw, rs_err_t *err) {
    char nm[RS_NAME_LEN], note[512], bl[96] = "", mem[160], warn[1024] = "";
    const char *dev_name = traced_device(ts, as->name), *preset = rs_device_preset(dev_name);
    snprintf(nm, sizeof nm, "%s", as->name && as->name[0] ? as->name : dev_name ? dev_name : "from-trace");
    for (int i = 0; i < f->calib.n_blocks; i++) {
        const size_t u = strlen(bl);
        snprintf(bl + u, sizeof bl - u, "%s%lld", i ? "," : "", (long long)f->calib.blocks[i]);
    }
    rs_hw_t dev;
    const bool known = preset && rs_hw_load(preset, &dev, NULL) == 0;
    if (known) snprintf(mem, sizeof mem, "%s's datasheet (device preset %s)", dev.name, preset);
    else snprintf(mem, sizeof mem, "this host's (taken as given: --allow-implausible)");
    snprintf(note, sizeof note, "ringsim calibrate --from-trace: %d trace(s), first %.60s, B = %.48s, N = %lld; memory "
             "figures: %s", rs_tset_count(ts), rs_tset_path(ts, 0), bl, (long long)f->shape.n_ranks, mem);
    rs_tfit_to_hw(f, nm, note, hw);
    const rs_plausible_t pl = {as->allow, warn, sizeof warn};
    char origin[600];
    snprintf(origin, sizeof origin, "the fit of %s", rs_tset_path(ts, 0));
    if (known) {
        hw->mem_bytes = dev.mem_bytes;
        hw->mem_bw_bytes_per_s = dev.mem_bw_bytes_per_s;
    } else if (as->written) {
        char why[512];
        if (dev_name) snprintf(why, sizeof why, "the traced device '%s' has no device preset", dev_name);
        else snprintf(why, sizeof why, "the traces name no device (no import.gpu, no hw in the header)");
        snprintf(why + strlen(why), sizeof why - strlen(why), ": its memory figures would be this host's, not the device's "
                 "(--name PRESET names the device: ringsim profiles)");
        if (rs_plausible(&pl, false, origin, why, err) != 0) return -1;
    }
    if (rs_hw_plausible(hw, origin, known ? &dev : NULL, &pl, err) != 0) {
        const size_t u = strlen(err->msg);
        snprintf(err->msg + u, sizeof err->msg - u, "; are the traces' problem options (-S, --heads, ...) the run's?");
        return -1;
    }
    if (warn[0]) fprintf(stderr, "ringsim %s: warning: %s\n", as->cmd, warn);
    return 0;
}

/* Write hw, fitted from the traces of o, to path and read it back. A figure the fit put out of its
 * range is said at path (never at the run's temporary file) and blamed on the traces. Returns 0 or -1
 * with err. */
static int write_profile(const rs_hw_t *hw, const rs_tfit_opts_t *o, const char *path, rs_err_t *err) {
    rs_hw_t back;
    if (rs_hw_write_json(hw, path, hw->calibration_note, err) != 0) return rs_err_mark(err, RS_ERR_RUNTIME);
    rs_err_t e = {0};
    char pending[4200]; /* outputs are committed at the end of the run (output.h): read it where it is now, named as it will be */
    if (rs_hw_load_as(rs_out_read_path(path, pending, sizeof pending), path, &back, &e) == 0) return 0;
    return rs_errc(err, e.code == RS_ERR_BAD_INPUT ? RS_ERR_BAD_INPUT : RS_ERR_RUNTIME,
                   "the profile fitted from %s%s is not a valid profile: %s: the traces' times do not fit the model (nothing written)",
                   o->paths[0], o->n_paths > 1 ? " and the other traces" : "", e.msg);
}

int rs_study_calibrate_from_trace(const rs_tfit_opts_t *o, const char *out_path, const char *name, FILE *out, rs_err_t *err) {
    rs_tset_t *ts = rs_tset_load(o, err);
    rs_tfit_t *f = ts ? malloc(sizeof *f) : NULL;
    int rc = 0;
    if (!ts || !f || not_an_input(ts, "--out", out_path, err) != 0 || rs_tfit_run(ts, o, f, err) != 0) {
        if (ts && !f) rs_errf(err, "out of memory");
        rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    rs_hw_t hw; /* refused: nothing printed, nothing written */
    if (rc == 0 && fitted_profile(ts, f, &(rs_fit_as_t){name, "calibrate", o->allow_implausible, true}, &hw, err) != 0)
        rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (rc == 0) {
        fprintf(out, "# ringsim calibrate --from-trace\n");
        rs_tfit_print(f, ts, out);
        if (write_profile(&hw, o, out_path, err) != 0) rc = -1; /* its code: a fit out of range is the traces' (bad input) */
        else
            fprintf(out, "# profile %s (%s): F_peak(%s) %.6g TFLOP/s, %d efficiency points, W %.6g GB/s, L %.6g s, %d kernel curves\n",
                    out_path, hw.name, rs_dtype_name(f->dtype), hw.flops_per_s[f->dtype] * 1e-12, hw.cal.n_eff,
                    hw.intra.bw_bytes_per_s * 1e-9, hw.intra.latency_s, hw.kernels.n_curves);
        if (rc == 0 && hw.kernels.n_curves)
            fprintf(out, "# the presets' merges run at the profile's memory bandwidth, %.4g GB/s (%s; a trace does not measure "
                         "it: set kernels.merge_bw_bytes_per_s to a measured one)\n", hw.mem_bw_bytes_per_s * 1e-9,
                    strstr(hw.calibration_note, "datasheet") ? "the device's datasheet figure" : "this host's figure");
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
        rs_hw_t dev; /* its figures against the device its name names */
        char warn[1024] = "";
        const rs_plausible_t pl = {in->fit->allow_implausible, warn, sizeof warn};
        if (rs_hw_load(in->calibrated, hw, err) != 0) rs_err_option(err, "--calibrated", in->calibrated);
        else if (rs_hw_plausible(hw, in->calibrated, rs_hw_device(hw, &dev) ? &dev : NULL, &pl, err) == 0) {
            if (warn[0]) fprintf(stderr, "ringsim validate: warning: %s\n", warn);
            return 0;
        }
        return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    rs_tfit_t *f = malloc(sizeof *f);
    if (!f) return rs_errc(err, RS_ERR_BAD_INPUT, "out of memory");
    int rc = rs_tfit_run(ts, in->fit, f, err);
    if (rc == 0) rc = fitted_profile(ts, f, &(rs_fit_as_t){NULL, "validate", in->fit->allow_implausible, in->save_profile != NULL}, hw, err);
    if (rc == 0) { /* refused: nothing printed */
        fprintf(in->out, "# ringsim validate --from-trace: the profile fitted from the traces (ringsim calibrate --from-trace)\n");
        rs_tfit_print(f, ts, in->out);
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
    if (rc == 0 && in->save_profile && write_profile(&hw, in->fit, in->save_profile, err) != 0) rc = -1;
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
