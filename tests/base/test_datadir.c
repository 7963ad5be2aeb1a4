/* test_datadir.c - the installed data directory (datadir.c): none in a build tree; found relative to
 * the program in an installation's layout (<bindir>/RS_DATADIR_FROM_BINDIR holding plots/style.gp),
 * by a copy of this test program run from such a layout, and moved with it. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"
#include "harness.h"
#include "test_main.h"

/* When run with --probe: print what this copy finds, one line each. */
static int probe(void) {
    char buf[PATH_MAX + 32];
    const char *d = rs_data_dir();
    printf("%s\n%s\n", d ? d : "(none)", rs_data_path(buf, sizeof buf, "profiles") ? buf : "(none)");
    return 0;
}

RS_TEST(test_build_tree_has_none, "a build tree has no data directory") {
    char buf[64] = "untouched";
    CU_ASSERT_PTR_NULL(rs_data_dir());
    CU_ASSERT_PTR_NULL(rs_data_path(buf, sizeof buf, "profiles"));
    CU_ASSERT_STRING_EQUAL(buf, "untouched");
}

/* mkdir -p path. */
static void make_dirs(const char *path) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') *s = 0, mkdir(p, 0777), *s = '/';
    mkdir(p, 0777);
}

/* A copy of this program in <prefix>/bin with the data directory beside it finds it. */
RS_TEST(test_installed_layout, "an installation's layout is found from its program") {
    char bin[1024], data[2048], exe[1024], copy[1100], cmd[4096], real[PATH_MAX];
    snprintf(bin, sizeof bin, "%s/prefix/bin", rs_test_dir);
    make_dirs(bin);
    snprintf(data, sizeof data, "%s/%s/plots", bin, RS_TEST_DATADIR_FROM_BINDIR);
    make_dirs(data);
    snprintf(data, sizeof data, "%s/%s/plots/style.gp", bin, RS_TEST_DATADIR_FROM_BINDIR);
    rs_test_write_text(data, "# style\n");
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CU_ASSERT_FATAL(n > 0);
    exe[n] = 0;
    snprintf(copy, sizeof copy, "%s/test_datadir", bin);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && '%s' --probe", exe, copy, copy);
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char line1[PATH_MAX + 64] = "", line2[PATH_MAX + 64] = "";
    CU_ASSERT_PTR_NOT_NULL(fgets(line1, sizeof line1, p));
    CU_ASSERT_PTR_NOT_NULL(fgets(line2, sizeof line2, p));
    CU_ASSERT_EQUAL(pclose(p), 0);
    snprintf(data, sizeof data, "%s/%s", bin, RS_TEST_DATADIR_FROM_BINDIR);
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(data, real));
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "%s\n", real);
    CU_ASSERT_STRING_EQUAL(line1, want);
    snprintf(want, sizeof want, "%s/profiles\n", real);
    CU_ASSERT_STRING_EQUAL(line2, want);
    /* without plots/style.gp it is not a data directory */
    snprintf(data, sizeof data, "%s/%s/plots/style.gp", bin, RS_TEST_DATADIR_FROM_BINDIR);
    remove(data);
    snprintf(cmd, sizeof cmd, "'%s' --probe", copy);
    p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_PTR_NOT_NULL(fgets(line1, sizeof line1, p));
    pclose(p);
    CU_ASSERT_STRING_EQUAL(line1, "(none)\n");
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--probe")) return probe();
    static const rs_test_program_t program = {.suite = "datadir", .scratch = "datadir"};
    return rs_test_run(&program);
}
