/* test_study_fromtrace.c - the --from-trace commands (studies/study_fromtrace.c): calibrate writes a
 * profile `ringsim model -p` accepts (with the kernel curves when the traces have them), validate
 * prints its table and writes its files; refused input exits 2 with one line naming the file and no
 * output; in the library, the kind of each failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fromtrace_fixtures.h"
#include "harness.h"
#include "test_main.h"

/* The commands: a profile `ringsim model -p` accepts, validate's table and files. */
RS_TEST(test_cli, "calibrate/validate --from-trace commands: profile, table, files") {
    char args[4096], prof[600];
    snprintf(prof, sizeof prof, "%s", rs_test_path("fit.json"));
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s %s %s", prof, paths[0], paths[1], paths[2], paths[3]);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# alpha-beta fit: L = "));
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(prof, &hw, &err), 0);
    RS_ASSERT_REL(hw.flops_per_s[RS_DTYPE_BF16], F_PEAK * effs[2], 0.01);
    RS_ASSERT_REL(hw.intra.latency_s, L_S, 0.01);
    RS_ASSERT_REL(hw.intra.bw_bytes_per_s, W_BPS, 0.01);
    RS_ASSERT_REL(hw.cal.host_s_per_xfer, HOST_S, 0.01);
    CU_ASSERT_EQUAL(hw.cal.n_eff, 3);
    CU_ASSERT_EQUAL(hw.devices_per_node, 4);
    snprintf(args, sizeof args, "model -p %s -S 8K -N 4 -L zigzag -P forward", prof);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "zigzag"));

    const char *dir = rs_test_fresh_dir("val");
    snprintf(args, sizeof args, "validate --from-trace %s %s %s %s --calibrated %s --trace-dir %s", paths[0], paths[1], paths[2],
             paths[3], prof, dir);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "median / p95; makespan signed"));
    CU_ASSERT_PTR_NULL(strstr(rs_test_out, "nan"));
    char f[1200];
    snprintf(f, sizeof f, "%s/pred-vs-meas3-B2048-backward.png", dir);
    CU_ASSERT(rs_test_file_size(f) > 1000);
    snprintf(f, sizeof f, "%s/cmp0-B1024-forward.csv", dir);
    CU_ASSERT(rs_test_file_size(f) > 0);
    snprintf(f, sizeof f, "%s/pred2-B4096-forward.csv", dir);
    CU_ASSERT(rs_test_file_size(f) > 0);
    /* without --calibrated: fitted from the same traces, the same ~0 errors */
    snprintf(args, sizeof args, "validate --from-trace %s %s --save-profile %s", paths[0], paths[2], rs_test_path("saved.json"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "0.000% / 0.000%"));
    CU_ASSERT(rs_test_file_size(rs_test_path("saved.json")) > 0);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

/* A command that must refuse: exit 2, one line on stderr holding `needle` (the file), no output (the
 * file `output`, when given, not written). */
static void refused(const char *args, const char *needle, const char *output) {
    const int rc = rs_test_ringsim(args);
    if (rc != 2 || !strstr(rs_test_err, needle)) fprintf(stderr, "  '%s': rc %d, stderr '%s'\n", args, rc, rs_test_err);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, needle));
    const char *nl = strchr(rs_test_err, '\n');
    CU_ASSERT(nl && nl[1] == 0);
    if (output) CU_ASSERT_EQUAL(rs_test_file_size(output), -1);
}

/* A copy of src without the lines holding `drop`, or with `from` replaced by `to` in every line. */
static void edited_copy(const char *src, const char *dst, const char *drop, const char *from, const char *to) {
    char *text = rs_test_slurp(src, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    FILE *out = fopen(dst, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (drop && strstr(line, drop)) continue;
        char *at = from ? strstr(line, from) : NULL;
        if (at) fprintf(out, "%.*s%s%s\n", (int)(at - line), line, to, at + strlen(from));
        else fprintf(out, "%s\n", line);
    }
    fclose(out);
    free(text);
}

/* The kernel table through calibrate: in the profile, and run by `ringsim model --impl flash-attn`. */
RS_TEST(test_cli_kernel_table, "calibrate --from-trace: the kernel curves in the profile, run by model") {
    CU_ASSERT_EQUAL_FATAL(make_kernel_traces(), 0);
    rs_err_t err = {0};
    char args[8192], prof[600];
    snprintf(prof, sizeof prof, "%s", rs_test_path("kfit.json"));
    int u = snprintf(args, sizeof args, "calibrate --out %s --from-trace", prof);
    for (int i = 0; i < N_KTRACES; i++) u += snprintf(args + u, sizeof args - (size_t)u, " %s", kpaths[i]);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# kernel table (kernel from-trace, bf16, d 128)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ", 4 kernel curves"));
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(prof, &hw, &err), 0);
    expect_known_curves(&hw.kernels);
    snprintf(args, sizeof args, "model -p %s --impl flash-attn -S 8K -N 4 -L zigzag -P both", prof);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "kernel from-trace's measured rates"));
    /* one B: every (pass, kind) at one shape but the forward's full calls (B x B/2, B/2 x B) - said */
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s --latency %g", rs_test_path("kfit1.json"), kpaths[1], L_S);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# kernel table: forward causal calls at one shape only: no curve"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ", 1 kernel curves"));
}

RS_TEST(test_bad_input, "bad input: exit 2, the file named, no output") {
    char args[4096], nocomp[600], zero[600], other[600], prof[600];
    snprintf(prof, sizeof prof, "%s", rs_test_path("bad.json"));
    snprintf(nocomp, sizeof nocomp, "%s", rs_test_path("nocomp.csv"));
    snprintf(zero, sizeof zero, "%s", rs_test_path("zero.csv"));
    snprintf(other, sizeof other, "%s", rs_test_path("other.csv"));
    edited_copy(paths[1], nocomp, ",compute,", NULL, NULL);
    edited_copy(paths[1], zero, NULL, ",0,8388608,", ",0,0,"); /* the recv (and send) events' bytes: K,V at B = 2048 */
    edited_copy(paths[1], other, NULL, "# head_dim=128", "# head_dim=64");

    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", prof, paths[0], nocomp);
    refused(args, "nocomp.csv: no compute events", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s", prof, paths[1]);
    refused(args, "W needs two sizes", prof);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, paths[1]));
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", prof, paths[0], other);
    refused(args, "other.csv: head_dim=64, but", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s --heads 16", prof, paths[0], paths[1]);
    refused(args, "q_heads=32 in the header, but 16 was given", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s/missing.csv", prof, paths[0], rs_test_dir);
    refused(args, "missing.csv", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", prof, paths[0], zero);
    refused(args, "zero.csv: rank 0 step 0: the recv event's byte count is 0", prof);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", paths[0], paths[0], paths[1]);
    refused(args, "an output never replaces an input", prof);
    /* validate: the same refusals, no profile saved and no files in the directory */
    const char *dir = rs_test_fresh_dir("badval");
    snprintf(args, sizeof args, "validate --from-trace %s %s --save-profile %s --trace-dir %s", paths[0], nocomp, prof, dir);
    refused(args, "nocomp.csv: no compute events", prof);
    snprintf(args, sizeof args, "validate --from-trace %s %s/missing.csv --trace-dir %s", paths[0], rs_test_dir, dir);
    refused(args, "missing.csv", prof);
    snprintf(args, sizeof args, "validate --from-trace %s --calibrated %s/missing.json", paths[0], rs_test_dir);
    refused(args, "missing.json", prof);
    snprintf(args, sizeof args, "ls -A %s | wc -l", dir);
    FILE *p = popen(args, "r");
    int n = -1;
    CU_ASSERT(p && fscanf(p, "%d", &n) == 1);
    if (p) pclose(p);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

/* The fit against the traced device: its memory figures the device preset's (not this host's); a fit
 * above a slower device's datasheet (the known 380 TFLOP/s on an A100's 312 x 1.05) refused naming
 * the figure and the bound, taken with a warning under --allow-implausible; traces that name no
 * device refused unless --name names one. */
RS_TEST(test_plausible, "calibrate --from-trace: the traced device's memory; implausible fits refused or warned") {
    char args[4096], a100[2][600], anon[2][600], prof[600];
    snprintf(prof, sizeof prof, "%s", rs_test_path("dev.json"));
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", prof, paths[0], paths[1]);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    rs_hw_t hw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(prof, &hw, &err), 0);
    CU_ASSERT_STRING_EQUAL(hw.name, "H100-SXM");
    RS_ASSERT_REL(hw.mem_bytes, 80e9, 0);            /* profiles/devices/h100-sxm.json, not this host's */
    RS_ASSERT_REL(hw.mem_bw_bytes_per_s, 3.35e12, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(hw.calibration_note, "memory figures: H100-SXM's datasheet (device preset h100-sxm)"));
    for (int i = 0; i < 2; i++) {
        snprintf(a100[i], sizeof a100[i], "%s", rs_test_path(i ? "a100-1.csv" : "a100-0.csv"));
        snprintf(anon[i], sizeof anon[i], "%s", rs_test_path(i ? "anon-1.csv" : "anon-0.csv"));
        edited_copy(paths[i + 1], a100[i], NULL, "# import.gpu=H100-SXM", "# import.gpu=NVIDIA A100-SXM4-80GB"); /* B 2048, 4096 */
        edited_copy(paths[i], anon[i], NULL, "# import.gpu=H100-SXM", "# import.gpu=ringsim export");
    }
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", rs_test_path("a100.json"), a100[0], a100[1]);
    refused(args, "device.flops_per_s.bf16 3.8e+14: above A100-SXM's datasheet bf16 peak x 1.05 (3.276e+14 FLOP/s)", NULL);
    CU_ASSERT_EQUAL(rs_test_file_size(rs_test_path("a100.json")), -1);
    CU_ASSERT_EQUAL(rs_test_out[0], '\0'); /* nothing printed */
    snprintf(args, sizeof args, "validate --from-trace %s %s", a100[0], a100[1]);
    refused(args, "device.flops_per_s.bf16 3.8e+14: above A100-SXM's", NULL);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s --allow-implausible", rs_test_path("a100.json"), a100[0], a100[1]);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim calibrate: warning: the fit of "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "device.flops_per_s.bf16 3.8e+14: above A100-SXM's datasheet bf16 peak x 1.05 "
                                               "(3.276e+14 FLOP/s); taken as given (--allow-implausible)"));
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s", rs_test_path("anon.json"), anon[0], anon[1]);
    refused(args, "the traced device 'ringsim export' has no device preset: its memory figures would be this host's", NULL);
    snprintf(args, sizeof args, "calibrate --out %s --from-trace %s %s --name h100-sxm", rs_test_path("anon.json"), anon[0], anon[1]);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(rs_test_path("anon.json"), &hw, &err), 0);
    RS_ASSERT_REL(hw.mem_bytes, 80e9, 0);
    snprintf(args, sizeof args, "validate --from-trace %s %s", anon[0], anon[1]); /* nothing written: no memory figure needed */
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
}

/* In the library: an output that is an input, a profile that cannot be written, a calibrated profile
 * that does not load; and a fit out of the profile's range, said at the output's name. */
RS_TEST(test_library_kinds, "in the library: the kind of each failure") {
    rs_tfit_opts_t o = fit_opts(0, 2);
    rs_err_t err = {0};
    FILE *out = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(rs_study_calibrate_from_trace(&o, paths[1], "", out, &err), -1);
    char want[1400];
    snprintf(want, sizeof want, "--out %s is the input %s: an output never replaces an input", paths[1], paths[1]);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    err.code = RS_ERR_BAD_INPUT;
    CU_ASSERT_EQUAL(rs_study_calibrate_from_trace(&o, rs_test_path("no/such/dir/p.json"), "", out, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_RUNTIME);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no/such/dir/p.json"));
    CU_ASSERT_EQUAL(rs_study_calibrate_from_trace(&o, rs_test_path("lib.json"), "named", out, &err), 0);
    rs_hw_t hw;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load(rs_test_path("lib.json"), &hw, &err), 0);
    CU_ASSERT_STRING_EQUAL(hw.name, "named");
    /* the section 7 Kineto fixture with compute events of 1 ns: a fit above the profile's own range
     * (F <= 1e20), taken as given, is said at the output's name and blamed on the trace, as bad input, and
     * nothing is written */
    char cmd[3000], fast[1000];
    snprintf(cmd, sizeof cmd, "import -S 32K -q -o %s %s/tests/fixtures/data/kineto_ring4", rs_test_path("k.csv"), RS_SOURCE_DIR);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(cmd), 0);
    snprintf(fast, sizeof fast, "%s", rs_test_path("fast.csv"));
    snprintf(cmd, sizeof cmd, "awk -F, -v OFS=, -v OFMT=%%.17g -v CONVFMT=%%.17g '/^#/ || $1 == \"source\" { print; next } $5 == "
             "\"compute\" { $7 = $6 + 1e-9; if ($12 != \"-\") $12 = 5e-10 } { print }' %s > %s", rs_test_path("k-zigzag-forward.csv"),
             fast);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "calibrate --out %s --from-trace %s --allow-implausible --latency 1e-6", rs_test_path("fast.json"), fast);
    CU_ASSERT_EQUAL(rs_test_ringsim(cmd), 2);
    snprintf(want, sizeof want, "ringsim calibrate: the profile fitted from %s is not a valid profile: %s:", fast, rs_test_path("fast.json"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "device.flops_per_s.bf16: must be in [1, 1e+20]"));
    CU_ASSERT_EQUAL(access(rs_test_path("fast.json"), F_OK), -1);
    rs_tval_in_t in = {&o, rs_test_path("missing.json"), NULL, NULL, out};
    CU_ASSERT_EQUAL(rs_study_validate_from_trace(&in, &err), -1);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing.json"));
    in.calibrated = rs_test_path("lib.json");
    CU_ASSERT_EQUAL(rs_study_validate_from_trace(&in, &err), 0);
    fclose(out);
}

RS_TEST_MAIN(.suite = "fromtrace", .scratch = "fromtrace", .setup = ft_setup)
