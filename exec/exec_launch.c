/* exec_launch.c - starting ranks: re-launching ringsim under mpirun, and where MPI put us. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec_launch.h"

#include "exec.h"
#include "meter.h"
#include "subprocess.h"

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
    /* The ranks' stderr is mpirun's pipe: tell them whether this process would draw a meter (meter.h) */
    setenv("RINGSIM_METER", rs_meter_on() ? "1" : "0", 1);
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.argv = args;
    rs_child_status_t st;
    int rc = rs_spawn_run(&sp, "mpirun", 0, &st, err);
    free(args);
    if (rc != 0) return -1;
    if (st.exit_code == 127) return rs_errf(err, "could not start mpirun (not on PATH?)");
    return st.exit_code >= 0 ? st.exit_code : RS_EXIT_FAIL;
}
