/* closed_loop.c - K closed-form evaluations and nothing else, for instruction counts (callgrind) side
 * by side with another build: the source uses only functions whose signatures stay the same across
 * builds (rs_model_closed, rs_hw_load, rs_machine_from_hw, rs_machine_figures).
 *
 *   bench_closed_loop figures|PROFILE K
 *
 * The problem is bench_model's (Llama-3-8B attention, causal zigzag forward, N = 8, S = 16 x (1024 +
 * i mod 1024)); "figures" is its dense machine (H100-SXM figures inline), a profile name its machine
 * as the CLI builds it (bf16; with kernel curves when the profile has them). Instructions per
 * evaluation = (Ir at K - Ir at 0) / K. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench_closed_loop figures|PROFILE K\n");
        return 2;
    }
    rs_machine_t m;
    if (!strcmp(argv[1], "figures")) {
        m = rs_machine_figures("H100-SXM (figures inline)", RS_DTYPE_BF16, 989e12, (rs_tier_t){"nvlink4", 450e9, 3e-6, {0, 0, 0}, 0});
    } else {
        rs_hw_t hw;
        rs_err_t err;
        if (rs_hw_load(argv[1], &hw, &err) != 0 || rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err) != 0) {
            fprintf(stderr, "bench_closed_loop: %s\n", err.msg);
            return 2;
        }
    }
    const long k = atol(argv[2]);
    rs_problem_t p;
    rs_problem_default(&p);
    p.causal = true;
    p.layout = RS_LAYOUT_ZIGZAG;
    p.n_ranks = 8;
    double sink = 0;
    for (long i = 0; i < k; i++) {
        p.seq_tokens = 16 * (1024 + (i & 1023));
        rs_closed_t c;
        if (rs_model_closed(&p, &m, &c, NULL) != 0) return 1;
        sink += c.t_step_s;
    }
    printf("%ld evaluations, checksum %.17g\n", k, sink);
    return 0;
}
