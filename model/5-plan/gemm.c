/* gemm.c - a GEMM's time by shape and dtype (gemm.h; derivation and sources: docs/plan.md section 4b). */
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The shape mechanism, fitted to XLA's H100 SXM table (gemm.h). */
#define GEMM_T0_S 7e-6
#define GEMM_K0 96.0
#define GEMM_TILE 128
#define GEMM_SPLIT_K_MIN 128

/* Maximum Achievable Matmul FLOPS: S. Bekman, "Machine Learning Engineering Open Book",
 * compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison table" (torch matmul, mean
 * of 100 iterations after 50 warmups, best shape of a brute-force search). H100 PCIe: the same
 * benchmark's earlier table (CUDA 12.1), as quoted by github.com/mag-/gpu_benchmark README "Stats".
 * SMs: NVIDIA A100 and H100 architecture whitepapers (108; 132 SXM5, 114 PCIe), NVIDIA Blackwell
 * datasheets (148 per B200 GPU), AMD CDNA 3 whitepaper (304 CUs for MI300X and MI325X); Gaudi 3's
 * matrix engines are not SMs: no wave term. H200: the H100 SXM die ("H200 is the same" in the table).
 * H100-GT (Meta's H100 96 GB HBM2e at 500 W, profiles/devices/h100-gt.json), which the MAMF table lacks:
 * pytorch/FBGEMM PR #2546 "Add fp8 row/block-wise scaled GEMMs" (commit 3ad9031d, 2024-05-02), its
 * description's "H100 500W" results of fbgemm_gpu/experimental/gemm/triton/fp8_gemm_benchmark.py
 * (triton.testing.do_bench, 25 warmup and 100 repetition ms; TFLOP/s = 2 M N K / t; input M x K, weight
 * N x K) at (M, N, K) = 8192^3, 65536x8192x7168 and 65536x3584x8192: bf16 torch.matmul 585.23, 575.12,
 * 546.31; "fp8 row gemm only" (FBGEMM's Triton matmul_fp8_row, the rowwise scales computed beforehand)
 * 1125.51, 1082.75, 1141.38 TFLOP/s. Each dtype's row is its best shape; tests/plan/test_gemm.c holds the
 * other two. The PR says "H100 500W": Meta's in-house H100, the one at 500 W in Meta's hosts
 * (profiles/devices/h100-gt.json's sources). SMs 0: the profile's sm_count. */
static const rs_gemm_mamf_t mamf[] = {
    {"A100-SXM", RS_DTYPE_BF16, 271.2, 1024, 10240, 5120, 108, "Bekman, ML Engineering, MAMF table"},
    {"H100-SXM", RS_DTYPE_BF16, 794.5, 2048, 2048, 13312, 132, "Bekman, ML Engineering, MAMF table"},
    {"H100-SXM", RS_DTYPE_FP8, 1402.6, 1024, 9216, 14336, 132, "Bekman, ML Engineering, MAMF table"},
    {"H200", RS_DTYPE_BF16, 794.5, 2048, 2048, 13312, 132, "Bekman, ML Engineering, MAMF table"},
    {"H200", RS_DTYPE_FP8, 1453.4, 1280, 4096, 12032, 132, "Bekman, ML Engineering, MAMF table"},
    {"H100-PCIe", RS_DTYPE_BF16, 499.5, 6912, 16384, 2048, 114, "Bekman, ML Engineering, MAMF table (CUDA 12.1), via mag-/gpu_benchmark"},
    {"B200", RS_DTYPE_BF16, 1745.0, 1792, 16128, 3072, 148, "Bekman, ML Engineering, MAMF table"},
    {"B200", RS_DTYPE_FP8, 3432.5, 15360, 4096, 3072, 148, "Bekman, ML Engineering, MAMF table"},
    {"GB200", RS_DTYPE_BF16, 1822.0, 4096, 9728, 2048, 148, "Bekman, ML Engineering, MAMF table"},
    {"GB200", RS_DTYPE_FP8, 3615.6, 19456, 5120, 1536, 148, "Bekman, ML Engineering, MAMF table"},
    {"MI300X", RS_DTYPE_BF16, 668.4, 10240, 15360, 8192, 304, "Bekman, ML Engineering, MAMF table"},
    {"MI325X", RS_DTYPE_BF16, 784.9, 13312, 10240, 8192, 304, "Bekman, ML Engineering, MAMF table"},
    {"Gaudi3", RS_DTYPE_BF16, 1243.0, 16384, 4096, 768, 0, "Bekman, ML Engineering, MAMF table"},
    {"Gaudi3", RS_DTYPE_FP8, 1289.5, 16640, 1536, 3072, 0, "Bekman, ML Engineering, MAMF table"},
    {"H100-GT", RS_DTYPE_BF16, 585.23, 8192, 8192, 8192, 0, "FBGEMM PR #2546, torch.matmul on Meta's H100 500 W, best of 3 shapes"},
    {"H100-GT", RS_DTYPE_FP8, 1141.38, 65536, 3584, 8192, 0,
     "FBGEMM PR #2546, fp8 rowwise Triton GEMM (scales cached) on Meta's H100 500 W, best of 3 shapes"},
    {NULL, RS_DTYPE_BF16, 0, 0, 0, 0, 0, NULL},
};

const rs_gemm_mamf_t *rs_gemm_mamf_table(void) { return mamf; }

/* The medians of the same table's efficiencies (MAMF / datasheet): bf16 12 accelerators, 0.781; fp8 8,
 * 0.754 (the estimate for a device the table lacks; other dtypes take bf16's). */
#define GEMM_EST_BF16 0.781
#define GEMM_EST_FP8 0.754

static double shape_factor(const rs_gemm_t *g, double m, double n, double k) {
    const double tm = ceil(m / (double)g->tile), tn = ceil(n / (double)g->tile), tiles = tm * tn;
    const double quant = m * n / (tiles * (double)g->tile * (double)g->tile); /* tile quantization */
    double split = 1, wave = 1;
    if (g->sms > 0) {
        const double sms = (double)g->sms;
        if (tiles < sms) { /* split-K: idle SMs take slices of K of at least GEMM_SPLIT_K_MIN */
            split = floor(sms / tiles);
            const double kmax = floor(k / GEMM_SPLIT_K_MIN);
            if (split > kmax) split = kmax;
            if (split < 1) split = 1;
        }
        const double units = tiles * split;
        wave = units / (ceil(units / sms) * sms);
    }
    const double kk = k / split;
    return quant * wave * kk / (kk + g->k0);
}

double rs_gemm_time_s(const rs_gemm_t *g, double m, double n, double k) {
    const double flops = 2.0 * m * n * k;
    const double bytes = (m * k + k * n) * g->in_bytes + m * n * g->out_bytes;
    const double t_mem = g->mem_bw > 0 ? bytes / g->mem_bw : 0;
    if (g->flat) { /* the roofline of a flat efficiency */
        const double t = flops / (g->peak_flops * g->eff);
        return t > t_mem ? t : t_mem;
    }
    const double t_comp = flops / (g->peak_flops * g->eff * shape_factor(g, m, n, k));
    const double t = g->t0_s + (t_comp > t_mem ? t_comp : t_mem), t_cap = flops / g->max_flops;
    return t > t_cap ? t : t_cap; /* no shape beats the device's maximum achievable rate */
}

double rs_gemm_eff(const rs_gemm_t *g, double m, double n, double k) {
    return 2.0 * m * n * k / (rs_gemm_time_s(g, m, n, k) * g->peak_flops);
}

int rs_gemm_model(const rs_hw_t *hw, rs_dtype_t dtype, double flat_eff, rs_gemm_t *out, rs_err_t *err) {
    rs_gemm_t g;
    memset(&g, 0, sizeof g);
    g.dtype = dtype;
    g.peak_flops = (unsigned)dtype < RS_DTYPE_COUNT ? hw->flops_per_s[dtype] : 0;
    if (!(g.peak_flops > 0))
        return rs_errc(err, RS_ERR_BAD_INPUT, "GEMMs in %s: profile %s has no %s rate", rs_dtype_name(dtype), hw->name, rs_dtype_name(dtype));
    g.mem_bw = hw->mem_bw_bytes_per_s;
    g.t0_s = GEMM_T0_S, g.k0 = GEMM_K0, g.tile = GEMM_TILE;
    g.in_bytes = (double)rs_dtype_bytes(dtype);
    g.out_bytes = dtype == RS_DTYPE_FP8 ? 2.0 : g.in_bytes; /* fp8 GEMMs write bf16 (TransformerEngine's recipe) */
    if (flat_eff > 0) {
        g.flat = true, g.eff = flat_eff, g.src = RS_GEMM_GIVEN, g.max_flops = flat_eff * g.peak_flops;
        snprintf(g.source, sizeof g.source, "--linear-eff %.2f: a flat efficiency, user-given", flat_eff);
        *out = g;
        return 0;
    }
    const rs_gemm_mamf_t *p = NULL;
    for (const rs_gemm_mamf_t *q = mamf; q->device && !p; q++)
        if (!strcmp(q->device, hw->name) && q->dtype == dtype) p = q;
    int64_t sms = 0;
    for (const rs_gemm_mamf_t *q = mamf; q->device && !sms; q++)
        if (!strcmp(q->device, hw->name)) sms = q->sms;
    g.sms = sms > 0 ? sms : hw->sm_count; /* a device the table lacks: its profile's SM count */
    if (p) { /* e: the model at the best shape runs at the MAMF */
        g.eff = 1.0;
        const double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k, t = flops / (p->tflops * 1e12);
        g.eff = flops / (g.peak_flops * shape_factor(&g, (double)p->m, (double)p->n, (double)p->k) * (t - g.t0_s));
        if (g.eff > 1) g.eff = 1;
        g.max_flops = p->tflops * 1e12;
        g.src = RS_GEMM_PUBLISHED;
        snprintf(g.source, sizeof g.source, "published: %.1f TFLOP/s at %lldx%lldx%lld (%s)", p->tflops, (long long)p->m,
                 (long long)p->n, (long long)p->k, p->source);
    } else {
        g.eff = dtype == RS_DTYPE_FP8 ? GEMM_EST_FP8 : GEMM_EST_BF16;
        g.max_flops = g.eff * g.peak_flops;
        g.src = RS_GEMM_ESTIMATED;
        snprintf(g.source, sizeof g.source, "estimated: no published MAMF for %s in %s, the median of the MAMF table's efficiencies (%.3f)",
                 hw->name, rs_dtype_name(dtype), g.eff);
    }
    *out = g;
    return 0;
}

const char *rs_gemm_describe(const rs_gemm_t *g, char *buf, size_t len) {
    if (g->flat)
        snprintf(buf, len, "%s GEMMs at %.2f x %.4g TFLOP/s (%s)", rs_dtype_name(g->dtype), g->eff, g->peak_flops / 1e12, g->source);
    else
        snprintf(buf, len, "%s GEMMs by shape, %.3f of %.4g TFLOP/s at 8192^3 (%s)", rs_dtype_name(g->dtype),
                 rs_gemm_eff(g, 8192, 8192, 8192), g->peak_flops / 1e12, g->source);
    return buf;
}
