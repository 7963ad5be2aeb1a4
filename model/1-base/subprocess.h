/* subprocess.h - child processes: the one helper behind every fork, exec and wait of ringsim (the SimGrid
 * children, gnuplot, `ringsim exec` and `ringsim validate` subprocesses, the re-launch under mpirun),
 * each with a watchdog.
 *
 * A child runs either a program (argv; argv[0] is looked up in PATH when it has no '/') or a
 * function of this process (fn, after fork: for work that must not share the caller's state, such
 * as SimGrid, which initialises once per process and aborts on bad input). Its standard streams are
 * the caller's unless redirected. rs_spawn_wait reaps it; with a timeout it is sent SIGTERM, then
 * SIGKILL 0.5 s later, and reported as timed out - the whole process group when the child leads
 * its own (new_group: mpirun and its ranks go together).
 *
 * Every child is bounded and tied to this process:
 *  - the bound: a child for which the caller sets no timeout (0) still gets the process's child bound
 *    (rs_spawn_bound_s: RINGSIM_CHILD_TIMEOUT_S when it is a number in [0, 1e9] - 0: none -, else the
 *    larger of 3600 s and twice the command's --max-time), after which it is ended as above and reported as timed out;
 *  - its life: the child gets SIGTERM when this process dies (PR_SET_PDEATHSIG, checked right after
 *    the fork so a parent that died in between is noticed), so that a killed ringsim leaves no
 *    running job behind (mpirun, on SIGTERM, ends its ranks); SIGINT/SIGTERM/SIGHUP to this process
 *    end its children as well (output.h, rule 3).
 */
#ifndef RS_SUBPROCESS_H
#define RS_SUBPROCESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "util.h"

#define RS_SPAWN_INHERIT (-1) /* a stream left as the caller's */
#define RS_SPAWN_NULL (-2)    /* a stream to /dev/null */

typedef struct {
    char *const *argv;      /* the program and its arguments, NULL-terminated; NULL: run fn instead */
    int (*fn)(void *arg);   /* run in the forked child when argv is NULL; its return is the exit status */
    void *arg;              /* fn's argument */
    int stdin_fd;           /* RS_SPAWN_INHERIT, RS_SPAWN_NULL or a descriptor to read from */
    int stdout_fd;          /* RS_SPAWN_INHERIT, RS_SPAWN_NULL or a descriptor to write to */
    int stderr_fd;          /* likewise */
    const char *output_path;/* non-NULL: stdout and stderr both to this file (created or truncated) */
    bool new_group;         /* the child leads a new process group (a timeout ends the group) */
    const char *const *drop_env; /* NULL-terminated prefixes of environment variables the child must not
                                    see (e.g. the launcher's "OMPI_", "PMI"): NULL keeps all */
} rs_spawn_t;

/* rs_spawn_t with every stream inherited, no function, no new group. Can't fail. */
void rs_spawn_init(rs_spawn_t *sp);

typedef struct {
    pid_t pid;              /* the child */
    bool group;             /* it leads its own process group */
    double t0_s;            /* rs_now_s() at the fork */
    struct rs_watchdog *wd; /* rs_spawn_watchdog's, or NULL */
} rs_child_t;

typedef struct {
    int exit_code;          /* exit status when it exited, else -1 */
    int term_signal;        /* the signal that ended it (0: it exited) */
    bool timed_out;         /* the watchdog ended it */
    double timeout_s;       /* timed_out: the limit it ran into, seconds (the caller's or the bound) */
    double wall_s;          /* fork to reap, seconds */
    long peak_rss_bytes;    /* its peak resident set (wait4: the child and its reaped children) */
    double cpu_s;           /* its user + system CPU time, likewise */
} rs_child_status_t;

/* Fork the child (flushes stdio first so nothing is written twice). Returns 0, or -1 with err
 * ("cannot start gnuplot: ...": what names the child in messages). A program that cannot be
 * executed exits 127. */
int rs_spawn_start(const rs_spawn_t *sp, const char *what, rs_child_t *child, rs_err_t *err);
/* Wait for the child; after timeout_s seconds (<= 0: no limit) end it as above. Fills st. Returns 0
 * when it was reaped (whatever its status), -1 with err if waiting itself failed. */
int rs_spawn_wait(rs_child_t *child, double timeout_s, rs_child_status_t *st, rs_err_t *err);
/* A watchdog for a caller that blocks on the child (reading its pipe) before it waits: timeout_s
 * seconds after the fork the child (its group) gets SIGTERM, then SIGKILL 0.5 s later, which ends
 * the caller's read; rs_spawn_wait then reports timed_out (with any timeout of its own). A thread
 * of this process sleeps until then; rs_spawn_wait stops it. Returns 0 or -1 with err. */
int rs_spawn_watchdog(rs_child_t *child, double timeout_s, rs_err_t *err);
/* Start and wait. Returns 0 when the child ran and was reaped (check st), or -1 with err. */
int rs_spawn_run(const rs_spawn_t *sp, const char *what, double timeout_s, rs_child_status_t *st, rs_err_t *err);
/* The bound of a child without a timeout of its own, seconds (see above; 0: none, when
 * RINGSIM_CHILD_TIMEOUT_S=0). Can't fail. */
double rs_spawn_bound_s(void);
/* The command's --max-time (rs_limits_check calls this): the bound is at least twice it. Can't fail. */
void rs_spawn_bound_note(double max_time_s);
/* One line describing how it ended: "exit 2", "killed by Segmentation fault", "timeout after 60 s".
 * Returns buf. */
const char *rs_child_status_text(const rs_child_status_t *st, double timeout_s, char *buf, size_t len);

#endif /* RS_SUBPROCESS_H */
