/* test_command_files.c - a command's files (cli/command_files.c): the per-entry output paths, the
 * checks before any work (the refusal line, the folders made), the per-entry trace paths checked in
 * place of the option's value, and a JSON document written with exact reals. */
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_test.h"
#include "command_files.h"
#include "harness.h"
#include "test_main.h"

RS_TEST(test_entry_path, "per-entry output paths") {
    rs_problem_t p;
    rs_problem_default(&p);
    p.layout = RS_LAYOUT_ZIGZAG, p.pass = RS_PASS_FORWARD;
    char buf[256];
    rs_cli_entry_path(buf, sizeof buf, "out.csv", &p, true);
    CU_ASSERT_STRING_EQUAL(buf, "out-zigzag-forward.csv");
    rs_cli_entry_path(buf, sizeof buf, "out.csv", &p, false);
    CU_ASSERT_STRING_EQUAL(buf, "out.csv");
    p.layout = RS_LAYOUT_STRIPED, p.pass = RS_PASS_BACKWARD;
    rs_cli_entry_path(buf, sizeof buf, "d.v2/trace", &p, true); /* a dot in a folder is no extension */
    CU_ASSERT_STRING_EQUAL(buf, "d.v2/trace-striped-backward");
    rs_cli_entry_path(buf, sizeof buf, "a.b.json", &p, true);
    CU_ASSERT_STRING_EQUAL(buf, "a.b-striped-backward.json");
    rs_cli_entry_path(buf, 8, "out.csv", &p, true); /* truncated */
    CU_ASSERT_STRING_EQUAL(buf, "out-str");
}

typedef struct {
    const char *csv, *trace, *dir;
} files_t;
static const rs_opt_t file_opts[] = {
    {"csv", 0, "FILE", NULL, "a table", RS_ARG_OUT, offsetof(files_t, csv), 0, 0, NULL, NULL, NULL},
    {"trace", 0, "FILE", NULL, "a trace per entry", RS_ARG_OUT, offsetof(files_t, trace), 0, 0, NULL, NULL, NULL},
    {"dir", 0, "DIR", NULL, "a folder", RS_ARG_OUTDIR, offsetof(files_t, dir), 0, 0, NULL, NULL, NULL},
};

static int parse_files(const char *a, const char *b, const char *c, const char *d, files_t *f, rs_opt_group_t *g) {
    char *argv[6] = {"demo", (char *)a, (char *)b, (char *)c, (char *)d, NULL};
    int argc = 1;
    while (argc < 5 && argv[argc]) argc++;
    memset(f, 0, sizeof *f);
    *g = RS_OPT_GROUP(file_opts, f);
    rs_err_t err = {0};
    return rs_cli_parse("demo", argc, argv, g, 1, &err);
}

RS_TEST(test_check_files, "the checks before any work") {
    CU_ASSERT_EQUAL_FATAL(rs_test_scratch("command_files"), 0);
    char in[600], csv[700], dir[600];
    snprintf(in, sizeof in, "%s", rs_test_path("in.csv"));
    rs_test_write_text(in, "x\n");
    snprintf(csv, sizeof csv, "--csv=%s", in);
    snprintf(dir, sizeof dir, "--dir=%s", rs_test_path("made"));
    files_t f;
    rs_opt_group_t g;
    CU_ASSERT_EQUAL_FATAL(parse_files(csv, NULL, NULL, NULL, &f, &g), 0);
    rs_io_plan_t plan;
    rs_io_init(&plan);
    rs_io_input(&plan, "REF", in, false);
    rs_capture_t c;
    rs_capture_begin(&c, 2);
    CU_ASSERT_EQUAL(rs_cli_check_files("demo", &g, 1, &plan, NULL, true), RS_EXIT_USAGE);
    char *text = rs_capture_end(&c);
    char want[2000];
    snprintf(want, sizeof want, "ringsim demo: --csv %s: the same file as the input REF %s: an output never replaces an input\n",
             in, in);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
    /* fine: -1 (go on), and the output folder is made */
    CU_ASSERT_EQUAL_FATAL(parse_files(dir, NULL, NULL, NULL, &f, &g), 0);
    rs_io_init(&plan);
    CU_ASSERT_EQUAL(rs_cli_check_files("demo", &g, 1, &plan, NULL, true), -1);
    struct stat st;
    CU_ASSERT(stat(rs_test_path("made"), &st) == 0 && S_ISDIR(st.st_mode));
    /* the per-entry traces of two layouts, checked in place of --trace's value: one is --csv's file */
    static rs_setup_t s;
    rs_setup_default(&s);
    s.n_layouts = 2, s.layouts[0] = RS_LAYOUT_ZIGZAG, s.layouts[1] = RS_LAYOUT_STRIPED;
    s.n_passes = 1, s.passes[0] = RS_PASS_FORWARD;
    char trace[700], clash[700];
    snprintf(trace, sizeof trace, "--trace=%s", rs_test_path("t.csv"));
    snprintf(clash, sizeof clash, "--csv=%s", rs_test_path("t-striped-forward.csv"));
    CU_ASSERT_EQUAL_FATAL(parse_files(trace, clash, NULL, NULL, &f, &g), 0);
    rs_capture_begin(&c, 2);
    CU_ASSERT_EQUAL(rs_cli_check_entry_files("demo", &s, &g, 1, false), RS_EXIT_USAGE);
    text = rs_capture_end(&c);
    CU_ASSERT_STRING_EQUAL(text, ""); /* not loud */
    free(text);
    rs_capture_begin(&c, 2);
    CU_ASSERT_EQUAL(rs_cli_check_entry_files("demo", &s, &g, 1, true), RS_EXIT_USAGE);
    text = rs_capture_end(&c);
    const char *striped = rs_test_path("t-striped-forward.csv");
    snprintf(want, sizeof want, "ringsim demo: --csv %s: the same file as the output --trace %s: give each output its own file\n",
             striped, striped);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
    /* one entry: the trace is the option's own path */
    s.n_layouts = 1;
    CU_ASSERT_EQUAL(rs_cli_check_entry_files("demo", &s, &g, 1, true), -1);
    rs_test_cleanup();
}

RS_TEST(test_write_json, "a JSON document with exact reals") {
    CU_ASSERT_EQUAL_FATAL(rs_test_scratch("command_files_json"), 0);
    json_t *root = json_pack("{s:f, s:[i, i], s:s}", "a", 0.1, "b", 1, 2, "c", "x");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_cli_write_json(rs_test_path("o.json"), root, &err), 0);
    char *text = rs_test_slurp(rs_test_path("o.json"), NULL);
    CU_ASSERT_STRING_EQUAL(text, "{\n  \"a\": 0.10000000000000001,\n  \"b\": [\n    1,\n    2\n  ],\n  \"c\": \"x\"\n}\n");
    free(text);
    root = json_object();
    CU_ASSERT_EQUAL(rs_cli_write_json(rs_test_path("no/such/dir/o.json"), root, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no/such/dir/o.json"));
    rs_test_cleanup();
}

RS_TEST_PROGRAM("command files")
