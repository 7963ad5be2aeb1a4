/* ring_walk.c - a small program on libringsim (docs/install.md): the closed form and the
 * critical-path walk of one Ring Attention problem on a preset machine, printed as key=value lines.
 *
 *   cc ring_walk.c $(pkg-config --cflags --libs ringsim) -o ring_walk   (or examples/CMakeLists.txt)
 *   ./ring_walk [PROFILE [SEQ [RANKS]]]      defaults: h100-sxm 128K 8, zigzag, forward, causal
 */
#include <stdio.h>
#include <stdlib.h>

#include <ringsim/ringsim.h>

int main(int argc, char **argv) {
    rs_err_t err = {0};
    rs_setup_t setup;
    rs_setup_default(&setup); /* the default problem and machine spec */
    if (argc > 1) snprintf(setup.spec.profile, sizeof setup.spec.profile, "%s", argv[1]);
    if ((argc > 2 && rs_parse_size("seq", argv[2], 1, (int64_t)1 << 36, &setup.problem.seq_tokens, &err) != 0) ||
        (argc > 3 && rs_parse_size("ranks", argv[3], 1, 1 << 20, &setup.problem.n_ranks, &err) != 0) ||
        rs_setup_finish(&setup, &err) != 0) {
        fprintf(stderr, "ring_walk: %s\n", err.msg);
        return 2;
    }
    const rs_problem_t p = rs_setup_problem(&setup, 0, 0);
    rs_closed_t closed;
    rs_walk_t walk;
    rs_schedule_t *s = rs_schedule_create(&p, &err);
    if (!s || rs_model_closed(&p, &setup.machine, &closed, &err) != 0 ||
        rs_model_walk(s, &setup.machine, RS_NO_SINK, NULL, &walk, &err) != 0) {
        fprintf(stderr, "ring_walk: %s\n", err.msg);
        rs_schedule_free(s);
        return 1;
    }
    printf("library=%s headers=%s\n", rs_version(), RINGSIM_VERSION_STRING);
    printf("hw=%s layout=%s pass=%s seq_tokens=%lld n_ranks=%lld\n", setup.machine.hw_name, rs_layout_name(p.layout),
           rs_pass_name(p.pass), (long long)p.seq_tokens, (long long)p.n_ranks);
    printf("t_comp_s=%.17g\nt_comm_s=%.17g\nb_min_tokens=%.17g\nmakespan_s=%.17g\nbalance_efficiency=%.17g\n", closed.t_comp_s,
           closed.t_comm_s, closed.b_min_tokens, walk.makespan_s, walk.balance_efficiency);
    rs_schedule_free(s);
    return 0;
}
