/* test_exec_launch.c - starting ranks (exec/exec_launch.c): where a launcher put this process (from
 * its environment), whether mpirun is on PATH, and the re-launch under mpirun - its command line, its
 * exit status passed back, a missing mpirun said so - with a fake mpirun on PATH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec_launch.h"
#include "exec_fixtures.h"
#include "test_main.h"

static const char *const launcher_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_SIZE",
                                            "PMI_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"};

static void clear_launcher(void) {
    for (size_t i = 0; i < sizeof launcher_vars / sizeof launcher_vars[0]; i++) unsetenv(launcher_vars[i]);
}

/* Open MPI's variables first, then PMI's and PMIx's (the rank: then Slurm's); none: -1 (local rank 0). */
RS_TEST(test_env, "launcher_environment") {
    clear_launcher();
    CU_ASSERT_EQUAL(rs_exec_env_rank(), -1);
    CU_ASSERT_EQUAL(rs_exec_env_size(), -1);
    CU_ASSERT_EQUAL(rs_exec_env_local_rank(), 0);
    /* each variable set in turn, over the ones set before it */
    static const struct {
        const char *var, *value;
        int (*read)(void);
        int want;
    } set[] = {
        {"SLURM_PROCID", "6", rs_exec_env_rank, 6},        {"PMIX_RANK", "5", rs_exec_env_rank, 5},
        {"PMI_RANK", "4", rs_exec_env_rank, 4},
        {"OMPI_COMM_WORLD_RANK", "3", rs_exec_env_rank, 3}, {"PMI_SIZE", "7", rs_exec_env_size, 7},
        {"OMPI_COMM_WORLD_SIZE", "8", rs_exec_env_size, 8}, {"MPI_LOCALRANKID", "2", rs_exec_env_local_rank, 2},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "1", rs_exec_env_local_rank, 1},
    };
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        setenv(set[i].var, set[i].value, 1);
        const int got = set[i].read();
        if (got != set[i].want) fprintf(stderr, "  %s=%s: %d, want %d\n", set[i].var, set[i].value, got, set[i].want);
        CU_ASSERT_EQUAL(got, set[i].want);
    }
    clear_launcher();
}

static char dir[64], old_path[4096];

/* A fake mpirun in dir that writes its arguments and RINGSIM_METER to dir/args.txt and exits 3. */
static void fake_mpirun(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/mpirun", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "#!/bin/sh\necho \"$@\" > %s/args.txt\necho \"$RINGSIM_METER\" >> %s/args.txt\nexit 3\n", dir, dir);
    fclose(f);
    CU_ASSERT_EQUAL(chmod(path, 0755), 0);
}

RS_TEST(test_mpirun, "mpirun") {
    fake_mpirun();
    setenv("PATH", dir, 1);
#ifdef RINGSIM_HAVE_MPI
    CU_ASSERT_TRUE(rs_exec_have_mpirun());
#else
    CU_ASSERT_FALSE(rs_exec_have_mpirun()); /* no MPI built in: never */
#endif
    char *argv[] = {"ringsim", "--ranks", "4", "-L", "zigzag", NULL};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_exec_mpirun(4, 5, argv, "exec", &err), 3); /* mpirun's exit status */
    char self[1024], line[2048] = "", meter[16] = "";
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CU_ASSERT_FATAL(n > 0);
    self[n] = 0;
    char want[2048], path[128];
    snprintf(want, sizeof want, "%s--oversubscribe -np 4 %s exec --ranks 4 -L zigzag\n", geteuid() == 0 ? "--allow-run-as-root " : "",
             self);
    snprintf(path, sizeof path, "%s/args.txt", dir);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_PTR_NOT_NULL(fgets(meter, sizeof meter, f));
    fclose(f);
    CU_ASSERT_STRING_EQUAL(line, want);
    CU_ASSERT(strcmp(meter, "0\n") == 0 || strcmp(meter, "1\n") == 0); /* the ranks are told whether to draw a meter */
    unlink(path);
    snprintf(path, sizeof path, "%s/mpirun", dir);
    unlink(path);
    CU_ASSERT_FALSE(rs_exec_have_mpirun());
    CU_ASSERT_EQUAL(rs_exec_mpirun(2, 5, argv, "exec", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "could not start mpirun (not on PATH?)");
    setenv("PATH", old_path, 1);
}

/* PATH as it was, and the folder of the fake launchers. */
static int setup(void) {
    const char *p = getenv("PATH");
    snprintf(old_path, sizeof old_path, "%s", p ? p : "/usr/bin:/bin");
    snprintf(dir, sizeof dir, "/tmp/rs_test_launch_XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static void teardown(void) { rmdir(dir); }

RS_TEST_MAIN(.suite = "exec_launch", .setup = setup, .teardown = teardown)
