/* exec_launch.c - starting ranks: re-launching ringsim under mpirun, and where MPI put us. */
#include <signal.h>
#include <stdio.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_launch.h"

#include <pthread.h>

#include "exec.h"

extern char **environ;

int rs_exec_env_rank(void) {
    const char *v = getenv("OMPI_COMM_WORLD_RANK");
    if (!v) v = getenv("PMI_RANK");
    if (!v) v = getenv("PMIX_RANK");
    return v ? atoi(v) : -1;
}

int rs_exec_env_size(void) {
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v) v = getenv("PMI_SIZE");
    return v ? atoi(v) : -1;
}

int rs_exec_env_local_rank(void) {
    const char *v = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!v) v = getenv("MPI_LOCALRANKID");
    return v ? atoi(v) : 0;
}

bool rs_exec_have_mpirun(void) {
#ifdef RINGSIM_HAVE_MPI
    const char *path = getenv("PATH");
    if (!path) return false;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char exe[4200];
        snprintf(exe, sizeof exe, "%s/mpirun", dir);
        if (access(exe, X_OK) == 0) return true;
    }
#endif
    return false;
}

int rs_exec_mpirun(int64_t np, int argc, char **argv, const char *subcommand, rs_err_t *err) {
    char npbuf[32], self[4096];
    snprintf(npbuf, sizeof npbuf, "%lld", (long long)np);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return rs_errf(err, "cannot find this executable (/proc/self/exe) to start it under mpirun");
    self[n] = 0;
    char **args = calloc((size_t)argc + 16, sizeof *args);
    if (!args) return rs_errf(err, "out of memory");
    int k = 0;
    args[k++] = "mpirun";
    if (geteuid() == 0) args[k++] = "--allow-run-as-root";
    args[k++] = "--oversubscribe";
    args[k++] = "-np";
    args[k++] = npbuf;
    args[k++] = self;
    args[k++] = (char *)subcommand;
    for (int i = 1; i < argc; i++) args[k++] = argv[i];
    args[k] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    int rc = posix_spawnp(&pid, "mpirun", NULL, NULL, args, environ);
    free(args);
    if (rc != 0) return rs_errf(err, "could not start mpirun: %s", strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return RS_EXIT_FAIL;
}

/* ---------------------------------------------------------------------------------------------------
 * SPMD over threads
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int (*fn)(const struct rs_transport_ops *, void *, void *); /* the SPMD body */
    void *ts, *arg;                                              /* this rank's transport state, the body's argument */
    int rc;                                                      /* the body's return */
} spmd_arg_t;

static void *spmd_main(void *p) {
    spmd_arg_t *a = p;
    a->rc = a->fn(&rs_local_transport_ops, a->ts, a->arg);
    if (a->rc != 0) rs_local_transport_ops.abort(a->ts, 1);
    return NULL;
}

int rs_exec_spmd_threads(int64_t n, int (*fn)(const struct rs_transport_ops *tops, void *ts, void *arg), void *arg,
                         rs_err_t *err) {
    rs_local_world_t *w = rs_local_world_create(n, err);
    if (!w) return -1;
    spmd_arg_t *a = calloc((size_t)n, sizeof *a);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    int64_t started = 0;
    if (a && th)
        for (; started < n; started++) {
            a[started] = (spmd_arg_t){fn, rs_local_world_rank(w, started), arg, 0};
            if (pthread_create(&th[started], NULL, spmd_main, &a[started]) != 0) break;
        }
    if (started < n && started > 0) rs_local_transport_ops.abort(a[0].ts, 1);
    for (int64_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    int rc = started < n ? rs_errf(err, "could not start %lld threads", (long long)n) : a[0].rc;
    free(a), free(th);
    rs_local_world_free(w);
    return rc;
}

int rs_exec_check_out(const char *opt, const char *path, bool is_dir, rs_err_t *err) {
    if (!path) return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    if (!is_dir) {
        char *sl = strrchr(dir, '/');
        if (!sl) snprintf(dir, sizeof dir, ".");
        else if (sl == dir) dir[1] = 0;
        else *sl = 0;
    }
    if (access(dir, W_OK | X_OK) != 0)
        return rs_errf(err, "--%s %s: %s is not a writable directory", opt, path, dir);
    return 0;
}

int rs_exec_spmd_main(const char *subcommand, int64_t n, bool under_mpi, bool launch_threads, bool launch_given,
                      int progress, int *argc, char ***argv,
                      int (*fn)(const struct rs_transport_ops *tops, void *ts, void *arg), void *arg,
                      const char **label) {
    rs_err_t err = {{0}};
    if (!under_mpi && !launch_threads && n > 1) {
        if (rs_exec_have_mpirun()) {
            int st = rs_exec_mpirun(n, *argc, *argv, subcommand, &err);
            if (st < 0) {
                fprintf(stderr, "ringsim %s: %s\n", subcommand, err.msg);
                return RS_EXIT_FAIL;
            }
            return st;
        }
        if (launch_given) {
            fprintf(stderr, "ringsim %s: --launch mpirun: mpirun not found (use --launch threads)\n", subcommand);
            return RS_EXIT_USAGE;
        }
        launch_threads = true;
    }
    if (launch_threads || n == 1) {
        if (label) *label = "threads";
        int r = rs_exec_spmd_threads(n, fn, arg, &err);
        if (r < 0) {
            fprintf(stderr, "ringsim %s: %s\n", subcommand, err.msg);
            return RS_EXIT_FAIL;
        }
        return r;
    }
#ifdef RINGSIM_HAVE_MPI
    void *ts = rs_mpi_transport_create(argc, argv, (rs_progress_t)progress, &err);
    if (!ts) {
        fprintf(stderr, "ringsim %s: %s\n", subcommand, err.msg);
        return RS_EXIT_FAIL;
    }
    int r = fn(&rs_mpi_transport_ops, ts, arg);
    if (r != 0) rs_mpi_transport_ops.abort(ts, r);
    rs_mpi_transport_ops.destroy(ts);
    return r;
#else
    (void)progress;
    fprintf(stderr, "ringsim %s: this build has no MPI; use --launch threads\n", subcommand);
    return RS_EXIT_USAGE;
#endif
}
