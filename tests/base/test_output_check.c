/* test_output_check.c - the checks before any work (output_check.c, rs_io_*): an output that is an
 * input (by path, through a link, by inode), two outputs of one target, a missing or unwritable folder,
 * output folders to create, character devices shared - each refusal's exact message and its code. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "output.h"
#include "test_main.h"

/* The plan's check fails with exactly want (code bad input), or passes when want is NULL. */
static void expect_check(rs_io_plan_t *p, const char *want) {
    rs_err_t err = {0};
    const int rc = rs_io_check(p, &err);
    if (!want) {
        if (rc) fprintf(stderr, "  unexpected: %s\n", err.msg);
        CU_ASSERT_EQUAL(rc, 0);
    } else {
        CU_ASSERT_EQUAL(rc, -1);
        if (strcmp(err.msg, want)) fprintf(stderr, "  got  '%s'\n  want '%s'\n", err.msg, want);
        CU_ASSERT_STRING_EQUAL(err.msg, want);
        CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    }
    rs_io_free(p);
}

RS_TEST(test_output_is_input, "an output that is an input: by path, through a link, in a list") {
    char in[1024], link[1024], want[4096];
    snprintf(in, sizeof in, "%s", rs_test_path("ref.csv"));
    snprintf(link, sizeof link, "%s", rs_test_path("alias.csv"));
    rs_test_write_text(in, "x\n");
    CU_ASSERT_EQUAL_FATAL(symlink("ref.csv", link), 0);
    rs_io_plan_t p;
    rs_io_init(&p);
    rs_io_input(&p, "REF", in, false);
    rs_io_output(&p, "--csv", in);
    snprintf(want, sizeof want, "--csv %s: the same file as the input REF %s: an output never replaces an input", in, in);
    expect_check(&p, want);
    rs_io_init(&p); /* through a link */
    rs_io_input(&p, "REF", in, false);
    rs_io_output(&p, "--csv", link);
    snprintf(want, sizeof want, "--csv %s: the same file as the input REF %s: an output never replaces an input", link, in);
    expect_check(&p, want);
    rs_io_init(&p); /* one of a comma-separated list of inputs */
    char list[2100];
    snprintf(list, sizeof list, "/nonexistent.json,%s", in);
    rs_io_input(&p, "-p", list, true);
    rs_io_output(&p, "-o", in);
    snprintf(want, sizeof want, "-o %s: the same file as the input -p %s: an output never replaces an input", in, in);
    expect_check(&p, want);
    rs_io_init(&p); /* an input that does not exist is its reader's to report */
    rs_io_input(&p, "REF", rs_test_path("missing.csv"), false);
    rs_io_input(&p, "REF", NULL, false);
    rs_io_output(&p, "--csv", rs_test_path("new.csv"));
    expect_check(&p, NULL);
    remove(link);
    remove(in);
}

RS_TEST(test_two_outputs, "two outputs of one file; /dev/null shared") {
    char a[1024], want[4096];
    snprintf(a, sizeof a, "%s", rs_test_path("o.csv"));
    rs_io_plan_t p;
    rs_io_init(&p);
    rs_io_output(&p, "--csv", a);
    rs_io_output(&p, "--trace", a);
    snprintf(want, sizeof want, "--trace %s: the same file as the output --csv %s: give each output its own file", a, a);
    expect_check(&p, want);
    rs_io_init(&p); /* two writers of /dev/null are fine */
    rs_io_output(&p, "--csv", "/dev/null");
    rs_io_output(&p, "--trace", "/dev/null");
    rs_io_output(&p, "--json", NULL); /* not given */
    expect_check(&p, NULL);
}

RS_TEST(test_folders, "folders: missing, a directory as a file, to create, a file as a folder") {
    rs_io_plan_t p;
    rs_io_init(&p);
    rs_io_output(&p, "--csv", "/nonexistent-dir/x.csv");
    expect_check(&p, "--csv /nonexistent-dir/x.csv: folder /nonexistent-dir does not exist");
    rs_io_init(&p);
    rs_io_output(&p, "--csv", rs_test_dir);
    char want[2048];
    snprintf(want, sizeof want, "--csv %s: is a directory", rs_test_dir);
    expect_check(&p, want);
    /* an output folder: missing is fine when its parent is writable; created by rs_io_make_dirs */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", rs_test_path("report"));
    rs_io_init(&p);
    rs_io_output_dir(&p, "-o", dir, true);
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_io_check(&p, &err), 0);
    CU_ASSERT_EQUAL(rs_io_make_dirs(&p, &err), 0);
    struct stat st;
    CU_ASSERT_EQUAL(stat(dir, &st), 0);
    CU_ASSERT_TRUE(S_ISDIR(st.st_mode));
    rs_io_free(&p);
    rs_io_init(&p);
    rs_io_output_dir(&p, "-o", "/nonexistent-dir/report", false);
    expect_check(&p, "-o /nonexistent-dir/report: folder /nonexistent-dir does not exist");
    rs_io_init(&p); /* a file where a folder goes */
    char file[1024];
    snprintf(file, sizeof file, "%s", rs_test_path("plain"));
    rs_test_write_text(file, "");
    rs_io_output_dir(&p, "-o", file, false);
    snprintf(want, sizeof want, "-o %s: exists and is not a folder", file);
    expect_check(&p, want);
    remove(file);
    rmdir(dir);
}

RS_TEST_PROGRAM_IN("output_check")
