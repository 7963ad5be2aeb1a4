/* test_output_run.c - the run of a process (output_run.c): inside a run a commit is pending until
 * rs_out_finish, which commits everything (true) or removes it (false); a pending output is read at
 * its temporary; the same target committed twice keeps the later; temporary folders, staged folders
 * (merged into an existing folder) and created folders; a signal removes what the run left; every
 * commit checked for a race (pending, partial, outside a run), the loser's temporary removed. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "output.h"
#include "test_main.h"

/* Write text to path through rs_file_open and commit it. */
static void write_output(const char *path, const char *text) {
    rs_file_t f;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    fputs(text, f.fp);
    CU_ASSERT_EQUAL(rs_file_commit(&f, &err), 0);
}

RS_TEST(test_commit_at_the_end, "inside a run: pending until the end, read at its temporary, the later commit wins") {
    char path[1024], buf[1100];
    snprintf(path, sizeof path, "%s", rs_test_path("a.csv"));
    rs_err_t err = {0};
    CU_ASSERT_FALSE(rs_out_active());
    rs_out_begin();
    CU_ASSERT_TRUE(rs_out_active());
    write_output(path, "first\n");
    CU_ASSERT_EQUAL(rs_test_file_size(path), -1); /* pending */
    const char *at = rs_out_read_path(path, buf, sizeof buf);
    CU_ASSERT_PTR_EQUAL(at, buf); /* its temporary, to read the run's own output */
    CU_ASSERT_PTR_NOT_NULL(strstr(at, "a.csv.tmp."));
    CU_ASSERT_EQUAL(rs_test_file_size(at), 6);
    write_output(path, "second\n"); /* the same target again: the later one wins */
    CU_ASSERT_EQUAL(rs_test_temp_files(), 1);
    CU_ASSERT_EQUAL(rs_out_finish(true, &err), 0);
    CU_ASSERT_FALSE(rs_out_active());
    char *text = rs_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "second\n");
    free(text);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    CU_ASSERT_PTR_EQUAL(rs_out_read_path(path, buf, sizeof buf), path); /* outside a run: the path */
    remove(path);
}

RS_TEST(test_failed_run_leaves_nothing, "a failed run leaves no output, no temporary, no folder it created") {
    char path[1024], dir[1024], inner[1100];
    snprintf(path, sizeof path, "%s", rs_test_path("b.csv"));
    snprintf(dir, sizeof dir, "%s", rs_test_path("made"));
    snprintf(inner, sizeof inner, "%s/inner", dir);
    rs_err_t err = {0};
    rs_out_begin();
    write_output(path, "lost\n");
    CU_ASSERT_EQUAL(rs_out_mkdir(dir, &err), 0);
    CU_ASSERT_EQUAL(rs_out_mkdir(inner, &err), 0);
    CU_ASSERT_EQUAL(rs_out_mkdir(dir, &err), 0); /* an existing folder is fine */
    rs_file_t open;
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&open, rs_test_path("c.csv"), &err), 0); /* still open at the end */
    CU_ASSERT_EQUAL(rs_out_finish(false, NULL), 0);
    CU_ASSERT_EQUAL(rs_test_file_size(path), -1);
    struct stat st;
    CU_ASSERT_EQUAL(stat(dir, &st), -1); /* the folders this run created, innermost first */
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    rs_file_abort(&open); /* its temporary is gone already: nothing left to remove */
    /* a file where a folder goes */
    rs_test_write_text(path, "");
    CU_ASSERT_EQUAL(rs_out_mkdir(path, &err), -1);
    char want[1200];
    snprintf(want, sizeof want, "%s: cannot create: exists and is not a folder", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    remove(path);
}

RS_TEST(test_folders, "temporary and staged folders") {
    char tmp[1024], dir[1024], stage[1200], file[1300];
    rs_err_t err = {0};
    setenv("TMPDIR", rs_test_dir, 1);
    rs_out_begin();
    CU_ASSERT_EQUAL_FATAL(rs_out_tmpdir("sim", tmp, sizeof tmp, &err), 0);
    char want[1100];
    snprintf(want, sizeof want, "%s/ringsim-sim.%ld.", rs_test_dir, (long)getpid());
    CU_ASSERT_EQUAL(strncmp(tmp, want, strlen(want)), 0);
    snprintf(file, sizeof file, "%s/platform.xml", tmp);
    rs_test_write_text(file, "<platform/>");
    rs_out_tmpdir_remove(tmp);
    struct stat st;
    CU_ASSERT_EQUAL(stat(tmp, &st), -1);
    /* a staged folder: its files committed inside it at once, the folder merged into dir at the end */
    snprintf(dir, sizeof dir, "%s", rs_test_path("rep"));
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0777), 0);
    snprintf(file, sizeof file, "%s/old.md", dir);
    rs_test_write_text(file, "kept");
    CU_ASSERT_EQUAL_FATAL(rs_out_stage_dir(dir, stage, sizeof stage, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(stage, "rep.tmp."));
    snprintf(file, sizeof file, "%s/report.md", stage);
    write_output(file, "# report\n");
    CU_ASSERT_EQUAL(rs_test_file_size(file), 9); /* committed inside the stage at once */
    CU_ASSERT_EQUAL(rs_out_finish(true, &err), 0);
    snprintf(file, sizeof file, "%s/report.md", dir);
    CU_ASSERT_EQUAL(rs_test_file_size(file), 9);
    snprintf(file, sizeof file, "%s/old.md", dir);
    CU_ASSERT_EQUAL(rs_test_file_size(file), 4);
    CU_ASSERT_EQUAL(stat(stage, &st), -1);
    unsetenv("TMPDIR");
}

/* Another run's commit, as it lands: a complete file renamed over path. */
static void other_run_commits(const char *path, const char *text) {
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.other", path);
    rs_test_write_text(tmp, text);
    CU_ASSERT_EQUAL(rename(tmp, path), 0);
}

/* The run's checks of one output path (rs_io_check: what the target is at the start). */
static void check_output(const char *path) {
    rs_io_plan_t io;
    rs_err_t err = {0};
    rs_io_init(&io);
    CU_ASSERT_EQUAL(rs_io_output(&io, "-o", path), 0);
    CU_ASSERT_EQUAL(rs_io_check(&io, &err), 0);
    rs_io_free(&io);
}

RS_TEST(test_commit_race, "another run's commit after this run's checks wins: this run's output is discarded and says so") {
    char path[1024], want[1200];
    snprintf(path, sizeof path, "%s", rs_test_path("race.csv"));
    rs_test_write_text(path, "old\n");
    rs_err_t err = {0};
    /* replaced between the checks and the open (the open alone would not see it) */
    rs_out_begin();
    check_output(path);
    other_run_commits(path, "theirs\n");
    write_output(path, "mine\n");
    CU_ASSERT_EQUAL(rs_out_finish(true, &err), -1);
    snprintf(want, sizeof want, "%s: replaced by another run meanwhile: that run's output is kept, this run's is discarded", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    char *text = rs_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "theirs\n");
    free(text);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    /* missing at the checks, created meanwhile */
    remove(path);
    rs_out_begin();
    check_output(path);
    write_output(path, "mine\n");
    other_run_commits(path, "theirs\n");
    CU_ASSERT_EQUAL(rs_out_finish(true, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "race.csv: created by another run meanwhile"));
    text = rs_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "theirs\n");
    free(text);
    /* unchanged since the checks (and a target removed meanwhile): committed */
    rs_out_begin();
    check_output(path);
    write_output(path, "mine\n");
    CU_ASSERT_EQUAL(rs_out_finish(true, &err), 0);
    rs_out_begin();
    check_output(path);
    remove(path);
    write_output(path, "again\n");
    CU_ASSERT_EQUAL(rs_out_finish(true, &err), 0);
    text = rs_test_slurp(path, NULL);
    CU_ASSERT_STRING_EQUAL(text, "again\n");
    free(text);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    remove(path);
}

/* A commit of path's temporary f, expected to lose to another writer with how ("replaced",
 * "created"); what is there stays "theirs\n", no temporary is left. */
static void expect_lost(rs_file_t *f, bool partial, const char *shown, const char *there, const char *how) {
    rs_err_t err = {0};
    fputs("mine\n", f->fp);
    CU_ASSERT_EQUAL(partial ? rs_file_commit_partial(f, &err) : rs_file_commit(f, &err), -1);
    char want[1200];
    snprintf(want, sizeof want, "%s: %s by another run meanwhile: that run's output is kept, this run's is discarded", shown, how);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    char *text = rs_test_slurp(there, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "", "theirs\n");
    free(text);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
}

RS_TEST(test_every_commit_checked, "a partial commit and a commit outside a run lose to another run's commit meanwhile, as a pending one does") {
    char path[1024], partial[1100];
    snprintf(path, sizeof path, "%s", rs_test_path("p.csv"));
    rs_out_partial_name(path, partial, sizeof partial);
    rs_err_t err = {0};
    rs_file_t f;
    /* outside a run: replaced, or created, between the open and the commit */
    rs_test_write_text(path, "old\n");
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    other_run_commits(path, "theirs\n");
    expect_lost(&f, false, path, path, "replaced");
    remove(path);
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    other_run_commits(path, "theirs\n");
    expect_lost(&f, false, path, path, "created");
    /* a partial result (inside a run and outside): its NAME.partial.EXT created or replaced meanwhile */
    for (int in_run = 0; in_run < 2; in_run++) {
        remove(partial);
        if (in_run) rs_out_begin();
        CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
        other_run_commits(partial, "theirs\n");
        expect_lost(&f, true, partial, partial, "created");
        CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
        other_run_commits(partial, "theirs\n"); /* another file in its place */
        expect_lost(&f, true, partial, partial, "replaced");
        if (in_run) CU_ASSERT_EQUAL(rs_out_finish(true, &err), 0);
        char *text = rs_test_slurp(path, NULL);
        CU_ASSERT_STRING_EQUAL(text ? text : "", "theirs\n"); /* the complete output untouched */
        free(text);
    }
    /* nobody else wrote: a previous partial result is replaced, as the output is */
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    fputs("points\n", f.fp);
    CU_ASSERT_EQUAL(rs_file_commit_partial(&f, &err), 0);
    rs_test_expect_text(partial, "points\n");
    CU_ASSERT_EQUAL_FATAL(rs_file_open(&f, path, &err), 0);
    fputs("all\n", f.fp);
    CU_ASSERT_EQUAL(rs_file_commit(&f, &err), 0);
    rs_test_expect_text(path, "all\n");
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    remove(path), remove(partial);
}

RS_TEST(test_stage_race, "a staged folder is not merged into a folder another run committed into meanwhile") {
    char dir[1024], stage[1200], file[1300];
    rs_err_t err = {0};
    snprintf(dir, sizeof dir, "%s", rs_test_path("raced"));
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0777), 0);
    rs_out_begin();
    CU_ASSERT_EQUAL_FATAL(rs_out_stage_dir(dir, stage, sizeof stage, &err), 0);
    snprintf(file, sizeof file, "%s/report.md", stage);
    write_output(file, "mine\n");
    snprintf(file, sizeof file, "%s/report.md", dir);
    other_run_commits(file, "theirs\n"); /* a new entry: the folder's change time moves */
    CU_ASSERT_EQUAL(rs_out_stage_commit(stage, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "raced: replaced by another run meanwhile"));
    char *text = rs_test_slurp(file, NULL);
    CU_ASSERT_STRING_EQUAL(text, "theirs\n");
    free(text);
    struct stat st;
    CU_ASSERT_EQUAL(stat(stage, &st), -1);
    CU_ASSERT_EQUAL(rs_out_finish(false, NULL), 0);
    remove(file);
    rmdir(dir);
}

/* SIGTERM in a run: the children are ended, the temporaries removed, the process ends by the signal. */
RS_TEST(test_signal, "a signal removes the run's temporaries") {
    const pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0) {
        rs_err_t err = {0};
        rs_out_begin();
        rs_file_t f;
        if (rs_file_open(&f, rs_test_path("sig.csv"), &err) != 0) _exit(3);
        fputs("partial", f.fp);
        fflush(f.fp);
        raise(SIGTERM);
        _exit(4);
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
    CU_ASSERT_TRUE(WIFSIGNALED(status));
    CU_ASSERT_EQUAL(WTERMSIG(status), SIGTERM);
    CU_ASSERT_EQUAL(rs_test_temp_files(), 0);
    CU_ASSERT_EQUAL(rs_test_file_size(rs_test_path("sig.csv")), -1);
}

RS_TEST_PROGRAM_IN("output_run")
