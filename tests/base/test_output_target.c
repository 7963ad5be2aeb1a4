/* test_output_target.c - where the bytes of an output path go (output_target.c): a path split into
 * folder and name and joined again, links followed to their target (relative, absolute, chains, a
 * loop), a descriptor of this process recognised, the refusals' phrases, and a temporary placed by
 * rename or written into a device; a file moved by rename, and by a copy across file systems. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "output_target.h"
#include "test_main.h"

RS_TEST(test_split_join, "a path split and joined") {
    char dir[PATH_MAX], name[NAME_MAX + 1], out[PATH_MAX];
    CU_ASSERT_TRUE(out_split_path("a/b/c.csv", dir, name));
    CU_ASSERT_STRING_EQUAL(dir, "a/b");
    CU_ASSERT_STRING_EQUAL(name, "c.csv");
    CU_ASSERT_TRUE(out_split_path("c.csv", dir, name));
    CU_ASSERT_STRING_EQUAL(dir, ".");
    CU_ASSERT_STRING_EQUAL(name, "c.csv");
    CU_ASSERT_TRUE(out_split_path("/c.csv", dir, name));
    CU_ASSERT_STRING_EQUAL(dir, "/");
    CU_ASSERT_STRING_EQUAL(name, "c.csv");
    CU_ASSERT_TRUE(out_split_path("d/", dir, name));
    CU_ASSERT_STRING_EQUAL(name, "");
    char longname[NAME_MAX + 8];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CU_ASSERT_FALSE(out_split_path(longname, dir, name)); /* a name longer than NAME_MAX */
    CU_ASSERT_TRUE(out_join(out, "/", "x"));
    CU_ASSERT_STRING_EQUAL(out, "/x");
    CU_ASSERT_TRUE(out_join(out, "/tmp", "x"));
    CU_ASSERT_STRING_EQUAL(out, "/tmp/x");
}

static void expect_why(const char *path, const char *want) {
    out_target_t t;
    char why[PATH_MAX + 128];
    CU_ASSERT_EQUAL(out_resolve(path, &t, why, sizeof why), -1);
    if (strcmp(why, want)) fprintf(stderr, "  %s: got '%s', want '%s'\n", path, why, want);
    CU_ASSERT_STRING_EQUAL(why, want);
}

RS_TEST(test_resolve, "links followed, devices and descriptors told apart, the refusals' phrases") {
    char real[PATH_MAX], want[PATH_MAX + 16], a[1024], b[1024], c[1024];
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(rs_test_dir, real));
    snprintf(a, sizeof a, "%s", rs_test_path("a"));
    snprintf(b, sizeof b, "%s", rs_test_path("b"));
    snprintf(c, sizeof c, "%s", rs_test_path("c.csv"));
    CU_ASSERT_EQUAL_FATAL(symlink("b", a), 0);       /* a -> b (relative) */
    CU_ASSERT_EQUAL_FATAL(symlink(c, b), 0);         /* b -> c.csv (absolute), which does not exist yet */
    out_target_t t;
    char why[PATH_MAX + 128];
    CU_ASSERT_EQUAL(out_resolve(a, &t, why, sizeof why), 0);
    snprintf(want, sizeof want, "%s/c.csv", real);
    CU_ASSERT_STRING_EQUAL(t.target, want);
    CU_ASSERT_STRING_EQUAL(t.dir, real);
    CU_ASSERT_EQUAL(t.kind, OUT_KIND_FILE);
    CU_ASSERT_FALSE(t.exists); /* a new file */
    rs_test_write_text(c, "x");
    CU_ASSERT_EQUAL(out_resolve(a, &t, why, sizeof why), 0);
    CU_ASSERT_TRUE(t.exists);
    CU_ASSERT_EQUAL(t.st.st_size, 1);
    CU_ASSERT_EQUAL(out_writable(&t, why, sizeof why), 0);
    CU_ASSERT_EQUAL(out_resolve("/dev/null", &t, why, sizeof why), 0);
    CU_ASSERT_EQUAL(t.kind, OUT_KIND_DEVICE);
    const int fd = open("/dev/null", O_WRONLY);
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    CU_ASSERT_EQUAL(out_resolve(self, &t, why, sizeof why), 0);
    CU_ASSERT_EQUAL(t.kind, OUT_KIND_FD);
    CU_ASSERT_EQUAL(t.fd, fd);
    close(fd);
    const int ro = open("/dev/null", O_RDONLY);
    snprintf(self, sizeof self, "/proc/self/fd/%d", ro);
    char phrase[64];
    snprintf(phrase, sizeof phrase, "descriptor %d is not open for writing", ro);
    expect_why(self, phrase);
    close(ro);
    /* the refusals */
    expect_why("", "empty path");
    expect_why(rs_test_dir, "is a directory");
    expect_why("/nonexistent-dir/x", "folder /nonexistent-dir does not exist");
    char under[1100];
    snprintf(under, sizeof under, "%s/x", c); /* a file's "child" */
    expect_why(under, "cannot access: Not a directory");
    snprintf(under, sizeof under, "%s/x/y", c); /* a folder under a file */
    snprintf(want, sizeof want, "%s/x is not a folder", c);
    expect_why(under, want);
    remove(b); /* a loop: b -> a -> b */
    CU_ASSERT_EQUAL_FATAL(symlink("a", b), 0);
    expect_why(a, "too many levels of symbolic links");
    remove(a), remove(b), remove(c);
}

RS_TEST(test_place, "a temporary renamed over, written into a device, removed on failure") {
    char tmp[1024], target[1024];
    snprintf(tmp, sizeof tmp, "%s", rs_test_path("t.tmp.1.0.ringsim"));
    snprintf(target, sizeof target, "%s", rs_test_path("t.csv"));
    rs_test_write_text(tmp, "abc");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(out_place(tmp, target, "t.csv", OUT_KIND_FILE, -1, &err), 0);
    CU_ASSERT_EQUAL(rs_test_file_size(target), 3);
    CU_ASSERT_EQUAL(access(tmp, F_OK), -1); /* the temporary is gone */
    rs_test_write_text(tmp, "abc");
    CU_ASSERT_EQUAL(out_place(tmp, "/dev/null", "/dev/null", OUT_KIND_DEVICE, -1, &err), 0);
    CU_ASSERT_EQUAL(access(tmp, F_OK), -1);
    rs_test_write_text(tmp, "abc");
    CU_ASSERT_EQUAL(out_place(tmp, "/nonexistent-dir/t.csv", "t.csv", OUT_KIND_FILE, -1, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "t.csv: cannot rename the temporary file: No such file or directory");
    CU_ASSERT_EQUAL(access(tmp, F_OK), -1); /* removed on failure too */
    remove(target);
}

RS_TEST(test_move, "a file moved: renamed on one file system, copied (and removed) across two") {
    char from[1024], to[1024];
    snprintf(from, sizeof from, "%s", rs_test_path("m.src"));
    snprintf(to, sizeof to, "%s", rs_test_path("m.dst"));
    rs_test_write_text(from, "moved\n");
    rs_test_write_text(to, "a longer old content\n");
    CU_ASSERT_EQUAL(out_move(from, to), 0);
    rs_test_expect_text(to, "moved\n");
    CU_ASSERT_EQUAL(access(from, F_OK), -1);
    /* across file systems (/dev/shm is a tmpfs where it exists): the bytes copied over a longer file */
    struct stat a, b;
    char shm[64];
    snprintf(shm, sizeof shm, "/dev/shm/ringsim-test-move.%ld", (long)getpid());
    const bool cross = stat("/dev/shm", &a) == 0 && stat(to, &b) == 0 && a.st_dev != b.st_dev;
    if (!cross) {
        printf("skipped: no second file system at /dev/shm ");
    } else {
        rs_test_write_text(to, "a longer old content\n");
        rs_test_write_text(shm, "copied\n");
        CU_ASSERT_EQUAL(out_move(shm, to), 0);
        rs_test_expect_text(to, "copied\n");
        CU_ASSERT_EQUAL(access(shm, F_OK), -1); /* the source removed */
    }
    CU_ASSERT_EQUAL(out_move(from, to), -1); /* no source: errno, nothing touched */
    rs_test_expect_text(to, cross ? "copied\n" : "moved\n");
    remove(to), remove(shm);
}

RS_TEST_PROGRAM_IN("output_target")
