/* bench_proc.h - what the benchmarks in bench/ share (header-only, static): the h100-sxm profile's
 * machine, and a child process run with its wall time, CPU time and peak RSS of the process tree
 * (rs_spawn), stdout captured. */
#ifndef RS_BENCH_PROC_H
#define RS_BENCH_PROC_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "machine.h"
#include "profile.h"
#include "subprocess.h"
#include "util.h"

/* The h100-sxm profile's bf16 machine into m. Returns 0, or -1 with the message on stderr after
 * prefix. */
static inline int bench_h100_machine(const char *prefix, rs_machine_t *m) {
    rs_hw_t hw;
    rs_err_t err;
    if (rs_hw_load("h100-sxm", &hw, &err) == 0 && rs_machine_from_hw(&hw, RS_DTYPE_BF16, m, &err) == 0) return 0;
    fprintf(stderr, "%s%s\n", prefix, err.msg);
    return -1;
}

typedef struct {
    double wall_s;     /* process wall time */
    double cpu_s;      /* user + system CPU time of the process tree (less sensitive to a busy machine) */
    long rss_bytes;    /* peak RSS of the process tree */
    double makespan_s; /* parsed from its output */
    double inner_s;    /* ringsim: sim_wall_s of the child; bare: its own wall_s */
} run_t;

/* Run argv, capturing stdout into buf (len bytes, NUL-terminated), through the one child-process
 * helper (rs_spawn). Returns 0, or -1 if it could not start or did not exit 0. */
static inline int run(char *const argv[], char *buf, size_t len, run_t *r) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.argv = argv;
    sp.stdout_fd = fds[1];
    rs_child_t child;
    rs_err_t err;
    if (rs_spawn_start(&sp, argv[0], &child, &err) != 0) {
        close(fds[0]), close(fds[1]);
        return -1;
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], buf + got, len - 1 - got)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0) got += (size_t)n;
    buf[got] = '\0';
    close(fds[0]);
    rs_child_status_t st;
    if (rs_spawn_wait(&child, 0, &st, &err) != 0) return -1;
    r->wall_s = st.wall_s;
    r->rss_bytes = st.peak_rss_bytes;
    r->cpu_s = st.cpu_s;
    return st.exit_code == 0 ? 0 : -1;
}

#endif /* RS_BENCH_PROC_H */
