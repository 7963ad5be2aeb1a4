/* fuzz_opts.c - the option parser: argv split from the input, parsed as the commands parse it
 * (getopt_long over the shared table with rs_cli_common_opt, cli/common.c), then
 * rs_cli_common_finish (profile, overrides, machine and problem validation).
 *
 * Input: one argument per line (a final newline ends the last one); the first line is argv[0], the command. "sweep" parses as
 * `ringsim sweep` does (--block, --ranks and --seq take ranges: rs_sweep_parse_range, --profile a
 * list) and sets up its points (rs_sweep_point_setup, at most 64); anything else parses as
 * `ringsim model` does. --profile and --inter are loaded only when they name presets (a path could
 * name /dev/stdin).
 * Contract checked: a refused value gives a message; accepted values stay in their ranges; parsing
 * the same argv twice gives the same result (nothing leaks from one parse into the next). */
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fuzz.h"
#include "sweep.h"

#define MAX_ARGS 64

enum { OPT_BLOCK = 3000 };
static const struct option own_opts[] = {{"block", required_argument, NULL, OPT_BLOCK}};

/* a preset name: no '/', no ".json" ending (hw.c's rule) */
static bool preset_name(const char *s) {
    size_t n = strlen(s);
    return !strchr(s, '/') && !(n >= 5 && !strcasecmp(s + n - 5, ".json"));
}

static void check_common(const rs_cli_common_t *c) {
    const rs_problem_t *p = &c->problem;
    RS_FUZZ_CHECK(p->seq_tokens >= 1 && p->n_ranks >= 1 && p->batch >= 1 && p->q_heads >= 1 && p->kv_heads >= 1);
    RS_FUZZ_CHECK(p->head_dim >= 1 && p->grad_bytes >= 1 && p->grad_bytes <= 8 && p->tile_q >= 1 && p->tile_k >= 1);
    RS_FUZZ_CHECK(c->n_layouts >= 1 && c->n_layouts <= RS_LAYOUT_COUNT);
    RS_FUZZ_CHECK(c->n_passes >= 1 && c->n_passes <= RS_PASS_COUNT);
    RS_FUZZ_CHECK(c->n_stragglers >= 0 && c->n_stragglers <= RS_MAX_PERTURB);
    RS_FUZZ_CHECK(c->n_degraded >= 0 && c->n_degraded <= RS_MAX_PERTURB);
    RS_FUZZ_CHECK(c->jitter >= 0 && c->jitter < 1);
    RS_FUZZ_CHECK(memchr(c->profile, '\0', sizeof c->profile) && memchr(c->inter, '\0', sizeof c->inter));
}

/* Parse argv as `ringsim model` (sweep = false) or `ringsim sweep`. Returns 0 or -1 (refused). */
static int parse(int argc, char **argv, bool sweep, rs_sweep_spec_t *spec, rs_err_t *err) {
    struct option *opts = rs_cli_merge_longopts(own_opts, sweep ? 1 : 0);
    RS_FUZZ_CHECK(opts != NULL);
    rs_cli_common_t *c = &spec->common;
    int rc = 0, o;
    rs_cli_getopt_reset();
    while (rc == 0 && (o = getopt_long(argc, argv, RS_CLI_COMMON_SHORTOPTS, opts, NULL)) != -1) {
        int r;
        if (sweep && o == OPT_BLOCK)
            r = spec->n_blocks = rs_sweep_parse_range("--block", optarg, 1, (int64_t)UINT32_MAX, spec->blocks,
                                                      RS_SWEEP_MAX_VALUES, err);
        else if (sweep && (o == 'N' || o == RS_OPT_RANKS))
            r = spec->n_ranks = rs_sweep_parse_range("--ranks", optarg, 1, INT32_MAX, spec->ranks, RS_SWEEP_MAX_VALUES, err);
        else if (sweep && (o == 'S' || o == RS_OPT_SEQ))
            r = spec->n_seqs = rs_sweep_parse_range("--seq", optarg, 1, (int64_t)UINT32_MAX, spec->seqs, RS_SWEEP_MAX_VALUES, err);
        else
            r = rs_cli_common_opt(c, o, optarg, err);
        if (r == 0) r = rs_errf(err, "unknown option '%s' or missing value", argv[optind - 1]);
        if (r < 0) rc = -1;
    }
    free(opts);
    if (rc == 0 && optind < argc) rc = rs_errf(err, "unexpected argument '%s'", argv[optind]);
    rs_fuzz_note("options", rc, err->msg);
    if (rc != 0) {
        rs_fuzz_check_refused(rc, err->msg);
        return -1;
    }
    check_common(c);
    for (int k = 0; k < spec->n_blocks; k++) RS_FUZZ_CHECK(spec->blocks[k] >= 1 && spec->blocks[k] <= UINT32_MAX);
    for (int k = 0; k < spec->n_ranks; k++) RS_FUZZ_CHECK(spec->ranks[k] >= 1 && spec->ranks[k] <= INT32_MAX);
    for (int k = 0; k < spec->n_seqs; k++) RS_FUZZ_CHECK(spec->seqs[k] >= 1 && spec->seqs[k] <= UINT32_MAX);
    return 0;
}

static void finish(rs_sweep_spec_t *spec, bool sweep) {
    rs_cli_common_t *c = &spec->common;
    if (!preset_name(c->profile) || (c->inter[0] && !preset_name(c->inter))) return;
    rs_err_t err = {{0}};
    if (!sweep) {
        int rc = rs_cli_common_finish(c, &err);
        rs_fuzz_note("rs_cli_common_finish", rc, err.msg);
        if (rc == 0) {
            RS_FUZZ_CHECK(rs_machine_validate(&c->machine, c->problem.n_ranks, &err) == 0);
            for (int i = 0; i < c->n_layouts; i++)
                for (int j = 0; j < c->n_passes; j++) {
                    rs_problem_t p = rs_cli_common_problem(c, i, j);
                    RS_FUZZ_CHECK(rs_problem_validate(&p, &err) == 0);
                }
        } else {
            rs_fuzz_check_refused(rc, err.msg);
        }
        return;
    }
    size_t n = rs_sweep_count(spec);
    if (n > 64 || (spec->n_blocks && spec->n_seqs)) return;
    rs_sweep_point_t *pt = malloc(sizeof *pt);
    RS_FUZZ_CHECK(pt != NULL);
    for (size_t i = 0; i < n; i++) {
        int rc = rs_sweep_point_setup(spec, i, pt, &err);
        rs_fuzz_note("rs_sweep_point_setup", rc, err.msg);
        if (rc != 0) {
            rs_fuzz_check_refused(rc, err.msg);
            break;
        }
        RS_FUZZ_CHECK(rs_machine_validate(&pt->machine, pt->problem.n_ranks, &err) == 0);
        RS_FUZZ_CHECK(rs_problem_validate(&pt->problem, &err) == 0);
    }
    free(pt);
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
    bool sweep = !strcmp(argv[0], "sweep");
    /* parse twice (getopt permutes argv: each parse gets its own copy): a parse depends on its
     * arguments only, not on what an earlier parse in the process left behind */
    rs_sweep_spec_t *spec[2];
    rs_err_t err[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        char *args[MAX_ARGS + 1];
        memcpy(args, argv, sizeof args);
        spec[k] = calloc(1, sizeof *spec[k]);
        RS_FUZZ_CHECK(spec[k] != NULL);
        rs_cli_common_init(&spec[k]->common);
        memset(&err[k], 0, sizeof err[k]);
        rc[k] = parse(argc, args, sweep, spec[k], &err[k]);
    }
    RS_FUZZ_CHECK(rc[0] == rc[1] && !strcmp(err[0].msg, err[1].msg));
    RS_FUZZ_CHECK(!memcmp(spec[0], spec[1], sizeof *spec[0]));
    if (rc[0] == 0) finish(spec[0], sweep);
    free(spec[0]);
    free(spec[1]);
    free(text);
    return 0;
}
