/* test_impl_presets.c - the implementation presets (impl_presets.c) against the counts their comments
 * derive from ring-flash-attention, TransformerEngine and ringsim's executor: which preset exists, the
 * dK,dV dtype each sends, how each issues its calls, and its host side per step. */
#include "kernel.h"
#include "test_main.h"

RS_TEST(test_lookup, "every preset but none exists and names itself") {
    CU_ASSERT_PTR_NULL(rs_impl_preset(RS_IMPL_NONE));
    CU_ASSERT_PTR_NULL(rs_impl_preset(RS_IMPL_COUNT));
    for (int i = RS_IMPL_NONE + 1; i < RS_IMPL_COUNT; i++) {
        const rs_impl_preset_t *p = rs_impl_preset((rs_impl_t)i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_EQUAL(p->impl, (rs_impl_t)i);
    }
}

/* TE sends dK,dV in the activation dtype; ringsim and ring-flash-attention in fp32; none: the problem's. */
RS_TEST(test_grad_bytes, "dK,dV bytes per element in flight under each preset") {
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_NONE, 2), 0);
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_RINGSIM, 2), 4);
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_FLASH_ATTN, 2), 4);
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_TE, 2), 2);
    CU_ASSERT_EQUAL(rs_impl_grad_bytes(RS_IMPL_TE, 4), 4);
}

/* Only ringsim's kernel runs a step's blocks in one launch and keeps the shifted mask; only TE defers
 * the forward's corrections past the ring loop. */
RS_TEST(test_issue, "how each preset issues its calls") {
    const rs_impl_preset_t *r = rs_impl_preset(RS_IMPL_RINGSIM), *f = rs_impl_preset(RS_IMPL_FLASH_ATTN),
                           *t = rs_impl_preset(RS_IMPL_TE);
    CU_ASSERT(r->fused && r->shifted_native && !r->fwd_deferred);
    CU_ASSERT(!f->fused && !f->shifted_native && !f->fwd_deferred);
    CU_ASSERT(!t->fused && t->fwd_deferred);
}

/* The host side per step, [pass][step 0, later]: ringsim's post, compute events and waits (16 host-only
 * calls, 18 and 20 in the backward) with one host sync a step (two in a later backward step);
 * ring-flash-attention's 13/15 forward and 20/26 backward calls, no sync; TE's 14 and 20, no sync. */
RS_TEST(test_host, "each preset's host calls and syncs per step") {
    const rs_impl_host_t *r = &rs_impl_preset(RS_IMPL_RINGSIM)->host, *f = &rs_impl_preset(RS_IMPL_FLASH_ATTN)->host,
                         *t = &rs_impl_preset(RS_IMPL_TE)->host;
    CU_ASSERT(r->calls[0][0] == 16 && r->calls[0][1] == 16 && r->calls[1][0] == 18 && r->calls[1][1] == 20);
    CU_ASSERT(r->syncs[0][0] == 1 && r->syncs[0][1] == 1 && r->syncs[1][0] == 1 && r->syncs[1][1] == 2);
    CU_ASSERT(f->calls[0][0] == 13 && f->calls[0][1] == 15 && f->calls[1][0] == 20 && f->calls[1][1] == 26);
    CU_ASSERT(f->syncs[0][0] == 0 && f->syncs[1][1] == 0);
    CU_ASSERT(t->calls[0][0] == 14 && t->calls[1][1] == 20 && t->syncs[0][0] == 0);
    RS_ASSERT_REL(r->call_s.point, 2.7e-6, 0);
    CU_ASSERT(r->call_s.lo == 2.6e-6 && r->call_s.hi == 2.8e-6);
    RS_ASSERT_REL(f->call_s.point, 8e-6, 0);
}

RS_TEST_PROGRAM("impl_presets")
