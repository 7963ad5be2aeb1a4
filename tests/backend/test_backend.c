/* test_backend.c - the one backend interface (backend/backend.h): the table of this build,
 * the can-run rule of each backend, the walk behind the interface against rs_model_walk itself, the
 * simulator behind it against the walk, and the CPU executor's run as a `ringsim exec` subprocess
 * whose trace comes back. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "registry.h"
#include "cost.h"
#include "test_main.h"
#include "harness.h"
#include "trace.h"

#define RINGSIM RS_BINARY_DIR "/bin/ringsim"

static rs_machine_t h100(void) {
    rs_hw_t hw;
    rs_machine_t m;
    rs_err_t err;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err), 0);
    return m;
}

/* The table: the walk first; every name found again; unknown names refused with the choices, and a
 * backend this build lacks named with what it needs. */
RS_TEST(test_table, "table") {
    const rs_backend_ops_t *const *all = rs_backends();
    CU_ASSERT_PTR_EQUAL_FATAL(all[0], &rs_walk_backend);
    int n = 0;
    for (; all[n]; n++) CU_ASSERT_PTR_EQUAL(rs_backend_find(all[n]->name), all[n]);
#ifdef RINGSIM_HAVE_SIM
    CU_ASSERT_PTR_NOT_NULL(rs_backend_find("sim"));
#else
    CU_ASSERT_PTR_NULL(rs_backend_find("sim"));
#endif
    CU_ASSERT(n >= 1 && n <= 4);
    CU_ASSERT_PTR_NULL(rs_backend_find("tpu"));
    const rs_backend_ops_t *be = NULL;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_backend_get("tpu", true, &be, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--backend tpu: expected cpu or gpu");
    CU_ASSERT_EQUAL(rs_backend_get("model", true, &be, &err), -1); /* not an executor */
    CU_ASSERT_EQUAL(rs_backend_get("model", false, &be, &err), 0);
    CU_ASSERT_PTR_EQUAL(be, &rs_walk_backend);
    if (!rs_backend_find("gpu")) {
        CU_ASSERT_EQUAL(rs_backend_get("gpu", true, &be, &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--backend gpu: this build has no GPU executor"));
    }
}

/* The walk behind the interface is rs_model_walk: the same summary, the same events, per-rank busy
 * time, and the header keys problem, machine, backend. */
RS_TEST(test_walk_equals_model, "walk_equals_model") {
    rs_machine_t m = h100();
    m.cal.overlap = 0.4; /* the slow path of the walk (events made) */
    rs_problem_t p = rs_test_problem(8, 2048, RS_LAYOUT_ZIGZAG, RS_PASS_BACKWARD, true);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_trace_t *a = rs_trace_create("model"), *b = rs_trace_create("model");
    double busy_a[8], busy_b[8];
    rs_walk_t w;
    rs_run_summary_t r;
    rs_backend_opts_t o;
    rs_backend_opts_default(&o);
    o.rank_busy_s = busy_b;
    CU_ASSERT_EQUAL_FATAL(rs_model_walk(s, &m, rs_trace_sink(a), busy_a, &w, &err), 0);
    CU_ASSERT_EQUAL_FATAL(rs_walk_backend.run(s, &m, &o, b, &r, &err), 0);
    CU_ASSERT_EQUAL(r.makespan_s, w.makespan_s);
    CU_ASSERT_EQUAL(r.balance_efficiency, w.balance_efficiency);
    CU_ASSERT_EQUAL(r.fraction_of_peak, w.fraction_of_peak);
    CU_ASSERT_EQUAL(r.busy_max_s, w.busy_max_s);
    CU_ASSERT_EQUAL(r.comm_bound_steps, w.comm_bound_steps);
    CU_ASSERT_EQUAL(r.rank_steps, 8 * 9);
    CU_ASSERT(r.comm_bound_steps > 0 && r.rank_steps > r.comm_bound_steps);
    for (int i = 0; i < 8; i++) CU_ASSERT_EQUAL(busy_a[i], busy_b[i]);
    CU_ASSERT_EQUAL_FATAL(rs_trace_count(a), rs_trace_count(b));
    for (size_t i = 0; i < rs_trace_count(a); i++) {
        const rs_event_t *x = &rs_trace_events(a)[i], *y = &rs_trace_events(b)[i];
        CU_ASSERT(x->rank == y->rank && x->step == y->step && x->pass == y->pass && x->kind == y->kind &&
                  x->peer == y->peer && x->start_s == y->start_s && x->end_s == y->end_s && x->flops == y->flops &&
                  x->bytes == y->bytes);
    }
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(b, "backend"), "model");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(b, "hw"), "H100-SXM");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(b, "pass"), "backward");
    rs_trace_free(a);
    rs_trace_free(b);
    rs_schedule_free(s);
}

/* The can-run rules: the walk takes a loopback machine, the simulator refuses it and takes partial
 * overlap; the CPU executor takes fp32 and refuses 2-byte activations, saying why. */
RS_TEST(test_can_run, "can_run") {
    rs_machine_t m = h100();
    rs_problem_t p = rs_test_problem(4, 1024, RS_LAYOUT_CONTIGUOUS, RS_PASS_FORWARD, true);
    rs_err_t why = {0};
    CU_ASSERT_EQUAL(rs_walk_backend.can_run(&p, &m, &why), 0);
    m.loopback = true;
    CU_ASSERT_EQUAL(rs_walk_backend.can_run(&p, &m, &why), 0);
    const rs_backend_ops_t *sim = rs_backend_find("sim");
    if (sim) {
        CU_ASSERT_EQUAL(sim->can_run(&p, &m, &why), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "loopback"));
        m.loopback = false;
        m.cal.overlap = 0.3;
        CU_ASSERT_EQUAL(sim->can_run(&p, &m, &why), 0);
        m.cal.overlap = 1, m.cal.comp_slowdown = 1.5;
        CU_ASSERT_EQUAL(sim->can_run(&p, &m, &why), 0);
        m.cal.overlap = 0.3; /* eta < 1 with sigma > 1: no backend takes that machine */
        CU_ASSERT_EQUAL(sim->can_run(&p, &m, &why), -1);
        CU_ASSERT_EQUAL(rs_walk_backend.can_run(&p, &m, &why), -1);
        m.cal.overlap = 1, m.cal.comp_slowdown = 1;
    }
    m.loopback = false;
    const rs_backend_ops_t *cpu = rs_backend_find("cpu");
    if (cpu) {
        CU_ASSERT_PTR_NOT_NULL(cpu->exec);
        CU_ASSERT_EQUAL(cpu->can_run(&p, &m, &why), -1); /* bf16 */
        CU_ASSERT_STRING_EQUAL(why.msg, "the cpu executor computes in fp32 (problem: 2-byte activations)");
        p.act_bytes = 4;
        CU_ASSERT_EQUAL(cpu->can_run(&p, &m, &why), 0);
        p.grad_bytes = 2;
        CU_ASSERT_EQUAL(cpu->can_run(&p, &m, &why), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "dK,dV in fp32"));
    }
}

/* The simulator behind the interface equals the walk (docs/sim.md), partial overlap included. */
RS_TEST(test_sim_equals_walk, "sim_equals_walk") {
    const rs_backend_ops_t *sim = rs_backend_find("sim");
    if (!sim) return;
    rs_machine_t m = h100();
    m.cal.overlap = 0.5;
    rs_problem_t p = rs_test_problem(6, 1024, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_run_summary_t w, r;
    rs_trace_t *t = rs_trace_create("sim");
    CU_ASSERT_EQUAL_FATAL(rs_walk_backend.run(s, &m, NULL, NULL, &w, &err), 0);
    int rc = sim->run(s, &m, NULL, t, &r, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    RS_ASSERT_REL(r.makespan_s, w.makespan_s, 1e-9);
    RS_ASSERT_REL(r.balance_efficiency, w.balance_efficiency, 1e-9); /* the simulation's own figures */
    RS_ASSERT_REL(r.fraction_of_peak, w.fraction_of_peak, 1e-9);
    CU_ASSERT(r.balance_efficiency > 0 && r.balance_efficiency <= 1 && r.fraction_of_peak > 0 && r.fraction_of_peak <= 1);
    CU_ASSERT_EQUAL(r.rank_steps, w.rank_steps);
    CU_ASSERT_EQUAL(rs_trace_count(t), (size_t)(6 * 6 * 2 + 6 * 5 * 2)); /* compute+step, send+recv */
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "backend"), "simgrid");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "hw"), "H100-SXM");
    rs_trace_free(t);
    rs_schedule_free(s);
}

/* The CPU executor's run: `ringsim exec --launch threads` as a subprocess, its trace read back (the
 * measured events of the schedule, its own header) and its failure put in one line. */
RS_TEST(test_cpu_subprocess, "cpu_subprocess") {
    const rs_backend_ops_t *cpu = rs_backend_find("cpu");
    if (!cpu || access(RINGSIM, X_OK) != 0) return;
    rs_machine_t m = h100();
    rs_problem_t p = rs_test_problem(3, 32, RS_LAYOUT_ZIGZAG, RS_PASS_FORWARD, true);
    p.act_bytes = 4, p.q_heads = 2, p.kv_heads = 1, p.head_dim = 16, p.tile_q = p.tile_k = 8;
    rs_err_t err = {0};
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    rs_backend_opts_t o;
    rs_backend_opts_default(&o);
    o.exec_bin = RINGSIM;
    o.exec_launch = "threads";
    o.timeout_s = 60;
    rs_trace_t *t = rs_trace_create(cpu->source);
    rs_run_summary_t r;
    int rc = cpu->run(s, &m, &o, t, &r, &err);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(rs_trace_count(t), (size_t)(3 * 3 * 2 + 3 * 2 * 2));
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "backend"), "exec-cpu");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "seq_tokens"), "96");
    CU_ASSERT(r.makespan_s > 0);
    uint64_t fu, fx, total = 0;
    for (int64_t rank = 0; rank < 3; rank++)
        for (int64_t k = 0; k < 3; k++) rs_schedule_flops(s, rank, k, &fu, &fx), total += fx;
    CU_ASSERT_EQUAL(r.flops_exec, total);
    rs_trace_free(t);
    o.exec_bin = "/bin/false"; /* a binary that fails: one line for the sweep's note */
    CU_ASSERT_EQUAL(cpu->run(s, &m, &o, NULL, &r, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "exec failed (ringsim exec --launch=threads exit 1)");
    rs_schedule_free(s);
}

RS_TEST_PROGRAM("backend")
