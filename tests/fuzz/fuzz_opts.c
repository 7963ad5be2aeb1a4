/* fuzz_opts.c - the option parser (cli/options.c: rs_cli_parse) on the commands' own option tables:
 * argv split from the input, parsed as the command parses it (rs_cli_command_parse over the groups
 * of rs_cli_model_groups or rs_cli_sweep_groups, cli/cli.h: the command's table, the job's fabric
 * knobs when built with SimGrid, the shared problem and hardware table), then what the command does
 * with the values before it runs anything.
 *
 * Input: one argument per line (a final newline ends the last one); the first line is argv[0], the
 * command. "sweep" parses as `ringsim sweep` does (-S, -N, --block take ranges, --profile a list,
 * fabric knobs) and sets up its points (rs_sweep_points_setup, at most 64; with fabric knobs the
 * background is sized: rs_cli_job_background); anything else parses as `ringsim model` does and
 * finishes its setup (rs_setup_finish: profile, overrides, machine, every problem). Profiles, tiers
 * and models are loaded only when they name presets (a path could name /dev/stdin).
 * Contract checked: a refused command line gives a one-line message, naming the option when it is
 * about one; accepted values stay in their ranges; parsing the same argv twice gives the same result
 * (nothing leaks from one parse into the next); what the command then checks passes or is refused
 * with a message, and a setup it passes holds a valid machine and problems. */
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fuzz.h"

#define MAX_ARGS 64

/* a preset name: no '/', no ".json" ending (profile.c's and memory.c's rule) */
static bool preset_name(const char *s) {
    size_t n = strlen(s);
    return !strchr(s, '/') && !(n >= 5 && !strcasecmp(s + n - 5, ".json"));
}

static void check_setup(const rs_setup_t *c) {
    const rs_problem_t *p = &c->problem;
    RS_FUZZ_CHECK(p->seq_tokens >= 1 && p->n_ranks >= 1 && p->batch >= 1 && p->q_heads >= 1 && p->kv_heads >= 1);
    RS_FUZZ_CHECK(p->head_dim >= 1 && p->grad_bytes >= 1 && p->grad_bytes <= 8 && p->tile_q >= 1 && p->tile_k >= 1);
    RS_FUZZ_CHECK(c->n_layouts >= 1 && c->n_layouts <= RS_LAYOUT_COUNT);
    for (int i = 0; i < c->n_layouts; i++) RS_FUZZ_CHECK(c->layouts[i] >= 0 && c->layouts[i] < RS_LAYOUT_COUNT);
    RS_FUZZ_CHECK(c->n_passes >= 1 && c->n_passes <= RS_PASS_COUNT);
    for (int j = 0; j < c->n_passes; j++) RS_FUZZ_CHECK(c->passes[j] >= 0 && c->passes[j] < RS_PASS_COUNT);
    const rs_machine_spec_t *s = &c->spec;
    RS_FUZZ_CHECK(s->dtype >= 0 && s->dtype < RS_DTYPE_COUNT && p->act_bytes == rs_dtype_bytes(s->dtype));
    RS_FUZZ_CHECK(s->perturb.n_stragglers >= 0 && s->perturb.n_stragglers <= RS_MAX_PERTURB);
    RS_FUZZ_CHECK(s->perturb.n_degraded >= 0 && s->perturb.n_degraded <= RS_MAX_PERTURB);
    RS_FUZZ_CHECK(s->jitter >= 0 && s->jitter < 1);
    RS_FUZZ_CHECK(s->overlap <= 1 && (s->slowdown < 0 || s->slowdown >= 1));
    RS_FUZZ_CHECK(memchr(s->profile, '\0', sizeof s->profile) && memchr(s->inter, '\0', sizeof s->inter));
}

/* After rs_setup_finish (or a sweep point's setup): the machine and every problem are valid. */
static void check_finished(const rs_machine_t *m, const rs_problem_t *p) {
    rs_err_t err = {0};
    RS_FUZZ_CHECK(rs_machine_validate(m, p->n_ranks, &err) == 0);
    RS_FUZZ_CHECK(rs_problem_validate(p, &err) == 0);
}

static void model_finish(rs_cli_model_t *m) {
    rs_setup_t *c = &m->c;
    if (!preset_name(c->spec.profile) || (c->spec.inter[0] && !preset_name(c->spec.inter))) return;
    rs_err_t err = {0};
    int rc = rs_setup_finish(c, &err);
    rs_fuzz_note("rs_setup_finish", rc, err.msg);
    if (rc != 0) {
        rs_fuzz_check_refused(rc, err.msg);
        return;
    }
    for (int i = 0; i < c->n_layouts; i++)
        for (int j = 0; j < c->n_passes; j++) {
            const rs_problem_t p = rs_setup_problem(c, i, j);
            check_finished(&c->machine, &p);
        }
}

static void check_sweep(const rs_cli_sweep_t *s) {
    const rs_sweep_spec_t *sp = &s->spec;
    check_setup(&sp->common);
    RS_FUZZ_CHECK(sp->n_profiles >= 0 && sp->n_profiles <= RS_SWEEP_MAX_PROFILES);
    for (int k = 0; k < sp->n_profiles; k++)
        RS_FUZZ_CHECK(sp->profiles[k][0] && memchr(sp->profiles[k], '\0', sizeof sp->profiles[k]));
    RS_FUZZ_CHECK(sp->n_blocks >= 0 && sp->n_blocks <= RS_SWEEP_MAX_VALUES);
    RS_FUZZ_CHECK(sp->n_ranks >= 0 && sp->n_ranks <= RS_SWEEP_MAX_VALUES);
    RS_FUZZ_CHECK(sp->n_seqs >= 0 && sp->n_seqs <= RS_SWEEP_MAX_VALUES);
    for (int k = 0; k < sp->n_blocks; k++) RS_FUZZ_CHECK(sp->blocks[k] >= 1 && sp->blocks[k] <= UINT32_MAX);
    for (int k = 0; k < sp->n_ranks; k++) RS_FUZZ_CHECK(sp->ranks[k] >= 1 && sp->ranks[k] <= INT32_MAX);
    for (int k = 0; k < sp->n_seqs; k++) RS_FUZZ_CHECK(sp->seqs[k] >= 1 && sp->seqs[k] <= UINT32_MAX);
    RS_FUZZ_CHECK(sp->exec_max_ranks >= 1 && sp->exec_max_ranks <= 1024);
    RS_FUZZ_CHECK(!sp->exec_launch || !strcmp(sp->exec_launch, "mpirun") || !strcmp(sp->exec_launch, "threads"));
#ifdef RINGSIM_HAVE_SIM
    const rs_contention_knobs_t *k = &s->job.k;
    RS_FUZZ_CHECK(k->tp >= 1 && k->dp >= 1 && k->devices >= 0 && k->nodes_per_leaf >= 0);
    RS_FUZZ_CHECK(k->n_orders >= 1 && k->n_orders <= RS_CONT_MAX_VALUES);
    RS_FUZZ_CHECK(k->n_fabrics >= 1 && k->n_fabrics <= RS_CONT_MAX_VALUES);
    RS_FUZZ_CHECK(k->n_nics >= 1 && k->n_nics <= RS_CONT_MAX_VALUES);
    RS_FUZZ_CHECK(k->n_oversubs >= 1 && k->n_oversubs <= RS_CONT_MAX_VALUES);
    for (int i = 0; i < k->n_fabrics; i++) RS_FUZZ_CHECK(k->fabrics[i] >= 0 && k->fabrics[i] < RS_FABRIC_COUNT);
    for (int i = 0; i < k->n_nics; i++) RS_FUZZ_CHECK(k->nics[i] >= 0);
    for (int i = 0; i < k->n_oversubs; i++) RS_FUZZ_CHECK(k->oversubs[i] >= 1 && k->oversubs[i] <= 1e6);
    RS_FUZZ_CHECK(s->job.bg_bytes >= 0);
#endif
}

/* rs_cmd_sweep's checks before it runs a point: --block with --seq, the points, the background. */
static void sweep_finish(rs_cli_sweep_t *s, bool job) {
    rs_sweep_spec_t *sp = &s->spec;
    if (sp->n_blocks && sp->n_seqs) return; /* refused by the command ("give one") */
    const size_t n = rs_sweep_count(sp);
    if (n > 64) return;
    if (!preset_name(sp->common.spec.profile) || (sp->common.spec.inter[0] && !preset_name(sp->common.spec.inter))) return;
    for (int k = 0; k < sp->n_profiles; k++)
        if (!preset_name(sp->profiles[k])) return;
    rs_sweep_point_t *pts = calloc(n, sizeof *pts);
    RS_FUZZ_CHECK(pts != NULL);
    rs_err_t err = {0};
    int rc = rs_sweep_points_setup(sp, pts, &err);
    rs_fuzz_note("rs_sweep_points_setup", rc, err.msg);
    if (rc != 0) {
        rs_fuzz_check_refused(rc, err.msg);
    } else {
        for (size_t i = 0; i < n; i++) check_finished(&pts[i].machine, &pts[i].problem);
#ifdef RINGSIM_HAVE_SIM
        if (job && (!s->job.model || preset_name(s->job.model))) {
            rc = rs_cli_job_background(&s->job, &pts[0].problem, &err);
            rs_fuzz_note("rs_cli_job_background", rc, err.msg);
            if (rc != 0) rs_fuzz_check_refused(rc, err.msg);
            else RS_FUZZ_CHECK(s->job.k.background.param_bytes >= 0 && s->job.k.background.grad_bytes >= 0);
        }
#endif
    }
    (void)job;
    free(pts);
}

/* One parse of argv as the command does it: its groups (defaults set), then rs_cli_command_parse
 * (model's groups fit: rs_cli_model_groups fills 2).
 * st: an rs_cli_model_t or rs_cli_sweep_t; seen: each group's seen bits. Returns 1, 0 or -1. */
static int parse(int argc, char **argv, bool sweep, void *st, uint64_t *seen, rs_err_t *err) {
    rs_opt_group_t groups[RS_CLI_SWEEP_GROUPS];
    const int n = sweep ? rs_cli_sweep_groups(st, groups) : rs_cli_model_groups(st, groups);
    const int rc = rs_cli_command_parse(rs_cli_command(sweep ? "sweep" : "model"), argc, argv, groups, n, err);
    for (int g = 0; g < n; g++) seen[g] = groups[g].seen;
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = rs_fuzz_text(data, size);
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    for (char *s = text; argc < MAX_ARGS;) {
        argv[argc++] = s;
        char *nl = memchr(s, '\n', (size_t)(text + size - s));
        if (!nl) break;
        *nl = '\0';
        s = nl + 1;
    }
    if (argc > 1 && !argv[argc - 1][0] && size && data[size - 1] == '\n') argc--; /* the last line's newline */
    argv[argc] = NULL;
    const bool sweep = !strcmp(argv[0], "sweep");
    const size_t st_size = sweep ? sizeof(rs_cli_sweep_t) : sizeof(rs_cli_model_t);
    /* parse twice (getopt permutes argv: each parse gets its own copy): a parse depends on its
     * arguments only, not on what an earlier parse in the process left behind */
    void *st[2];
    uint64_t seen[2][RS_CLI_SWEEP_GROUPS] = {{0}};
    rs_err_t err[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        char *args[MAX_ARGS + 1];
        memcpy(args, argv, sizeof args);
        st[k] = malloc(st_size);
        RS_FUZZ_CHECK(st[k] != NULL);
        memset(&err[k], 0, sizeof err[k]);
        rc[k] = parse(argc, args, sweep, st[k], seen[k], &err[k]);
    }
    rs_fuzz_note("options", rc[0] == 1 ? 0 : rc[0], err[0].msg);
    RS_FUZZ_CHECK(rc[0] == rc[1] && !strcmp(err[0].msg, err[1].msg));
    RS_FUZZ_CHECK(!memcmp(seen[0], seen[1], sizeof seen[0]));
    RS_FUZZ_CHECK(!memcmp(st[0], st[1], st_size));
    if (rc[0] < 0) {
        rs_fuzz_check_refused(rc[0], err[0].msg);
        /* a message about an option names the option ("-z", "--seq"), not a neighbouring argument */
        const char *m = err[0].msg;
        if (!strncmp(m, "unknown option '", 16)) RS_FUZZ_CHECK(m[16] == '-');
        if (!strncmp(m, "option '", 8)) RS_FUZZ_CHECK(m[8] == '-');
    } else if (rc[0] == 0 && sweep) {
        check_sweep(st[0]);
#ifdef RINGSIM_HAVE_SIM
        sweep_finish(st[0], seen[0][1] != 0); /* group 1: the job's fabric knobs */
#else
        sweep_finish(st[0], false);
#endif
    } else if (rc[0] == 0) {
        check_setup(&((rs_cli_model_t *)st[0])->c);
        model_finish(st[0]);
    }
    free(st[0]);
    free(st[1]);
    free(text);
    return 0;
}
