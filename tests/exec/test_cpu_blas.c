/* test_cpu_blas.c - the BLAS and CPU description (exec/cpu_blas.c): the ISA of OpenBLAS's cores, the
 * note when the core's kernels are narrower than the CPU's, and the version line. */
#include <cblas.h>
#include <string.h>

#include "cpu_blas.h"
#include "test_main.h"

/* The OpenBLAS core against the CPU's ISA: an SSE fallback core on an AVX-512 or AVX2 CPU is named
 * with what selects the CPU's kernels; a matching, wider or unknown core says nothing. */
RS_TEST(test_blas_core_note, "blas_core_note") {
    char buf[512];
    CU_ASSERT_EQUAL(rs_blas_core_isa("Prescott"), RS_ISA_SSE);
    CU_ASSERT_EQUAL(rs_blas_core_isa("skylakex"), RS_ISA_AVX512);
    CU_ASSERT_EQUAL(rs_blas_core_isa("Zen"), RS_ISA_AVX2);
    CU_ASSERT_EQUAL(rs_blas_core_isa("Sandybridge"), RS_ISA_AVX);
    CU_ASSERT_EQUAL(rs_blas_core_isa("NoSuchCore"), RS_ISA_UNKNOWN);
    CU_ASSERT_EQUAL(rs_blas_core_isa(NULL), RS_ISA_UNKNOWN);
    CU_ASSERT_EQUAL(rs_blas_core_note("Prescott", RS_ISA_AVX512, buf, sizeof buf), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "core Prescott (SSE kernels) on a CPU with AVX-512"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "OPENBLAS_CORETYPE=SkylakeX"));
    CU_ASSERT_EQUAL(rs_blas_core_note("Haswell", RS_ISA_AVX512, buf, sizeof buf), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "core Haswell (AVX2 kernels)"));
    CU_ASSERT_EQUAL(rs_blas_core_note("Nehalem", RS_ISA_AVX2, buf, sizeof buf), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "OPENBLAS_CORETYPE=Haswell"));
    const struct {
        const char *core;
        rs_isa_t cpu;
    } quiet[] = {{"Zen", RS_ISA_AVX2}, {"Haswell", RS_ISA_AVX2}, {"Cooperlake", RS_ISA_AVX512},
                 {"SkylakeX", RS_ISA_AVX2}, {"NoSuchCore", RS_ISA_AVX512}, {"Prescott", RS_ISA_UNKNOWN}};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
        strcpy(buf, "x");
        CU_ASSERT_EQUAL(rs_blas_core_note(quiet[i].core, quiet[i].cpu, buf, sizeof buf), 0);
        CU_ASSERT_STRING_EQUAL(buf, "");
    }
    /* this machine: the note agrees with the linked core and the CPU */
    const int mine = rs_exec_blas_core_note(buf, sizeof buf);
    CU_ASSERT_EQUAL(mine, rs_blas_core_isa(openblas_get_corename()) != RS_ISA_UNKNOWN &&
                              rs_blas_core_isa(openblas_get_corename()) < rs_cpu_isa());
}

/* The ISA names, and the version line: the core first, then the configuration, on one line without
 * commas (profile notes are comma-separated). */
RS_TEST(test_version_line, "isa_names_and_version_line") {
    const char *names[] = {"unknown", "SSE", "AVX", "AVX2", "AVX-512"};
    for (int i = 0; i <= RS_ISA_AVX512; i++) CU_ASSERT_STRING_EQUAL(rs_isa_name((rs_isa_t)i), names[i]);
    CU_ASSERT_STRING_EQUAL(rs_isa_name((rs_isa_t)99), "unknown");
    const char *v = rs_exec_blas_version();
    char want[128];
    snprintf(want, sizeof want, "OpenBLAS core %s; ", openblas_get_corename());
    CU_ASSERT_EQUAL(strncmp(v, want, strlen(want)), 0);
    CU_ASSERT_PTR_NULL(strchr(v, '\n'));
    CU_ASSERT_PTR_NULL(strchr(v, ','));
    CU_ASSERT_PTR_EQUAL(rs_exec_blas_version(), v); /* made once */
}

RS_TEST_PROGRAM("cpu_blas")
