/* cpu_blas.c - the BLAS and the CPU the CPU compute runs on (cpu_blas.h): OpenBLAS's core and
 * configuration, the CPU's vector ISA, and the note when the core is narrower than the CPU. */
#include "cpu_blas.h"

#include <cblas.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *rs_exec_blas_version(void) {
    static char buf[256];
    if (!buf[0]) {
        const char *cfg = openblas_get_config();
        const char *core = openblas_get_corename();
        /* the kernel first: a truncated copy (profile notes) keeps what matters */
        snprintf(buf, sizeof buf, "OpenBLAS core %s; %s", core ? core : "?", cfg ? cfg : "OpenBLAS");
        for (char *c = buf; *c; c++)
            if (*c == '\n' || *c == ',') *c = ' ';
    }
    return buf;
}

const char *rs_isa_name(rs_isa_t isa) {
    static const char *const names[] = {"unknown", "SSE", "AVX", "AVX2", "AVX-512"};
    return (unsigned)isa < sizeof names / sizeof names[0] ? names[isa] : "unknown";
}

rs_isa_t rs_cpu_isa(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return RS_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return RS_ISA_AVX2;
    if (__builtin_cpu_supports("avx")) return RS_ISA_AVX;
    return RS_ISA_SSE;
#else
    return RS_ISA_UNKNOWN;
#endif
}

/* OpenBLAS's x86 cores (its DYNAMIC_ARCH list, driver/others/dynamic.c) by the widest ISA their
 * sgemm kernels use. */
static const struct {
    const char *core;
    rs_isa_t isa;
} blas_cores[] = {
    {"Katmai", RS_ISA_SSE},      {"Coppermine", RS_ISA_SSE}, {"Northwood", RS_ISA_SSE},   {"Prescott", RS_ISA_SSE},
    {"Banias", RS_ISA_SSE},      {"Atom", RS_ISA_SSE},       {"Core2", RS_ISA_SSE},       {"Penryn", RS_ISA_SSE},
    {"Dunnington", RS_ISA_SSE},  {"Nehalem", RS_ISA_SSE},    {"Athlon", RS_ISA_SSE},      {"Opteron", RS_ISA_SSE},
    {"Opteron_SSE3", RS_ISA_SSE}, {"Barcelona", RS_ISA_SSE}, {"Nano", RS_ISA_SSE},        {"Bobcat", RS_ISA_SSE},
    {"Sandybridge", RS_ISA_AVX}, {"Bulldozer", RS_ISA_AVX},  {"Piledriver", RS_ISA_AVX},  {"Haswell", RS_ISA_AVX2},
    {"Steamroller", RS_ISA_AVX2}, {"Excavator", RS_ISA_AVX2}, {"Zen", RS_ISA_AVX2},       {"SkylakeX", RS_ISA_AVX512},
    {"Cooperlake", RS_ISA_AVX512}, {"SapphireRapids", RS_ISA_AVX512},
};

rs_isa_t rs_blas_core_isa(const char *core) {
    for (size_t i = 0; core && i < sizeof blas_cores / sizeof blas_cores[0]; i++)
        if (!strcasecmp(core, blas_cores[i].core)) return blas_cores[i].isa;
    return RS_ISA_UNKNOWN;
}

int rs_blas_core_note(const char *core, rs_isa_t cpu, char *buf, size_t len) {
    if (len) buf[0] = 0;
    const rs_isa_t lib = rs_blas_core_isa(core);
    if (lib == RS_ISA_UNKNOWN || cpu == RS_ISA_UNKNOWN || lib >= cpu) return 0;
    /* the core OPENBLAS_CORETYPE would name for the CPU's widest ISA */
    const char *want = cpu == RS_ISA_AVX512 ? "SkylakeX" : cpu == RS_ISA_AVX2 ? "Haswell" : "Sandybridge";
    snprintf(buf, len,
             "OpenBLAS runs core %s (%s kernels) on a CPU with %s: this OpenBLAS does not select the CPU's own kernels "
             "(too old to know the CPU, or OPENBLAS_CORETYPE), so sgemm, F and every CPU measurement run below the CPU's "
             "speed; a newer OpenBLAS, or OPENBLAS_CORETYPE=%s set by the user, selects %s kernels (docs/benchmarks.md)",
             core, rs_isa_name(lib), rs_isa_name(cpu), want, rs_isa_name(cpu));
    return 1;
}

int rs_exec_blas_core_note(char *buf, size_t len) {
    return rs_blas_core_note(openblas_get_corename(), rs_cpu_isa(), buf, len);
}
