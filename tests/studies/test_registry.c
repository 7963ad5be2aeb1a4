/* test_registry.c - the table of the backends this build has (studies/registry.c): the order, the
 * lookup, and rs_backend_get's messages and kind for names the build lacks or that are not what the
 * option accepts. */
#include <string.h>

#include "registry.h"
#include "test_main.h"

/* model first, then sim, cpu and gpu as built, each found by its name. */
RS_TEST(test_table_order, "the table: model first, in order, found by name") {
    const rs_backend_ops_t *const *all = rs_backends();
    static const char *const order[] = {"model", "sim", "cpu", "gpu"};
    int k = 0, n = 0;
    for (; all[n]; n++) {
        while (k < 4 && strcmp(order[k], all[n]->name) != 0) k++;
        CU_ASSERT(k < 4); /* in the table's order */
        CU_ASSERT_PTR_EQUAL(rs_backend_find(all[n]->name), all[n]);
    }
    CU_ASSERT_STRING_EQUAL(all[0]->name, "model");
    CU_ASSERT_PTR_EQUAL(all[0], &rs_walk_backend);
    CU_ASSERT_PTR_NULL(all[0]->exec); /* the walk is no executor */
#ifdef RINGSIM_HAVE_EXEC
    CU_ASSERT_PTR_NOT_NULL_FATAL(rs_backend_find("cpu"));
    CU_ASSERT_PTR_NOT_NULL(rs_backend_find("cpu")->exec);
#endif
    CU_ASSERT_PTR_NULL(rs_backend_find("tpu"));
    CU_ASSERT_PTR_NULL(rs_backend_find(NULL));
}

/* rs_backend_get: the backend, or bad input naming the option's value and what is accepted. */
RS_TEST(test_get_messages, "rs_backend_get: messages and kind of each refusal") {
    const rs_backend_ops_t *be = NULL;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_backend_get("model", false, &be, &err), 0);
    CU_ASSERT_PTR_EQUAL(be, &rs_walk_backend);
    CU_ASSERT_EQUAL(rs_backend_get("tpu", true, &be, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--backend tpu: expected cpu or gpu");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    err.code = RS_ERR_TIMEOUT; /* the kind is set by the refusal, not kept from before */
    CU_ASSERT_EQUAL(rs_backend_get("tpu", false, &be, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--backend tpu: expected model, sim, cpu or gpu");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(rs_backend_get("model", true, &be, &err), -1); /* not an executor */
    CU_ASSERT_STRING_EQUAL(err.msg, "--backend model: expected cpu or gpu");
    CU_ASSERT_EQUAL(rs_backend_get(NULL, true, &be, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--backend (none): expected cpu or gpu");
    if (!rs_backend_find("gpu")) {
        CU_ASSERT_EQUAL(rs_backend_get("gpu", true, &be, &err), -1);
        CU_ASSERT_STRING_EQUAL(err.msg, "--backend gpu: this build has no GPU executor (needs nvcc, NCCL and exec/gpu/gpu.h)");
        CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    }
    if (!rs_backend_find("sim")) {
        CU_ASSERT_EQUAL(rs_backend_get("sim", false, &be, &err), -1);
        CU_ASSERT_STRING_EQUAL(err.msg, "--backend sim: this build has no SimGrid backend (install libsimgrid-dev and reconfigure)");
    } else {
        CU_ASSERT_EQUAL(rs_backend_get("sim", true, &be, &err), -1); /* built, but not an executor */
        CU_ASSERT_STRING_EQUAL(err.msg, "--backend sim: expected cpu or gpu");
    }
}

/* The options' defaults: nothing set. */
RS_TEST(test_opts_default, "rs_backend_opts_default: nothing set") {
    rs_backend_opts_t o;
    memset(&o, 0xff, sizeof o);
    rs_backend_opts_default(&o);
    CU_ASSERT_PTR_NULL(o.rank_busy_s);
    CU_ASSERT_PTR_NULL(o.exec_bin);
    CU_ASSERT_PTR_NULL(o.exec_launch);
    CU_ASSERT_EQUAL(o.timeout_s, 0);
}

RS_TEST_PROGRAM("registry")
