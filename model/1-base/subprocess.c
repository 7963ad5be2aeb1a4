/* subprocess.c - child processes with a watchdog (subprocess.h). */
#define _GNU_SOURCE /* wait4(): the child's own rusage; prctl */
#include "subprocess.h"

#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void rs_spawn_init(rs_spawn_t *sp) {
    memset(sp, 0, sizeof *sp);
    sp->stdin_fd = sp->stdout_fd = sp->stderr_fd = RS_SPAWN_INHERIT;
}

/* In the child: put fd (or /dev/null) on target. */
static void child_stream(int fd, int target) {
    if (fd == RS_SPAWN_INHERIT) return;
    if (fd == RS_SPAWN_NULL) fd = open("/dev/null", target == 0 ? O_RDONLY : O_WRONLY);
    if (fd >= 0 && fd != target) dup2(fd, target);
}

/* In the child: drop the environment variables that start with one of the prefixes. */
static void child_drop_env(const char *const *prefixes) {
    for (int again = 1; again && prefixes;) {
        again = 0;
        for (char **e = environ; e && *e; e++)
            for (const char *const *p = prefixes; *p; p++)
                if (strncmp(*e, *p, strlen(*p)) == 0) {
                    char name[256];
                    size_t len = strcspn(*e, "=");
                    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), *e);
                    unsetenv(name); /* environ changed under us: scan it again */
                    again = 1;
                    break;
                }
    }
}

/* The bound of children without a timeout of their own (subprocess.h). */
static double bound_max_time_s = 0;

void rs_spawn_bound_note(double max_time_s) {
    if (max_time_s > bound_max_time_s) bound_max_time_s = max_time_s;
}

double rs_spawn_bound_s(void) {
    const char *e = getenv("RINGSIM_CHILD_TIMEOUT_S");
    double t = 0;
    if (e && *e && rs_parse_double("RINGSIM_CHILD_TIMEOUT_S", e, 0, 1e9, &t, NULL) == 0) return t;
    return 2 * bound_max_time_s > 3600 ? 2 * bound_max_time_s : 3600;
}

/* The child's side of the fork: never returns. parent: the PID that forked it. */
static void child_main(const rs_spawn_t *sp, pid_t parent) {
    rs_out_forget(); /* the parent's run is not this process's: its signals end it plainly */
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* dies with the parent (a child of a killed ringsim runs on otherwise) */
    if (getppid() != parent) _exit(128 + SIGTERM); /* the parent died before the line above */
    if (sp->new_group) setpgid(0, 0);
    if (sp->output_path) {
        int fd = open(sp->output_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    } else {
        child_stream(sp->stdout_fd, 1);
        child_stream(sp->stderr_fd, 2);
    }
    child_stream(sp->stdin_fd, 0);
    child_drop_env(sp->drop_env);
    if (!sp->argv) _exit(sp->fn ? sp->fn(sp->arg) : 0);
    /* SIGXFSZ stays ignored (main): mpirun, gnuplot and ringsim's own children get EFBIG from a write past
     * `ulimit -f` and report it, where the signal would kill them or (mpirun) leave the job waiting */
    if (strchr(sp->argv[0], '/')) execv(sp->argv[0], sp->argv);
    else execvp(sp->argv[0], sp->argv);
    _exit(127);
}

int rs_spawn_start(const rs_spawn_t *sp, const char *what, rs_child_t *child, rs_err_t *err) {
    memset(child, 0, sizeof *child);
    fflush(NULL);
    child->t0_s = rs_now_s();
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return rs_errf(err, "cannot start %s: %s", what, strerror(errno));
    if (pid == 0) child_main(sp, parent);
    if (sp->new_group) setpgid(pid, pid); /* also here: no window in which a kill misses the group */
    child->pid = pid;
    child->group = sp->new_group;
    rs_out_child(pid, sp->new_group); /* a signal to this process ends it too */
    /* the bound (subprocess.h); without a thread for it the child still runs, under the caller's timeout */
    (void)rs_spawn_watchdog(child, rs_spawn_bound_s(), NULL);
    return 0;
}

static void nap(double t_s) {
    struct timespec ts = {(time_t)t_s, (long)((t_s - (double)(time_t)t_s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void fill(rs_child_status_t *st, int status, const struct rusage *ru, const rs_child_t *c) {
    st->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    st->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    st->wall_s = rs_now_s() - c->t0_s;
    st->peak_rss_bytes = ru->ru_maxrss * 1024L;
    st->cpu_s = (double)ru->ru_utime.tv_sec + 1e-6 * (double)ru->ru_utime.tv_usec + (double)ru->ru_stime.tv_sec +
                1e-6 * (double)ru->ru_stime.tv_usec;
}

struct rs_watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    double deadline_s;          /* rs_now_s() clock */
    bool stop;                  /* the child was reaped: go home */
    bool fired;                 /* it ended the child */
    pid_t target;               /* -pgid or pid */
};

static void *watchdog_main(void *arg) {
    struct rs_watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        const double left = w->deadline_s - rs_now_s();
        if (left <= 0) {
            w->fired = true;
            kill(w->target, SIGTERM);
            pthread_mutex_unlock(&w->lock);
            nap(0.5);
            kill(w->target, SIGKILL);
            return NULL;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        const double t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + (left < 3600 ? left : 3600);
        ts.tv_sec = (time_t)t;
        ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
        pthread_cond_timedwait(&w->cond, &w->lock, &ts);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int rs_spawn_watchdog(rs_child_t *child, double timeout_s, rs_err_t *err) {
    if (timeout_s <= 0) return 0;
    if (child->wd) { /* the bound's watchdog: the caller's timeout replaces it */
        struct rs_watchdog *w = child->wd;
        pthread_mutex_lock(&w->lock);
        w->deadline_s = child->t0_s + timeout_s;
        pthread_cond_signal(&w->cond);
        pthread_mutex_unlock(&w->lock);
        return 0;
    }
    struct rs_watchdog *w = calloc(1, sizeof *w);
    if (!w) return rs_errf(err, "out of memory");
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->deadline_s = child->t0_s + timeout_s;
    w->target = child->group ? -child->pid : child->pid;
    if (pthread_create(&w->thread, NULL, watchdog_main, w) != 0) {
        free(w);
        return rs_errf(err, "cannot start a watchdog thread");
    }
    child->wd = w;
    return 0;
}

/* Stop the watchdog (the child is reaped); true when it had ended the child (*limit_s: after how many
 * seconds; limit_s may be NULL). */
static bool watchdog_stop(rs_child_t *child, double *limit_s) {
    struct rs_watchdog *w = child->wd;
    if (!w) return false;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    const bool fired = w->fired;
    if (fired && limit_s) *limit_s = w->deadline_s - child->t0_s;
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free(w);
    child->wd = NULL;
    return fired;
}

int rs_spawn_wait(rs_child_t *child, double timeout_s, rs_child_status_t *st, rs_err_t *err) {
    memset(st, 0, sizeof *st);
    st->exit_code = -1;
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    if (timeout_s <= 0) {
        while (wait4(child->pid, &status, 0, &ru) < 0)
            if (errno != EINTR) return watchdog_stop(child, NULL), rs_errf(err, "waiting for process %d: %s", (int)child->pid, strerror(errno));
        fill(st, status, &ru, child);
        st->timed_out = watchdog_stop(child, &st->timeout_s);
        rs_out_child_done(child->pid);
        return 0;
    }
    /* the watchdog: poll, 1 ms at first, backing off to 20 ms */
    for (double dt = 1e-3;; dt = dt < 0.02 ? 2 * dt : 0.02) {
        pid_t r = wait4(child->pid, &status, WNOHANG, &ru);
        if (r == child->pid) break;
        if (r < 0 && errno != EINTR) return watchdog_stop(child, NULL), rs_errf(err, "waiting for process %d: %s", (int)child->pid, strerror(errno));
        if (rs_now_s() - child->t0_s > timeout_s) {
            kill(child->group ? -child->pid : child->pid, SIGTERM);
            nap(0.5);
            kill(child->group ? -child->pid : child->pid, SIGKILL);
            while (wait4(child->pid, &status, 0, &ru) < 0 && errno == EINTR) {
            }
            fill(st, status, &ru, child);
            st->timed_out = true;
            st->timeout_s = timeout_s;
            watchdog_stop(child, NULL);
            rs_out_child_done(child->pid);
            return 0;
        }
        nap(dt);
    }
    fill(st, status, &ru, child);
    st->timed_out = watchdog_stop(child, &st->timeout_s);
    rs_out_child_done(child->pid);
    return 0;
}

int rs_spawn_run(const rs_spawn_t *sp, const char *what, double timeout_s, rs_child_status_t *st, rs_err_t *err) {
    rs_child_t c;
    if (rs_spawn_start(sp, what, &c, err) != 0) return -1;
    return rs_spawn_wait(&c, timeout_s, st, err);
}

const char *rs_child_status_text(const rs_child_status_t *st, double timeout_s, char *buf, size_t len) {
    if (st->timed_out) snprintf(buf, len, "timeout after %g s", st->timeout_s > 0 ? st->timeout_s : timeout_s);
    else if (st->term_signal) snprintf(buf, len, "killed by %s", strsignal(st->term_signal));
    else snprintf(buf, len, "exit %d", st->exit_code);
    return buf;
}
