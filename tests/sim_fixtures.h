/* sim_fixtures.h - a machine and a problem built by hand for the simulator's tests (test_sim.c,
 * test_job.c): independent of the shipped profiles. Header-only, static. */
#ifndef RS_TEST_SIM_FIXTURES_H
#define RS_TEST_SIM_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "schedule.h"

/* H100-like machine: F, intra W and latency, optional nodes of g devices with an inter tier (w_inter
 * 0: the intra bandwidth). */
static inline rs_machine_t machine(double f, double w, double lat, int64_t g, double w_inter, double lat_inter) {
    rs_machine_t m = rs_machine_figures("test-gpu", RS_DTYPE_BF16, f, (rs_tier_t){"nvl", w, lat});
    m.devices_per_node = g;
    m.inter = (rs_tier_t){"ib", w_inter > 0 ? w_inter : w, lat_inter};
    m.seed = 1;
    return m;
}

/* The default problem with N ranks of B tokens, a layout, a pass and a mask. */
static inline rs_problem_t problem(int64_t n, int64_t b, rs_layout_t l, rs_pass_t pass, bool causal) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.n_ranks = n;
    p.seq_tokens = n * b;
    p.layout = l;
    p.pass = pass;
    p.causal = causal;
    return p;
}

#endif /* RS_TEST_SIM_FIXTURES_H */
