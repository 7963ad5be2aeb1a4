/* bench_proc.h - run a benchmark's child process: wall time, CPU time and peak RSS of the process tree
 * (wait4), stdout captured. Shared by the benchmarks in bench/ (header-only, static). */
#ifndef RS_BENCH_PROC_H
#define RS_BENCH_PROC_H

#include <errno.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

typedef struct {
    double wall_s;     /* process wall time */
    double cpu_s;      /* user + system CPU time of the process tree (less sensitive to a busy machine) */
    long rss_bytes;    /* peak RSS of the process tree */
    double makespan_s; /* parsed from its output */
    double inner_s;    /* ringsim: sim_wall_s of the child; bare: its own wall_s */
} run_t;

/* Run argv, capturing stdout into buf (len bytes, NUL-terminated). Returns 0, or -1 if it could not
 * start or did not exit 0. */
static inline int run(char *const argv[], char *buf, size_t len, run_t *r) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    const double t0 = rs_now_s();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], buf + got, len - 1 - got)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0) got += (size_t)n;
    buf[got] = '\0';
    close(fds[0]);
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0) return -1;
    r->wall_s = rs_now_s() - t0;
    r->rss_bytes = ru.ru_maxrss * 1024L;
    r->cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
               1e-6 * (double)ru.ru_stime.tv_usec;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

#endif /* RS_BENCH_PROC_H */
