/* test_output_file.c - the writers of output files (output_file.c), outside a run: "-" is stdout, a
 * file is written to a temporary beside it and renamed over it at the commit, an abort leaves neither
 * the file nor a temporary, a reserved temporary is filled by another writer, a symbolic link stays a
 * link, a device is written in place, a killed run's temporaries are removed, and every refusal's
 * message. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "output.h"
#include "test_main.h"

RS_TEST(test_stdout, "\"-\" is stdout") {
    rs_output_t o;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_output_open(&o, "-", &err), 0);
    CU_ASSERT_TRUE(o.to_stdout);
    CU_ASSERT_PTR_EQUAL(o.fp, stdout);
    CU_ASSERT_EQUAL(rs_output_close(&o, &err), 0); /* stdout is checked once, at the command's end */
    CU_ASSERT_EQUAL_FATAL(rs_output_open(&o, "-", &err), 0);
    rs_output_abort(&o);
    CU_ASSERT_PTR_NULL(o.fp);
}

RS_TEST(test_commit_and_abort, "a file is renamed over at the commit; an abort leaves nothing") {
    rs_err_t err = {0};
    const char *path = rs_test_path("out.csv");
    rs_output_t o;
    CU_ASSERT_EQUAL_FATAL(rs_output_open(&o, path, &err), 0);
    CU_ASSERT_FALSE(o.to_stdout);
    fputs("a,b\n1,2\n", o.fp);
    CU_ASSERT_EQUAL(rs_test_file_size(path), -1); /* not under its name before the commit */
    CU_ASSERT_EQUAL(rs_test_temp_files(), 1);      /* "out.csv.tmp.PID.SEQ.ringsim" beside it */
    CU_ASSERT_EQUAL(rs_output_close(&o, &err), 0);
    CU_ASSERT_EQUAL(rs_test_file_size(path), 8);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    /* an existing file is replaced at the commit only; an abort keeps it and leaves no temporary */
    rs_file_t f;
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    fputs("replaced\n", f.fp);
    CU_ASSERT_EQUAL(rs_test_file_size(path), 8);
    rs_file_abort(&f);
    CU_ASSERT_EQUAL(rs_test_file_size(path), 8);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    fputs("replaced\n", f.fp);
    CU_ASSERT_EQUAL(rs_file_commit(&f, &err), 0);
    char *text = rs_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "replaced\n");
    free(text);
    /* a new file aborted: nothing at all */
    const char *fresh = rs_test_path("never.csv");
    CU_ASSERT_EQUAL_FATAL(rs_output_open(&o, fresh, &err), 0);
    fputs("x", o.fp);
    rs_output_abort(&o);
    CU_ASSERT_EQUAL(rs_test_file_size(fresh), -1);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    remove(path);
}

/* A reserved temporary is left closed for another program (gnuplot) to write. */
RS_TEST(test_reserve, "a reserved temporary is filled by another writer") {
    const char *path = rs_test_path("fig.svg");
    rs_file_t f;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_file_reserve(&f, path, &err), 0);
    CU_ASSERT_PTR_NULL(f.fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(f.tmp_path, "fig.svg.tmp."));
    rs_test_write_text(f.tmp_path, "<svg/>");
    CU_ASSERT_EQUAL(rs_file_commit(&f, &err), 0);
    char *text = rs_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "<svg/>");
    free(text);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    remove(path);
}

/* A partial result goes beside the output, never over a previous complete one. */
RS_TEST(test_partial_aside, "a partial result goes to NAME.partial.EXT and leaves the complete output") {
    const char *path = rs_test_path("out.csv");
    char partial[4096];
    rs_test_write_text(path, "complete\n");
    CU_ASSERT_STRING_EQUAL(rs_out_partial_name("d/out.csv", partial, sizeof partial), "d/out.partial.csv");
    CU_ASSERT_STRING_EQUAL(rs_out_partial_name("d.x/out", partial, sizeof partial), "d.x/out.partial");
    CU_ASSERT_STRING_EQUAL(rs_out_partial_name(".rc", partial, sizeof partial), ".rc.partial");
    rs_file_t f;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    CU_ASSERT_STRING_EQUAL(rs_file_partial_path(&f, partial, sizeof partial), rs_out_partial_name(path, partial + 2048, 2048));
    fputs("3 of 66 points\n", f.fp);
    CU_ASSERT_EQUAL(rs_file_commit_partial(&f, &err), 0);
    rs_file_t dev; /* a device takes the points in place */
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&dev, "/dev/null", &err), 0);
    CU_ASSERT_STRING_EQUAL(rs_file_partial_path(&dev, partial, sizeof partial), "/dev/null");
    rs_file_abort(&dev);
    rs_test_expect_text(path, "complete\n");
    rs_test_expect_text(rs_out_partial_name(path, partial, sizeof partial), "3 of 66 points\n");
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    remove(path), remove(partial);
}

/* A symbolic link is followed: its target is replaced, the link stays a link. */
RS_TEST(test_symlink, "a symbolic link stays a link, its target replaced") {
    rs_err_t err = {0};
    const char *target = rs_test_path("target.csv"), *link = rs_test_path("link.csv");
    rs_test_write_text(target, "old\n");
    CU_ASSERT_EQUAL_FATAL(symlink("target.csv", link), 0);
    rs_file_t f;
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, link, &err), 0);
    fputs("new\n", f.fp);
    CU_ASSERT_EQUAL(rs_file_commit(&f, &err), 0);
    struct stat st;
    CU_ASSERT_EQUAL(lstat(link, &st), 0);
    CU_ASSERT_TRUE(S_ISLNK(st.st_mode));
    char *text = rs_test_slurp(target, NULL);
    CU_ASSERT_STRING_EQUAL(text, "new\n");
    free(text);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    remove(link);
    remove(target);
}

/* A device is written in place at the commit (from a temporary in $TMPDIR), never replaced. */
RS_TEST(test_device, "a device is written in place; a full one fails at the commit") {
    rs_err_t err = {0};
    rs_file_t f;
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, "/dev/null", &err), 0);
    CU_ASSERT_EQUAL(f.kind, 1);
    fputs("discarded\n", f.fp);
    CU_ASSERT_EQUAL(rs_file_commit(&f, &err), 0);
    struct stat st;
    CU_ASSERT_EQUAL(stat("/dev/null", &st), 0);
    CU_ASSERT_TRUE(S_ISCHR(st.st_mode));
    if (access("/dev/full", W_OK) == 0) { /* a full device: the write fails at the commit */
        CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, "/dev/full", &err), 0);
        fputs("x\n", f.fp);
        CU_ASSERT_EQUAL(rs_file_commit(&f, &err), -1);
        CU_ASSERT_STRING_EQUAL(err.msg, "/dev/full: write failed: No space left on device");
    }
}

RS_TEST(test_refusals, "refusals: a missing folder, a directory, an empty path") {
    rs_err_t err = {0};
    rs_file_t f;
    CU_ASSERT_EQUAL(rs_file_open(&f, "/nonexistent-dir/x.csv", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent-dir/x.csv: cannot write: folder /nonexistent-dir does not exist");
    CU_ASSERT_EQUAL(rs_file_open(&f, rs_test_dir, &err), -1);
    char want[1024];
    snprintf(want, sizeof want, "%s: cannot write: is a directory", rs_test_dir);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    rs_output_t o;
    CU_ASSERT_EQUAL(rs_output_open(&o, "", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, ": cannot write: empty path");
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

/* The temporaries of a killed run (its PID gone) are removed by the next writer of the same file. */
RS_TEST(test_dead_pid_temporaries, "a killed run's temporaries are removed, a live one's kept") {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    CU_ASSERT_FATAL(child > 0);
    waitpid(child, NULL, 0); /* now a dead PID */
    char left[1024], mine[1024];
    snprintf(left, sizeof left, "%s/out.csv.tmp.%ld.3.ringsim", rs_test_dir, (long)child);
    snprintf(mine, sizeof mine, "%s/out.csv.tmp.%ld.99.ringsim", rs_test_dir, (long)getpid()); /* alive: kept */
    rs_test_write_text(left, "half");
    rs_test_write_text(mine, "half");
    rs_err_t err = {0};
    rs_file_t f;
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, rs_test_path("out.csv"), &err), 0);
    CU_ASSERT_EQUAL(access(left, F_OK), -1);
    CU_ASSERT_EQUAL(access(mine, F_OK), 0);
    rs_file_abort(&f);
    remove(mine);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

RS_TEST(test_hand_over, "a rank's outputs are handed over to the launching run, which commits them (rs_out_adopt)") {
    char hand[1024], path[1024], name[1300];
    rs_err_t err = {0};
    snprintf(hand, sizeof hand, "%s", rs_test_path("hand"));
    snprintf(path, sizeof path, "%s", rs_test_path("ranked.csv"));
    CU_ASSERT_EQUAL_FATAL(mkdir(hand, 0700), 0);
    /* the rank: its temporary lies in the folder, and a success leaves PID.SEQ.out with its path */
    setenv("RINGSIM_RANK_OUT", hand, 1);
    rs_out_begin();
    CU_ASSERT_PTR_NULL(getenv("RINGSIM_RANK_OUT")); /* not passed on to the rank's own children */
    rs_file_t f;
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    snprintf(name, sizeof name, "%s/%ld.", hand, (long)getpid());
    CU_ASSERT_EQUAL(strncmp(f.tmp_path, name, strlen(name)), 0);
    char base[1200]; /* "hand/PID.SEQ" */
    snprintf(base, sizeof base, "%.*s", (int)strlen(f.tmp_path) - 4, f.tmp_path);
    fputs("rank 0\n", f.fp);
    CU_ASSERT_EQUAL(rs_file_commit(&f, &err), 0);
    char own[1024], inner[1100]; /* a file of the rank's own temporary folder is its own: written in place at once */
    setenv("TMPDIR", rs_test_dir, 1);
    CU_ASSERT_EQUAL_FATAL(rs_out_tmpdir("sim", own, sizeof own, &err), 0);
    snprintf(inner, sizeof inner, "%s/platform.xml", own);
    rs_file_t g;
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&g, inner, &err), 0);
    fputs("<platform/>", g.fp);
    CU_ASSERT_EQUAL(rs_file_commit(&g, &err), 0);
    CU_ASSERT_EQUAL(rs_test_file_size(inner), 11);
    unsetenv("TMPDIR");
    CU_ASSERT_EQUAL(rs_out_finish(true, &err), 0);
    CU_ASSERT_EQUAL(rs_test_file_size(path), -1); /* the rank never writes the target */
    snprintf(name, sizeof name, "%s.path", base);
    char *text = rs_test_slurp(name, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, path);
    free(text);
    /* the launching run: committed with the run, the folder emptied of what it took */
    rs_out_begin();
    CU_ASSERT_EQUAL(rs_out_adopt(hand, &err), 0);
    CU_ASSERT_EQUAL(rs_test_file_size(path), -1); /* pending until the end */
    CU_ASSERT_EQUAL(rs_out_finish(true, &err), 0);
    text = rs_test_slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, "rank 0\n");
    free(text);
    snprintf(name, sizeof name, "%s.out", base);
    CU_ASSERT_EQUAL(rs_test_file_size(name), -1);
    /* an output without its path is refused */
    rs_test_write_text(name, "x");
    snprintf(name, sizeof name, "%s.path", base);
    remove(name);
    rs_out_begin();
    CU_ASSERT_EQUAL(rs_out_adopt(hand, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ".out: a rank's output has no name"));
    CU_ASSERT_EQUAL(rs_out_finish(false, NULL), 0);
    snprintf(name, sizeof name, "rm -rf '%s'", hand);
    CU_ASSERT_EQUAL(system(name), 0);
    remove(path);
}

RS_TEST_PROGRAM_IN("output_file")
