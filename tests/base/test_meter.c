/* test_progress.c - progress on a terminal (model/1-base/meter.h), checked through a
 * pseudo-terminal (forkpty): `ringsim sim` shows simulated time and rank-steps with the time left,
 * from its SimGrid child's progress records; sweep its points; report its phases; calibrate and
 * validate their points (under mpirun too: the ranks learn it from RINGSIM_METER). Nothing of it
 * reaches a pipe, and nothing with -q. The meter's line is erased before the command's own output. */
#define _DEFAULT_SOURCE /* forkpty */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "meter.h"
#include "test_main.h"
#include "harness.h"

static char pty_out[1 << 20];

/* Run `ringsim ARGS` (shell words) in the scratch directory on a pseudo-terminal of 80 columns
 * (stdout and stderr both): what it wrote into pty_out. Returns its exit code; -1 when it was
 * killed (300 s at most). */
static int run_pty(const char *args) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec %s/bin/ringsim %s", RS_BINARY_DIR, args);
    struct winsize ws = {.ws_row = 24, .ws_col = 80};
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, &ws);
    if (pid < 0) return -1;
    if (pid == 0) {
        if (chdir(rs_test_dir) != 0) _exit(127);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    size_t n = 0;
    const double t0 = rs_now_s();
    for (;;) {
        struct pollfd p = {master, POLLIN, 0};
        if (rs_now_s() - t0 > 300) {
            kill(pid, SIGKILL);
            break;
        }
        if (poll(&p, 1, 1000) <= 0) continue;
        ssize_t r = read(master, pty_out + n, sizeof pty_out - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break; /* EIO: the child closed its side */
        n += (size_t)r;
    }
    pty_out[n] = 0;
    close(master);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The meter's drawings of `what` in out: "\r\033[K<what> D/T unit (P%)". Fills done[], total and
 * pct[] (at most max); returns how many. */
static int drawings(const char *out, const char *what, double *done, double *total, int *pct, int max) {
    char key[128];
    snprintf(key, sizeof key, "\r\033[K%s ", what);
    int k = 0;
    for (const char *p = strstr(out, key); p && k < max; p = strstr(p + 1, key)) {
        double d, t;
        int pc;
        char unit[32];
        if (sscanf(p + strlen(key), "%lf/%lf %31s (%d%%)", &d, &t, unit, &pc) == 4) {
            done[k] = d, pct[k] = pc, *total = t;
            k++;
        }
    }
    return k;
}

/* sim: rank-steps that grow to the total (N x steps), percentages that match them, the time left and
 * the simulated time; the line is erased before the notes and the table. */
RS_TEST(test_sim_on_pty, "sim on a terminal: rank-steps, time left, simulated time") {
    CU_ASSERT_EQUAL(run_pty("sim -N 640 -S 1280K -L zigzag -P forward"), 0);
    double done[4096], total = 0;
    int pct[4096];
    const int k = drawings(pty_out, "sim zigzag forward N=640", done, &total, pct, 4096);
    if (k < 2) fprintf(stderr, "  %d drawings in: %.300s\n", k, pty_out);
    /* the start, then the child's records every 0.2 s: a run of 1-2 s on a quiet machine gives at
     * least one (how many more depends on the machine's speed) */
    CU_ASSERT(k >= 2);
    CU_ASSERT(k < 2 || done[k - 1] > 0);
    CU_ASSERT_EQUAL(total, 640.0 * 640.0);
    for (int i = 0; i < k; i++) {
        CU_ASSERT(done[i] >= 0 && done[i] <= total);
        CU_ASSERT(i == 0 || done[i] >= done[i - 1]);
        CU_ASSERT(abs(pct[i] - (int)(100 * done[i] / total + 0.5)) <= 1);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(pty_out, " left, "));
    CU_ASSERT_PTR_NOT_NULL(strstr(pty_out, " simulated"));
    /* erased, then the kernel curves' note (one line), then the table */
    const char *note = strstr(pty_out, "\r\033[Kringsim: note: kernel "), *nl = note ? strchr(note, '\n') : NULL;
    CU_ASSERT_PTR_NOT_NULL(note);
    CU_ASSERT(nl && !strncmp(nl + 1, "# ringsim sim:", 14));
    CU_ASSERT_PTR_NOT_NULL(strstr(pty_out, "zigzag     forward"));
}

/* The same on pipes, and with -q on the terminal: no meter; the same table. */
RS_TEST(test_sim_quiet_and_pipes, "sim on pipes and with -q: no meter") {
    CU_ASSERT_EQUAL(rs_test_ringsim("sim -N 192 -S 384K -L zigzag -P forward"), 0);
    CU_ASSERT_PTR_NULL(strchr(rs_test_err, '\r'));
    CU_ASSERT_PTR_NULL(strstr(rs_test_err, "rank-steps ("));
    CU_ASSERT_PTR_NULL(strchr(rs_test_out, '\r'));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "zigzag     forward"));
    CU_ASSERT_EQUAL(run_pty("sim -q -N 192 -S 384K -L zigzag -P forward"), 0);
    CU_ASSERT_PTR_NULL(strstr(pty_out, "rank-steps ("));
    CU_ASSERT_PTR_NULL(strstr(pty_out, "\033[K"));
    CU_ASSERT_PTR_NOT_NULL(strstr(pty_out, "zigzag     forward"));
}

/* sweep: its points; report: its phases in order, nested meters after them. */
RS_TEST(test_sweep_and_report, "sweep points; report phases, nested") {
    CU_ASSERT_EQUAL(run_pty("sweep --block 64:4K:x2 -N 2:8:x2 -o s.csv"), 0);
    double done[1024], total = 0;
    int pct[1024];
    const int k = drawings(pty_out, "sweep", done, &total, pct, 1024);
    CU_ASSERT(k >= 1);
    CU_ASSERT_EQUAL(total, 7 * 3); /* 7 B values x 3 N values */
    CU_ASSERT_PTR_NOT_NULL(strstr(pty_out, "21 points written"));
    /* the full sweeps (not --quick): an inner meter shorter than the draw period (0.1 s) is never
     * drawn (by design: no flicker), and --quick's sweeps take less than that on a fast machine */
    CU_ASSERT_EQUAL(run_pty("report --no-exec --no-figures -S 16K -N 4 -o rep --force"), 0);
    const char *p1 = strstr(pty_out, "report [1/6] model"), *p2 = strstr(pty_out, "report [2/6] sweeps");
    const char *p6 = strstr(pty_out, "report [6/6] report.md");
    if (!p1 || !p2 || !p6) fprintf(stderr, "  phases missing in: %.400s\n", pty_out);
    CU_ASSERT(p1 && p2 && p6 && p1 < p2 && p2 < p6);
    CU_ASSERT_PTR_NOT_NULL(strstr(pty_out, "[2/6] sweeps | sweep ")); /* the sweep's meter nested in the report's */
    CU_ASSERT_EQUAL(rs_test_ringsim("report --quick --no-exec --no-figures -S 16K -N 4 -o rep2 --force"), 0);
    CU_ASSERT_PTR_NULL(strstr(rs_test_err, "report ["));
    CU_ASSERT_PTR_NULL(strchr(rs_test_err, '\r'));
}

/* calibrate (under mpirun when it is on PATH: rank 0 draws through mpirun's forwarding) and
 * validate (one device playing each rank): their points. */
RS_TEST(test_calibrate_and_validate, "calibrate (mpirun) and validate points") {
#ifdef RINGSIM_HAVE_EXEC
    CU_ASSERT_EQUAL(run_pty("calibrate --out c.json --blocks 64,128 --min-time 0.005"), 0);
    double done[1024], total = 0;
    int pct[1024];
    int k = drawings(pty_out, "calibrate", done, &total, pct, 1024);
    if (k < 1) fprintf(stderr, "  no calibrate meter in: %.400s\n", pty_out);
    CU_ASSERT(k >= 1);
    CU_ASSERT_EQUAL(total, 5 * 2 + 2 * 2); /* 5 kernel rounds x 2 blocks, then transport and overlap per block */
    CU_ASSERT_EQUAL(rs_test_ringsim("calibrate --out c2.json --blocks 64,128 --min-time 0.005"), 0);
    CU_ASSERT_PTR_NULL(strstr(rs_test_err, "calibrate 0/"));
    CU_ASSERT_EQUAL(run_pty("validate --loopback local -N 4 --blocks 16,32,64 --rounds 1 --reps 1 --min-time 0.005 "
                            "--head-dim 32"),
                    0);
    k = drawings(pty_out, "validate", done, &total, pct, 1024);
    if (k < 1) fprintf(stderr, "  no validate meter in: %.400s\n", pty_out);
    CU_ASSERT(k >= 1);
    CU_ASSERT_EQUAL(total, (1 + 1) * 3); /* 1 round of 3 B measured, then 3 predicted */
#else
    fprintf(stderr, "  (this build has no executor: calibrate and validate not checked)\n");
#endif
}

RS_TEST(test_duration, "durations for people") {
    char b[32];
    CU_ASSERT_STRING_EQUAL(rs_meter_duration(0.4, b, sizeof b), "0 s");
    CU_ASSERT_STRING_EQUAL(rs_meter_duration(59.4, b, sizeof b), "59 s");
    CU_ASSERT_STRING_EQUAL(rs_meter_duration(200, b, sizeof b), "3 min 20 s");
    CU_ASSERT_STRING_EQUAL(rs_meter_duration(7500, b, sizeof b), "2 h 05 min");
    CU_ASSERT_STRING_EQUAL(rs_meter_duration(-1, b, sizeof b), "?");
}

RS_TEST_PROGRAM_IN("progress")
