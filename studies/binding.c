/* binding.c - libringsim for callers in other languages (binding.h). */
#include "binding.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "memory.h"
#include "ranges.h" /* the machine fields' ranges: rs_binding_machine_range */
#include "plan.h"

const char *rs_version(void) { return RINGSIM_VERSION; }

/* ---------------------------------------------------------------------------------------------------
 * Struct layouts: the compiler's offsets and sizes; the kind from the field's type (_Generic: an
 * array field decays to a pointer to its element type; an enum is its compatible unsigned int).
 * ------------------------------------------------------------------------------------------------- */
#define KIND(x)                                                                                          \
    _Generic((x), int64_t: 'q', uint64_t: 'Q', int32_t: 'i', uint32_t: 'I', double: 'd', bool: '?',        \
             char *: 's', const char *: 'p', int64_t *: 'q', uint64_t *: 'Q', int32_t *: 'i', uint32_t *: 'I', double *: 'd', \
             bool *: '?', default: 'x')
#define TYPE(T) {#T, NULL, 0, sizeof(T), 0, NULL}
#define F(T, f) {#T, #f, offsetof(T, f), sizeof(((T *)0)->f), KIND(((T *)0)->f), NULL}
#define SUB(T, f, S) {#T, #f, offsetof(T, f), sizeof(((T *)0)->f), 'T', #S}
#define OPAQUE(T, f) {#T, #f, offsetof(T, f), sizeof(((T *)0)->f), 'x', NULL}

static const rs_abi_field_t table[] = {
    TYPE(rs_err_t), F(rs_err_t, msg), F(rs_err_t, code),
    TYPE(rs_estimate_t), F(rs_estimate_t, rank_steps), F(rs_estimate_t, time_s), F(rs_estimate_t, mem_bytes),
    TYPE(rs_limits_t), F(rs_limits_t, max_time_s), F(rs_limits_t, max_mem_bytes),
    TYPE(rs_rate_source_t), F(rs_rate_source_t, kind), F(rs_rate_source_t, source),
    TYPE(rs_binding_walk_in_t), F(rs_binding_walk_in_t, layout_i), F(rs_binding_walk_in_t, pass_j), F(rs_binding_walk_in_t, cap),
    TYPE(rs_plan_candidate_spec_t), F(rs_plan_candidate_spec_t, profile), F(rs_plan_candidate_spec_t, precision),
    F(rs_plan_candidate_spec_t, gpus_per_node), F(rs_plan_candidate_spec_t, inter), F(rs_plan_candidate_spec_t, price),
    F(rs_plan_candidate_spec_t, impl), F(rs_plan_candidate_spec_t, kernel), F(rs_plan_candidate_spec_t, attn_eff),
    F(rs_plan_candidate_spec_t, allow_implausible),
    TYPE(rs_problem_t), F(rs_problem_t, seq_tokens), F(rs_problem_t, n_ranks), F(rs_problem_t, batch),
    F(rs_problem_t, q_heads), F(rs_problem_t, kv_heads), F(rs_problem_t, head_dim), F(rs_problem_t, act_bytes),
    F(rs_problem_t, grad_bytes), F(rs_problem_t, causal), F(rs_problem_t, layout), F(rs_problem_t, pass),
    F(rs_problem_t, tile_q), F(rs_problem_t, tile_k), F(rs_problem_t, ring),
    F(rs_problem_t, cached_tokens), F(rs_problem_t, decode),
    TYPE(rs_perturb_t), F(rs_perturb_t, n_stragglers), F(rs_perturb_t, straggler_rank), F(rs_perturb_t, straggler_factor),
    F(rs_perturb_t, n_degraded), F(rs_perturb_t, degraded_hop), F(rs_perturb_t, degraded_factor),
    TYPE(rs_machine_spec_t), F(rs_machine_spec_t, profile), F(rs_machine_spec_t, inter), F(rs_machine_spec_t, dtype),
    F(rs_machine_spec_t, gpus_per_node), F(rs_machine_spec_t, flops), F(rs_machine_spec_t, bw),
    F(rs_machine_spec_t, inter_bw), F(rs_machine_spec_t, latency), F(rs_machine_spec_t, launch), F(rs_machine_spec_t, host_call),
    F(rs_machine_spec_t, overlap), F(rs_machine_spec_t, slowdown), F(rs_machine_spec_t, host_xfer),
    F(rs_machine_spec_t, host_byte), F(rs_machine_spec_t, jitter), F(rs_machine_spec_t, seed),
    SUB(rs_machine_spec_t, perturb, rs_perturb_t), F(rs_machine_spec_t, impl), F(rs_machine_spec_t, kernel), F(rs_machine_spec_t, bound),
    F(rs_machine_spec_t, allow_implausible),
    TYPE(rs_setup_t), SUB(rs_setup_t, problem, rs_problem_t), F(rs_setup_t, n_layouts), F(rs_setup_t, layouts),
    F(rs_setup_t, n_passes), F(rs_setup_t, passes), SUB(rs_setup_t, spec, rs_machine_spec_t), F(rs_setup_t, grad_bytes_given), F(rs_setup_t, ring_given), OPAQUE(rs_setup_t, limits), F(rs_setup_t, model),
    OPAQUE(rs_setup_t, perturb_args), OPAQUE(rs_setup_t, hw),
    OPAQUE(rs_setup_t, machine), F(rs_setup_t, kernel_notes), F(rs_setup_t, note), F(rs_setup_t, warning),
    TYPE(rs_closed_t), F(rs_closed_t, block_tokens), F(rs_closed_t, flops_per_pair), F(rs_closed_t, bytes_per_token),
    F(rs_closed_t, bytes_per_step), F(rs_closed_t, f_peak_per_s), F(rs_closed_t, f_eff_per_s), F(rs_closed_t, w_bytes_per_s),
    F(rs_closed_t, latency_s), F(rs_closed_t, t_comp_s), F(rs_closed_t, t_comm_s), F(rs_closed_t, t_step_s),
    F(rs_closed_t, makespan_s), F(rs_closed_t, b_min_tokens), F(rs_closed_t, b_star_tokens), F(rs_closed_t, comm_bound),
    F(rs_closed_t, a2a_s), F(rs_closed_t, work_s), F(rs_closed_t, fixed_s), F(rs_closed_t, b_fixed_tokens),
    TYPE(rs_walk_t), F(rs_walk_t, makespan_s), F(rs_walk_t, balance_efficiency), F(rs_walk_t, fraction_of_peak),
    F(rs_walk_t, peak_flops_per_s), F(rs_walk_t, load_balance), F(rs_walk_t, t_comp_max_s),
    F(rs_walk_t, t_comm_max_s), F(rs_walk_t, busy_max_s), F(rs_walk_t, busy_mean_s), F(rs_walk_t, flops_useful),
    F(rs_walk_t, flops_exec), F(rs_walk_t, comm_bound_steps), F(rs_walk_t, rank_steps), F(rs_walk_t, wall_s),
    TYPE(rs_event_t), F(rs_event_t, rank), F(rs_event_t, step), F(rs_event_t, pass), F(rs_event_t, kind),
    F(rs_event_t, peer), F(rs_event_t, start_s), F(rs_event_t, end_s), F(rs_event_t, flops), F(rs_event_t, bytes),
    TYPE(rs_transformer_t), F(rs_transformer_t, name), F(rs_transformer_t, layers), F(rs_transformer_t, hidden),
    F(rs_transformer_t, q_heads), F(rs_transformer_t, kv_heads), F(rs_transformer_t, head_dim), F(rs_transformer_t, ffn),
    F(rs_transformer_t, ffn_kind), F(rs_transformer_t, vocab), F(rs_transformer_t, tied_embeddings),
    F(rs_transformer_t, params_reference), F(rs_transformer_t, source),
    TYPE(rs_mem_config_t), F(rs_mem_config_t, seq_tokens), F(rs_mem_config_t, sp_degree), F(rs_mem_config_t, ulysses_degree),
    F(rs_mem_config_t, batch), F(rs_mem_config_t, shard_devices), F(rs_mem_config_t, precision), F(rs_mem_config_t, ckpt),
    F(rs_mem_config_t, chunk_tokens), F(rs_mem_config_t, loss_chunk_tokens), F(rs_mem_config_t, tp_degree),
    F(rs_mem_config_t, runtime),
    TYPE(rs_mem_t), F(rs_mem_t, local_tokens), F(rs_mem_t, params), F(rs_mem_t, params_device), F(rs_mem_t, weights_bytes), F(rs_mem_t, grads_bytes),
    F(rs_mem_t, optim_bytes), F(rs_mem_t, fsdp_unit_bytes), F(rs_mem_t, act_per_token_layer_bytes),
    F(rs_mem_t, act_saved_bytes), F(rs_mem_t, layer_work_bytes), F(rs_mem_t, ring_fwd_bytes), F(rs_mem_t, ring_bwd_bytes),
    F(rs_mem_t, ring_bytes), F(rs_mem_t, ring_shared_bytes), F(rs_mem_t, a2a_bytes), F(rs_mem_t, ffn_chunk_bytes),
    F(rs_mem_t, logits_chunk_bytes), F(rs_mem_t, model_bytes), F(rs_mem_t, attn_workspace_bytes), F(rs_mem_t, context_bytes),
    F(rs_mem_t, comm_bytes), F(rs_mem_t, fragmentation_bytes), F(rs_mem_t, total_bytes), F(rs_mem_t, total_low_bytes),
    F(rs_mem_t, total_high_bytes),
    TYPE(rs_sp_cost_t), F(rs_sp_cost_t, kind), F(rs_sp_cost_t, ulysses), F(rs_sp_cost_t, ring), F(rs_sp_cost_t, a2a_inter),
    F(rs_sp_cost_t, ring_inter), F(rs_sp_cost_t, a2a_fwd_bytes), F(rs_sp_cost_t, a2a_bwd_bytes), F(rs_sp_cost_t, a2a_fwd_s),
    F(rs_sp_cost_t, a2a_bwd_s), F(rs_sp_cost_t, attn_fwd_s), F(rs_sp_cost_t, attn_bwd_s), F(rs_sp_cost_t, fwd_s),
    F(rs_sp_cost_t, bwd_s), F(rs_sp_cost_t, ring_block_tokens), F(rs_sp_cost_t, ring_t_comp_s), F(rs_sp_cost_t, ring_t_comm_s),
    F(rs_sp_cost_t, ring_b_star_tokens), F(rs_sp_cost_t, comm_bound_fwd), F(rs_sp_cost_t, comm_bound_bwd),
    F(rs_sp_cost_t, ring_hidden_fwd), F(rs_sp_cost_t, ring_hidden_bwd), F(rs_sp_cost_t, walk_eff_fwd),
    F(rs_sp_cost_t, flops_useful_fwd), F(rs_sp_cost_t, flops_useful_bwd),
    TYPE(rs_plan_config_t), SUB(rs_plan_config_t, model, rs_transformer_t), F(rs_plan_config_t, seq_tokens),
    F(rs_plan_config_t, global_batch), F(rs_plan_config_t, dp), F(rs_plan_config_t, max_sp), F(rs_plan_config_t, fixed_sp),
    F(rs_plan_config_t, precision), F(rs_plan_config_t, ckpt), F(rs_plan_config_t, chunk_tokens), F(rs_plan_config_t, causal),
    F(rs_plan_config_t, layout), F(rs_plan_config_t, tile), F(rs_plan_config_t, usable_frac), F(rs_plan_config_t, linear_eff),
    F(rs_plan_config_t, alternatives), F(rs_plan_config_t, tp), F(rs_plan_config_t, fp8_linear),
    F(rs_plan_config_t, loss_chunk_tokens), F(rs_plan_config_t, runtime),
    TYPE(rs_plan_option_t), F(rs_plan_option_t, kind), F(rs_plan_option_t, ulysses), F(rs_plan_option_t, ring),
    F(rs_plan_option_t, fits), F(rs_plan_option_t, mem_bytes), SUB(rs_plan_option_t, attn, rs_sp_cost_t),
    F(rs_plan_option_t, t_attn_layer_s), F(rs_plan_option_t, t_linear_layer_s), F(rs_plan_option_t, t_layer_s),
    F(rs_plan_option_t, t_head_s), F(rs_plan_option_t, t_micro_s), F(rs_plan_option_t, t_step_s),
    F(rs_plan_option_t, model_flops_step), F(rs_plan_option_t, mfu), F(rs_plan_option_t, cost_per_step),
    F(rs_plan_option_t, cost_per_mtok), F(rs_plan_option_t, tp), F(rs_plan_option_t, dp), F(rs_plan_option_t, accum),
    F(rs_plan_option_t, layout), F(rs_plan_option_t, usable_bytes), F(rs_plan_option_t, t_tp_layer_s),
    F(rs_plan_option_t, linear_eff),
    TYPE(rs_plan_result_t), F(rs_plan_result_t, hw_name), F(rs_plan_result_t, devices_per_node),
    F(rs_plan_result_t, usable_bytes), F(rs_plan_result_t, seq_tokens), F(rs_plan_result_t, seq_capped),
    F(rs_plan_result_t, seq_tokens_low), F(rs_plan_result_t, seq_tokens_high),
    F(rs_plan_result_t, sp), F(rs_plan_result_t, dp), F(rs_plan_result_t, accum), F(rs_plan_result_t, devices),
    F(rs_plan_result_t, fits), F(rs_plan_result_t, shortfall_bytes), F(rs_plan_result_t, n_limit),
    SUB(rs_plan_result_t, mem, rs_mem_t), F(rs_plan_result_t, n_options), SUB(rs_plan_result_t, options, rs_plan_option_t),
    F(rs_plan_result_t, best), F(rs_plan_result_t, why),
    {NULL, NULL, 0, 0, 0, NULL},
};

const rs_abi_field_t *rs_abi_fields(void) { return table; }

int rs_binding_machine_range(const char *field, double *min, double *max) {
    static const struct {
        const char *name;
        double range[2];
    } t[] = {{"flops", {RS_RANGE_FLOPS}},         {"bw", {RS_RANGE_BW}},
             {"inter_bw", {RS_RANGE_BW}},         {"latency", {RS_RANGE_LATENCY}},
             {"launch", {RS_RANGE_LAUNCH}},       {"host_call", {RS_RANGE_LAUNCH}},
             {"overlap", {RS_RANGE_OVERLAP}},
             {"slowdown", {RS_RANGE_SLOWDOWN}},   {"host_xfer", {RS_RANGE_HOST_XFER}},
             {"host_byte", {RS_RANGE_HOST_BYTE}}, {"jitter", {RS_RANGE_JITTER}},
             {"factor", {RS_RANGE_FACTOR}},       {"gpus_per_node", {RS_RANGE_GPUS_PER_NODE}}};
    for (size_t i = 0; field && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(field, t[i].name)) {
            *min = t[i].range[0], *max = t[i].range[1];
            return 0;
        }
    return -1;
}

/* ---------------------------------------------------------------------------------------------------
 * The walk and the closed form of a setup's entry
 * ------------------------------------------------------------------------------------------------- */
int rs_binding_rate(const rs_setup_t *s, int r, rs_rate_source_t *out, bool *skipped, rs_err_t *err) {
    if (r < 0 || r >= RS_RATE_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "rate %d: must be in [0, %d]", r, RS_RATE_COUNT - 1);
    *out = s->machine.src.rate[r];
    if (skipped) *skipped = rs_machine_rates_skip(&s->machine, s->problem.n_ranks) >> r & 1u;
    return 0;
}

int rs_binding_rate_count(void) { return RS_RATE_COUNT; }

void rs_binding_problem(const rs_setup_t *s, int layout_i, int pass_j, rs_problem_t *out) {
    *out = rs_setup_problem(s, layout_i, pass_j);
}

int rs_binding_closed(const rs_setup_t *s, int layout_i, int pass_j, rs_closed_t *out, rs_err_t *err) {
    const rs_problem_t p = rs_setup_problem(s, layout_i, pass_j);
    return rs_model_b_star(&p, &s->machine, out, err); /* the closed form with B* */
}

size_t rs_binding_walk_events(const rs_setup_t *s, int layout_i, int pass_j) {
    const rs_problem_t p = rs_setup_problem(s, layout_i, pass_j);
    return (size_t)p.n_ranks * (size_t)(p.n_ranks + 1) * RS_EV_KIND_COUNT; /* backward: N + 1 steps */
}

typedef struct {
    rs_event_t *ev;
    size_t cap, n;
} event_array_t;

static int keep_event(void *ctx, const rs_event_t *ev) {
    event_array_t *a = ctx;
    if (a->n < a->cap) a->ev[a->n] = *ev;
    a->n++;
    return 0;
}

int rs_binding_walk(const rs_setup_t *s, const rs_binding_walk_in_t *in, rs_event_t *events, size_t *n_events, rs_walk_t *out,
                    rs_err_t *err) {
    const rs_problem_t p = rs_setup_problem(s, in->layout_i, in->pass_j);
    const size_t cap = events ? (size_t)in->cap : 0;
    rs_schedule_t *sch = rs_schedule_create(&p, err);
    if (!sch) return -1;
    event_array_t a = {events, cap, 0};
    const rs_event_sink_t sink = events ? (rs_event_sink_t){keep_event, &a} : RS_NO_SINK;
    int rc = rs_model_walk(sch, &s->machine, sink, NULL, out, err);
    rs_schedule_free(sch);
    if (n_events) *n_events = a.n < cap ? a.n : cap;
    if (rc == 0 && a.n > cap) rc = rs_errc(err, RS_ERR_BAD_INPUT, "walk: %zu events, room for %zu", a.n, cap);
    return rc;
}
