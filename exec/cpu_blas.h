/* cpu_blas.h - the BLAS and the CPU the CPU compute runs on: what trace headers, profile notes and
 * `ringsim calibrate` say about them, and the warning when the OpenBLAS core's kernels are narrower
 * than the CPU's vector ISA. */
#ifndef RS_CPU_BLAS_H
#define RS_CPU_BLAS_H

#include <stddef.h>

/* BLAS for trace headers and profile notes: "OpenBLAS core Haswell; OpenBLAS 0.3.21 NO_LAPACKE ..."
 * (openblas_get_corename, then openblas_get_config). Can't fail. */
const char *rs_exec_blas_version(void);

/* Vector ISA levels, narrowest first: what a CPU has, what an OpenBLAS core's kernels use. */
typedef enum { RS_ISA_UNKNOWN = 0, RS_ISA_SSE, RS_ISA_AVX, RS_ISA_AVX2, RS_ISA_AVX512 } rs_isa_t;
const char *rs_isa_name(rs_isa_t isa);
/* The widest of SSE, AVX, AVX2 (with FMA), AVX-512F this CPU has (RS_ISA_UNKNOWN off x86). */
rs_isa_t rs_cpu_isa(void);
/* The ISA of OpenBLAS core `core`'s kernels (x86 DYNAMIC_ARCH names, any case: "Prescott" SSE,
 * "Haswell" AVX2, "SkylakeX" AVX-512, ...); RS_ISA_UNKNOWN for a name not in the table. */
rs_isa_t rs_blas_core_isa(const char *core);
/* When core's kernels are narrower than cpu's ISA (an OpenBLAS too old to know the CPU falls back
 * to an SSE core), one sentence into buf naming both and what selects the CPU's kernels; returns
 * 1. Else buf "" and 0 (also for an unknown core or ISA: no claim). */
int rs_blas_core_note(const char *core, rs_isa_t cpu, char *buf, size_t len);
/* rs_blas_core_note for the OpenBLAS linked here and this CPU. */
int rs_exec_blas_core_note(char *buf, size_t len);

#endif /* RS_CPU_BLAS_H */
