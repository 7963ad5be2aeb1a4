/* test_spread.c - dividing a study's items over a launcher's ranks (studies/spread.c): the count of
 * processes read from the launcher's environment, and the message naming a failed rank and its
 * items (item i on rank i mod P). The runs over mpirun: tests/studies/sweep_mpi.sh and
 * sweep_jobs_mpi.sh. */
#include <stdlib.h>
#include <string.h>

#include "spread.h"
#include "test_main.h"

static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"};

static void clear_vars(void) {
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
}

/* None set: 1; each launcher's variable read; a size of 1 (a singleton) is not a launcher. */
RS_TEST(test_ranks_from_env, "rs_spread_ranks: each launcher's variable, 1 without one") {
    char *saved[4];
    for (int i = 0; i < 4; i++) saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
    clear_vars();
    CU_ASSERT_EQUAL(rs_spread_ranks(), 1);
    const char *const values[4] = {"4", "3", "7", "2"};
    for (int i = 0; i < 4; i++) {
        clear_vars();
        setenv(vars[i], values[i], 1);
        CU_ASSERT_EQUAL(rs_spread_ranks(), atoi(values[i]));
    }
    clear_vars();
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1); /* a singleton: the next one decides */
    CU_ASSERT_EQUAL(rs_spread_ranks(), 1);
    setenv("PMI_SIZE", "5", 1);
    CU_ASSERT_EQUAL(rs_spread_ranks(), 5);
    clear_vars();
    for (int i = 0; i < 4; i++)
        if (saved[i]) setenv(vars[i], saved[i], 1), free(saved[i]);
}

/* Rank r of P owns items r, r + P, ...: 11 items over 3 ranks, rank 2 has 2 5 8; two failures are
 * joined by "; "; more ranks than items: the rank names no item. */
RS_TEST(test_name_failure, "rs_spread_name_failure: the rank's items (i mod P) and its message") {
    char m[256] = "";
    rs_spread_name_failure(m, sizeof m, "points", 2, 3, 11, "point 5: failed on purpose");
    CU_ASSERT_STRING_EQUAL(m, "rank 2 (points 2 5 8): point 5: failed on purpose");
    rs_spread_name_failure(m, sizeof m, "points", 0, 3, 11, "point 9: x");
    CU_ASSERT_STRING_EQUAL(m, "rank 2 (points 2 5 8): point 5: failed on purpose; rank 0 (points 0 3 6 9): point 9: x");
    m[0] = 0;
    rs_spread_name_failure(m, sizeof m, "points", 3, 4, 2, "out of memory");
    CU_ASSERT_STRING_EQUAL(m, "rank 3 (points): out of memory");
    char small[16] = ""; /* truncated, still a string */
    rs_spread_name_failure(small, sizeof small, "points", 1, 2, 100, "x");
    CU_ASSERT_STRING_EQUAL(small, "rank 1 (points ");
}

RS_TEST_MAIN(.suite = "spread")
