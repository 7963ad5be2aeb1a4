/* test_subprocess.c - the child-process helper (model/1-base/subprocess.h): exit codes, signals,
 * the watchdog on a child that does not end (and on its process group), output redirection, a
 * function run in the child, and the launcher's environment kept from it. */
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "subprocess.h"
#include "test_main.h"

static int run(char *const *argv, double timeout_s, rs_child_status_t *st) {
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.argv = argv;
    sp.stdout_fd = sp.stderr_fd = RS_SPAWN_NULL;
    rs_err_t err = {0};
    return rs_spawn_run(&sp, "test child", timeout_s, st, &err);
}

RS_TEST(test_exit_codes, "exit_codes") {
    rs_child_status_t st;
    char *ok[] = {"true", NULL}, *bad[] = {"sh", "-c", "exit 3", NULL}, *none[] = {"/no/such/program", NULL};
    CU_ASSERT_EQUAL(run(ok, 0, &st), 0);
    CU_ASSERT_EQUAL(st.exit_code, 0);
    CU_ASSERT_EQUAL(run(bad, 10, &st), 0);
    CU_ASSERT_EQUAL(st.exit_code, 3);
    CU_ASSERT_FALSE(st.timed_out);
    CU_ASSERT_EQUAL(run(none, 0, &st), 0);
    CU_ASSERT_EQUAL(st.exit_code, 127);
    char *killed[] = {"sh", "-c", "kill -SEGV $$", NULL}, buf[64];
    CU_ASSERT_EQUAL(run(killed, 0, &st), 0);
    CU_ASSERT_EQUAL(st.term_signal, SIGSEGV);
    CU_ASSERT_EQUAL(st.exit_code, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_child_status_text(&st, 0, buf, sizeof buf), "killed by"));
}

/* true while pid runs (a zombie waiting for a reaper that this container's init may never be has
 * ended: /proc says 'Z'). */
static bool alive(int pid) {
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *fp = fopen(path, "r");
    if (!fp) return false;
    size_t n = fread(stat, 1, sizeof stat - 1, fp);
    fclose(fp);
    stat[n] = 0;
    const char *close_paren = strrchr(stat, ')');
    return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z';
}

/* A child that sleeps past its timeout ends within about the timeout and the TERM/KILL grace; with
 * a new group its own child goes too. */
RS_TEST(test_watchdog, "watchdog") {
    rs_child_status_t st;
    char *slow[] = {"sleep", "30", NULL}, buf[64];
    double t0 = rs_now_s();
    CU_ASSERT_EQUAL(run(slow, 0.2, &st), 0);
    CU_ASSERT(st.timed_out);
    CU_ASSERT(rs_now_s() - t0 < 5);
    CU_ASSERT_STRING_EQUAL(rs_child_status_text(&st, 0.2, buf, sizeof buf), "timeout after 0.2 s");
    char pidfile[] = "/tmp/ringsim-test-subprocess-XXXXXX";
    int fd = mkstemp(pidfile);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    char script[256];
    snprintf(script, sizeof script, "sleep 30 & echo $! > %s; wait", pidfile);
    char *tree[] = {"sh", "-c", script, NULL};
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.argv = tree;
    sp.new_group = true;
    rs_err_t err;
    CU_ASSERT_EQUAL(rs_spawn_run(&sp, "test tree", 0.3, &st, &err), 0);
    CU_ASSERT(st.timed_out);
    FILE *fp = fopen(pidfile, "r");
    int grandchild = 0;
    CU_ASSERT(fp && fscanf(fp, "%d", &grandchild) == 1);
    if (fp) fclose(fp);
    remove(pidfile);
    struct timespec nap = {0, 100000000};
    nanosleep(&nap, NULL);
    CU_ASSERT(grandchild > 0 && !alive(grandchild)); /* the whole group is gone */
}

/* A child for which the caller sets no timeout is ended at the child bound (RINGSIM_CHILD_TIMEOUT_S;
 * else the larger of 3600 s and twice the command's --max-time), and says after how long. */
RS_TEST(test_child_bound, "a child without a timeout ends at the child bound") {
    rs_child_status_t st;
    char *slow[] = {"sleep", "30", NULL}, buf[64];
    setenv("RINGSIM_CHILD_TIMEOUT_S", "0.3", 1);
    const double t0 = rs_now_s();
    CU_ASSERT_EQUAL(run(slow, 0, &st), 0);
    CU_ASSERT(st.timed_out);
    CU_ASSERT_DOUBLE_EQUAL(st.timeout_s, 0.3, 1e-9);
    CU_ASSERT(rs_now_s() - t0 < 5);
    CU_ASSERT_STRING_EQUAL(rs_child_status_text(&st, 0, buf, sizeof buf), "timeout after 0.3 s");
    /* a timeout of the caller's own replaces the bound, longer or shorter */
    setenv("RINGSIM_CHILD_TIMEOUT_S", "60", 1);
    CU_ASSERT_EQUAL(run(slow, 0.2, &st), 0);
    CU_ASSERT(st.timed_out);
    CU_ASSERT_STRING_EQUAL(rs_child_status_text(&st, 0.2, buf, sizeof buf), "timeout after 0.2 s");
    unsetenv("RINGSIM_CHILD_TIMEOUT_S");
    CU_ASSERT_DOUBLE_EQUAL(rs_spawn_bound_s(), 3600, 0);
    rs_spawn_bound_note(600);
    CU_ASSERT_DOUBLE_EQUAL(rs_spawn_bound_s(), 3600, 0);
    rs_spawn_bound_note(7200); /* --max-time 7200: twice it */
    CU_ASSERT_DOUBLE_EQUAL(rs_spawn_bound_s(), 14400, 0);
    setenv("RINGSIM_CHILD_TIMEOUT_S", "0", 1); /* 0: no bound */
    CU_ASSERT_DOUBLE_EQUAL(rs_spawn_bound_s(), 0, 0);
    unsetenv("RINGSIM_CHILD_TIMEOUT_S");
}

static int child_fn(void *arg) { return *(int *)arg + 1; }

/* A function in the child, output into a file, and OMPI_ variables kept from the child. */
RS_TEST(test_fn_output_env, "fn_output_env") {
    int v = 41;
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.fn = child_fn;
    sp.arg = &v;
    rs_child_status_t st;
    rs_err_t err;
    CU_ASSERT_EQUAL(rs_spawn_run(&sp, "test fn", 0, &st, &err), 0);
    CU_ASSERT_EQUAL(st.exit_code, 42);
    char out[] = "/tmp/ringsim-test-subprocess-out-XXXXXX";
    int fd = mkstemp(out);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    setenv("RINGSIM_TEST_KEEP", "yes", 1);
    const char *drop[] = {"OMPI_", NULL};
    char *env[] = {"sh", "-c", "echo size=${OMPI_COMM_WORLD_SIZE:-none} keep=$RINGSIM_TEST_KEEP; echo err >&2", NULL};
    rs_spawn_init(&sp);
    sp.argv = env;
    sp.output_path = out;
    sp.drop_env = drop;
    CU_ASSERT_EQUAL(rs_spawn_run(&sp, "test env", 10, &st, &err), 0);
    CU_ASSERT_EQUAL(st.exit_code, 0);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("RINGSIM_TEST_KEEP");
    char text[128] = "";
    FILE *fp = fopen(out, "r");
    size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    text[n] = 0;
    if (fp) fclose(fp);
    remove(out);
    CU_ASSERT_STRING_EQUAL(text, "size=none keep=yes\nerr\n");
}

RS_TEST_PROGRAM("subprocess")
