/* exec_launch.c - starting ranks: re-launching ringsim under mpirun, and where MPI put us. */
#define _GNU_SOURCE /* syscall */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec_launch.h"

#include "exec.h"
#include "meter.h"
#include "output.h"
#include "subprocess.h"

int rs_exec_env_rank(void) {
    const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return atoi(getenv(vars[i]));
    return -1;
}

int rs_exec_env_size(void) { /* the launchers of rs_exec_env_rank; a singleton's 1 lets the next decide */
    const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"};
    int size = -1;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (!v) continue;
        if (atoi(v) > 1) return atoi(v);
        if (size < 0) size = atoi(v);
    }
    return size;
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

/* What the job is told about its folder: where the ranks hand their outputs over (output.h,
 * rs_out_adopt), Open MPI's session directory (4.1: orte_tmpdir_base) and the backing files of its
 * shared-memory transports (btl_vader, osc_sm, osc_rdma; by default in /dev/shm, left there by a
 * killed job). */
static const char *const job_env[] = {"RINGSIM_RANK_OUT", "RINGSIM_MPI_JOB", "OMPI_MCA_orte_tmpdir_base", "OMPI_MCA_btl_vader_backing_directory",
                                      "OMPI_MCA_osc_sm_backing_directory", "OMPI_MCA_osc_rdma_backing_directory"};
enum { JOB_ENV_OURS = 2 }; /* the first ones are this project's own: always set */
/* The backing directories of Open MPI's shared-memory transports (the last of job_env). */
enum { JOB_ENV_BACKING = 3 };

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
    /* The ranks' stderr is mpirun's pipe: tell them whether this process would draw a meter (meter.h) */
    setenv("RINGSIM_METER", rs_meter_on() ? "1" : "0", 1);
    /* The job's own folder, a registered temporary folder of this run (removed at its end, on a signal,
     * or by a later run once this PID is gone): the ranks' outputs until this run commits them, Open
     * MPI's session directory and its shared-memory segments */
    char dir[PATH_MAX];
    if (rs_out_tmpdir("mpi", dir, sizeof dir, err) != 0) return free(args), -1;
    bool set[sizeof job_env / sizeof job_env[0]];
    for (size_t i = 0; i < sizeof job_env / sizeof job_env[0]; i++) {
        set[i] = !getenv(job_env[i]) || i < JOB_ENV_OURS; /* a setting of the user's stays */
        if (set[i]) setenv(job_env[i], dir, 1);
    }
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.argv = args;
    rs_child_status_t st;
    int rc = rs_spawn_run(&sp, "mpirun", 0, &st, err);
    free(args);
    for (size_t i = 0; i < sizeof job_env / sizeof job_env[0]; i++)
        if (set[i]) unsetenv(job_env[i]);
    if (rc == 0 && st.exit_code == 127) rc = rs_errf(err, "could not start mpirun (not on PATH?)");
    else if (rc == 0 && st.exit_code == 0 && rs_out_adopt(dir, err) != 0) rc = -1; /* the ranks' outputs, now this run's */
    else if (rc == 0) rc = st.exit_code >= 0 ? st.exit_code : RS_EXIT_FAIL;
    rs_out_tmpdir_remove(dir);
    return rc;
}

/* The watcher of a plain mpirun job's session directory (rs_exec_mpi_prepare), in a child of its
 * own: waits for mpirun (launcher) to end, then removes session (and top, its parent, when that is
 * empty then). Never returns. */
static void watch_session(pid_t launcher, const char *session, const char *top, const sigset_t *was) {
    setsid(); /* a SIGINT to the job's process group does not reach it */
    if (fork() != 0) _exit(0); /* the rank's child ends at once; the watcher is reparented */
    sigprocmask(SIG_SETMASK, was, NULL); /* (blocked until it was in its own session) */
    for (int fd = 0; fd < 1024; fd++) close(fd); /* none of mpirun's pipes held open */
    const int pfd = (int)syscall(SYS_pidfd_open, launcher, 0);
    if (pfd >= 0) {
        struct pollfd p = {pfd, POLLIN, 0};
        while (poll(&p, 1, -1) < 0 && errno == EINTR) {}
    } else {
        while (kill(launcher, 0) == 0 || errno == EPERM) nanosleep(&(struct timespec){0, 200000000}, NULL);
    }
    rs_out_tmpdir_remove(session); /* (outside a run: only the folder) */
    rmdir(top);
    _exit(0);
}

void rs_exec_mpi_prepare(void) {
    const char *session = getenv("OMPI_MCA_orte_jobfam_session_dir"), *top = getenv("OMPI_MCA_orte_top_session_dir");
    struct stat st;
    if (getenv("RINGSIM_MPI_JOB") || !session || !*session || stat(session, &st) != 0 || !S_ISDIR(st.st_mode)) return;
    for (size_t i = JOB_ENV_BACKING; i < sizeof job_env / sizeof job_env[0]; i++) setenv(job_env[i], session, 0);
    /* mpirun's own folder of the job ("TOP/pid.MPIRUN", mpirun this rank's parent on its host), once
     * per host */
    const pid_t launcher = getppid();
    char want[32];
    snprintf(want, sizeof want, "pid.%ld", (long)launcher);
    const char *base = strrchr(session, '/');
    if (!base || strcmp(base + 1, want) != 0) return;
    /* The first rank of the host to get here starts it (not a given local rank: one that a signal
     * stops before this point leaves the folder to the others) */
    char mark[PATH_MAX];
    if (snprintf(mark, sizeof mark, "%s/ringsim-watcher", session) >= (int)sizeof mark) return;
    const int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return;
    close(fd);
    fflush(NULL);
    sigset_t all, was;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &was); /* no SIGINT to the job reaches the child before its setsid */
    const pid_t c = fork();
    if (c == 0) {
        rs_out_forget();
        watch_session(launcher, session, top && *top ? top : "", &was);
    }
    sigprocmask(SIG_SETMASK, &was, NULL);
    if (c > 0) waitpid(c, NULL, 0);
}
