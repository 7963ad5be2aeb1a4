/* cmd_plan.c - `ringsim plan`: capacity planning over candidate hardware (model/plan.h, docs/plan.md).
 *
 * For every profile: the smallest sequence-parallel N that fits memory (or the longest context at N
 * with --seq max), the predicted attention and layer times, whether the ring's transfers hide, MFU
 * and cost; Ring against Ulysses and USP at that N with the winner and why. Output: a table on stdout,
 * --csv FILE, --maxctx-csv FILE (longest context against N per profile) and --figure FILE (that curve
 * drawn by plots/maxctx.gp with gnuplot). A progress bar on stderr when it is a terminal.
 */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "kernel.h"
#include "plan.h"
#ifdef RINGSIM_HAVE_PLOTS
#include "plot.h"
#endif

extern char **environ;

#define SIM_MAX_N 512 /* --sim: the all-pairs platform has N^2 routes */

enum { OPT_MODEL = 2000, OPT_SEQ, OPT_GBATCH, OPT_DP, OPT_PROFILE, OPT_GPN, OPT_INTER, OPT_RANKS, OPT_MAX_RANKS,
       OPT_PRECISION, OPT_CKPT, OPT_CHUNK, OPT_LAYOUT, OPT_NO_CAUSAL, OPT_TILE, OPT_USABLE, OPT_LIN_EFF,
       OPT_PRICE, OPT_NO_ALT, OPT_SIM, OPT_CSV, OPT_MAXCTX_CSV, OPT_FIGURE, OPT_HELP };

static const struct option opts[] = {
    {"model", required_argument, NULL, OPT_MODEL},        {"seq", required_argument, NULL, OPT_SEQ},
    {"global-batch", required_argument, NULL, OPT_GBATCH}, {"dp", required_argument, NULL, OPT_DP},
    {"profile", required_argument, NULL, OPT_PROFILE},    {"gpus-per-node", required_argument, NULL, OPT_GPN},
    {"inter", required_argument, NULL, OPT_INTER},        {"ranks", required_argument, NULL, OPT_RANKS},
    {"max-ranks", required_argument, NULL, OPT_MAX_RANKS}, {"precision", required_argument, NULL, OPT_PRECISION},
    {"ckpt", required_argument, NULL, OPT_CKPT},          {"chunk", required_argument, NULL, OPT_CHUNK},
    {"layout", required_argument, NULL, OPT_LAYOUT},      {"no-causal", no_argument, NULL, OPT_NO_CAUSAL},
    {"tile", required_argument, NULL, OPT_TILE},          {"usable", required_argument, NULL, OPT_USABLE},
    {"linear-eff", required_argument, NULL, OPT_LIN_EFF},
    {"price", required_argument, NULL, OPT_PRICE},        {"no-alternatives", no_argument, NULL, OPT_NO_ALT},
    {"csv", required_argument, NULL, OPT_CSV},            {"maxctx-csv", required_argument, NULL, OPT_MAXCTX_CSV},
    {"figure", required_argument, NULL, OPT_FIGURE},      {"help", no_argument, NULL, OPT_HELP},
    {"sim", no_argument, NULL, OPT_SIM},
    {NULL, 0, NULL, 0},
};

static void help(void) {
    printf("usage: ringsim plan --model NAME|FILE [options]\n\n"
           "Capacity planning: per candidate hardware, the smallest sequence-parallel N that fits memory\n"
           "(ZeRO-3 over all devices), the predicted attention time (the ring walk of `ringsim model`)\n"
           "and whole-layer time, whether the ring's transfers hide at B = S/N, MFU and cost; Ring vs\n"
           "Ulysses vs USP at that N and which wins and why. Assumptions: docs/plan.md.\n\n"
           "  -m, --model NAME|FILE     model preset or JSON (ringsim memory --list)   [required]\n"
           "  -S, --seq TOKENS|max      context length; max = the longest that fits at N [128K]\n"
           "      --global-batch B      sequences per optimizer step                  [1]\n"
           "      --dp D                data-parallel replicas (divides B; rest is accumulation) [B]\n"
           "  -p, --profile A,B,...     candidate hardware profiles (names or files)  [h100-sxm]\n"
           "      --gpus-per-node G     devices per node, all candidates               [profile's]\n"
           "      --inter TIER          inter-node tier, all candidates (e.g. ib-ndr)  [profile's]\n"
           "  -N, --ranks N             plan at this N instead of searching            [search]\n"
           "      --max-ranks N         largest N searched (power of two)              [4096]\n"
           "      --precision P         mixed | fp32 (sets the peak rate: bf16 | fp32) [mixed]\n"
           "      --ckpt C              none | selective | full                        [full]\n"
           "      --chunk TOKENS        blockwise FFN / loss chunk                     [2048]\n"
           "  -L, --layout L            ring layout: contiguous | striped | zigzag     [zigzag]\n"
           "      --no-causal           full (bidirectional) attention                 [causal]\n"
           "      --tile T              attention kernel tile (tokens)                 [128]\n"
           "      --usable F            usable fraction of device memory               [0.90]\n"
           "      --linear-eff E        projections/FFN GEMM efficiency vs peak        [0.70]\n"
           "      --price [NAME=]USD    price per device-hour (all, or one profile; repeatable) [profile's]\n"
           "      --no-alternatives     cost the ring only (no Ulysses / USP)\n"
           "      --sim                 also simulate every split in SimGrid (N <= %d; sim_attn_ms) [off]\n"
           "      --csv FILE            the table as CSV (\"-\" = stdout)               [none]\n"
           "      --maxctx-csv FILE     longest context vs N per profile, CSV           [none]\n"
           "      --figure FILE         that curve as .png/.pdf/.svg (gnuplot, plots/maxctx.gp) [none]\n"
           "  -h, --help                this help\n", SIM_MAX_N);
}

/* ---------------------------------------------------------------------------------------------------
 * Progress bar (stderr, only when it is a terminal)
 * ------------------------------------------------------------------------------------------------- */
static void progress(double frac, const char *what) {
    if (!isatty(2)) return;
    int w = 30, k = (int)(frac * w + 0.5);
    fprintf(stderr, "\r[%.*s%*s] %3.0f%% %-40.40s", k, "##############################", w - k, "", 100 * frac, what);
    if (frac >= 1) fprintf(stderr, "\r%*s\r", 80, "");
    fflush(stderr);
}

/* ---------------------------------------------------------------------------------------------------
 * Candidates
 * ------------------------------------------------------------------------------------------------- */
#define MAX_CAND 32
#define MAX_PRICES 32

typedef struct {
    char spec[512];        /* as given */
    rs_hw_t hw;            /* loaded, overrides applied */
    rs_machine_t machine;  /* cost parameters */
    rs_plan_result_t res;  /* the plan */
    int n_curve;           /* longest context per N = 1, 2, 4, ... */
    int64_t curve_n[32];
    int64_t curve_seq[32];
    bool curve_capped[32];  /* the 64-bit FLOP limit, not memory, stopped the search */
    double sim_attn_s[RS_PLAN_MAX_OPTIONS]; /* SimGrid: attention per layer as t_attn_layer_s; NaN = not run */
} cand_t;

typedef struct {
    char name[256];        /* profile name or spec; "" = all */
    double usd;            /* per device-hour */
} price_t;

static const char *gib(char *buf, size_t len, double bytes) {
    snprintf(buf, len, "%.1f", bytes / 1073741824.0);
    return buf;
}

static const char *split_name(char *buf, size_t len, const rs_plan_option_t *o) {
    if (o->kind == RS_SP_RING) snprintf(buf, len, "ring");
    else if (o->kind == RS_SP_ULYSSES) snprintf(buf, len, "ulysses");
    else snprintf(buf, len, "usp%lldx%lld", (long long)o->ulysses, (long long)o->ring);
    return buf;
}

static void print_table(FILE *out, const rs_plan_config_t *c, cand_t *cands, int n) {
    fprintf(out, "# model=%s seq=%s global_batch=%lld precision=%s ckpt=%s layout=%s causal=%d usable=%.2f "
                 "linear_eff=%.2f\n",
            c->model.name, c->seq_tokens ? "given" : "max", (long long)c->global_batch, rs_precision_name(c->precision),
            rs_ckpt_name(c->ckpt), rs_layout_name(c->layout), c->causal, c->usable_frac, c->linear_eff);
    for (int i = 0; i < n; i++) {
        char kd[256];
        fprintf(out, "# %s: attention %s\n", cands[i].res.hw_name, rs_kernel_describe(&cands[i].machine, kd, sizeof kd));
    }
    fprintf(out, "# %-10s %3s %9s %5s %3s %-9s %4s %7s %9s %9s %9s %7s %9s %9s %9s %6s %9s %9s\n", "profile", "G",
            "seq", "N", "dp", "split", "fits", "mem_GiB", "attn_ms", "sim_ms", "a2a_ms", "hidden", "B_tokens",
            "layer_ms", "step_s", "MFU", "usd_step", "usd_Mtok");
    for (int i = 0; i < n; i++) {
        const rs_plan_result_t *r = &cands[i].res;
        for (int j = 0; j < r->n_options; j++) {
            const rs_plan_option_t *o = &r->options[j];
            char sp[32], mem[32], hid[8];
            snprintf(hid, sizeof hid, "%s/%s", o->ring > 1 ? (o->attn.ring_hidden_fwd ? "y" : "n") : "-",
                     o->ring > 1 ? (o->attn.ring_hidden_bwd ? "y" : "n") : "-");
            fprintf(out, "%c %-10.10s %3lld %9lld %5lld %3lld %-9s %4s %7s %9.3f %9.3f %9.3f %7s %9lld %9.3f %9.3f %6.3f %9.4g %9.4g\n",
                    j == r->best ? '*' : ' ', r->hw_name, (long long)r->devices_per_node, (long long)r->seq_tokens,
                    (long long)(o->ulysses * o->ring), (long long)r->dp, split_name(sp, sizeof sp, o),
                    o->fits ? "yes" : "no", gib(mem, sizeof mem, o->mem_bytes), o->t_attn_layer_s * 1e3,
                    cands[i].sim_attn_s[j] * 1e3,
                    (o->attn.a2a_fwd_s + o->attn.a2a_bwd_s) * 1e3, hid, (long long)o->attn.ring_block_tokens,
                    o->t_layer_s * 1e3, o->t_step_s, o->mfu, o->cost_per_step, o->cost_per_mtok);
        }
        if (!r->fits) {
            char a[32], b[32], s[32];
            fprintf(out, "# %s: does not fit at N=%lld: %s GiB per device, %s usable (short by %s GiB)\n", r->hw_name,
                    (long long)r->sp, gib(a, sizeof a, r->mem.total_bytes), gib(b, sizeof b, r->usable_bytes),
                    gib(s, sizeof s, r->shortfall_bytes));
        }
        fprintf(out, "# %s: %s\n", r->hw_name, r->why);
    }
    fprintf(out, "# '*' = fastest split that fits; hidden = every ring transfer hides behind compute, fwd/bwd "
                 "(the layout's middle step computes at least as long as its transfers take, model/kernel.h); times per layer "
                 "include recompute (ckpt)\n");
}

static int write_csv(const char *path, cand_t *cands, int n, rs_err_t *err) {
    rs_file_t f = {0};
    FILE *fp = stdout;
    if (strcmp(path, "-")) {
        if (rs_file_open(&f, path, err)) return -1;
        fp = f.fp;
    }
    fprintf(fp, "profile,devices_per_node,seq_tokens,n_ranks,ulysses,ring,dp,accum,split,best,fits,mem_bytes,"
                "usable_bytes,attn_fwd_s,attn_bwd_s,a2a_fwd_s,a2a_bwd_s,attn_layer_s,linear_layer_s,layer_s,head_s,"
                "step_s,block_tokens,ring_b_star_tokens,ring_hidden_fwd,ring_hidden_bwd,a2a_inter,ring_inter,mfu,"
                "usd_per_step,usd_per_mtok,sim_attn_layer_s\n");
    for (int i = 0; i < n; i++) {
        const rs_plan_result_t *r = &cands[i].res;
        for (int j = 0; j < r->n_options; j++) {
            const rs_plan_option_t *o = &r->options[j];
            fprintf(fp, "%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%s,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                        "%.17g,%.17g,%.17g,%.17g,%lld,%.17g,%d,%d,%d,%d,%.17g,%.17g,%.17g,%.17g\n",
                    r->hw_name, (long long)r->devices_per_node, (long long)r->seq_tokens,
                    (long long)(o->ulysses * o->ring), (long long)o->ulysses, (long long)o->ring, (long long)r->dp,
                    (long long)r->accum, rs_sp_kind_name(o->kind), j == r->best, o->fits, o->mem_bytes, r->usable_bytes,
                    o->attn.attn_fwd_s, o->attn.attn_bwd_s, o->attn.a2a_fwd_s, o->attn.a2a_bwd_s, o->t_attn_layer_s,
                    o->t_linear_layer_s, o->t_layer_s, o->t_head_s, o->t_step_s, (long long)o->attn.ring_block_tokens,
                    o->attn.ring_b_star_tokens, o->attn.ring_hidden_fwd, o->attn.ring_hidden_bwd, o->attn.a2a_inter,
                    o->attn.ring_inter, o->mfu, o->cost_per_step, o->cost_per_mtok, cands[i].sim_attn_s[j]);
        }
    }
    if (fp != stdout) return rs_file_commit(&f, err);
    return 0;
}

static int write_maxctx(const char *path, const rs_plan_config_t *c, cand_t *cands, int n, rs_err_t *err) {
    rs_file_t f = {0};
    if (rs_file_open(&f, path, err)) return -1;
    fprintf(f.fp, "# ringsim plan --maxctx-csv: longest context that fits per device count N (ring, ZeRO-3)\n");
    fprintf(f.fp, "# model=%s precision=%s ckpt=%s usable=%.2f\n", c->model.name, rs_precision_name(c->precision),
            rs_ckpt_name(c->ckpt), c->usable_frac);
    fprintf(f.fp, "# limit: memory, or flops64 where the schedule's 64-bit FLOP counts stop first\n");
    fprintf(f.fp, "profile,n_ranks,max_seq_tokens,limit\n");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < cands[i].n_curve; k++)
            fprintf(f.fp, "%s,%lld,%lld,%s\n", cands[i].hw.name, (long long)cands[i].curve_n[k],
                    (long long)cands[i].curve_seq[k], cands[i].curve_capped[k] ? "flops64" : "memory");
    return rs_file_commit(&f, err);
}

/* Directory of the plots/ scripts: rs_plots' choice ($RINGSIM_PLOTS_DIR, the source tree, or the copies
 * embedded in the binary) when it is linked, else $RINGSIM_PLOTS_DIR or the source tree this file was
 * compiled from. Returns 0 or -1 with err. */
static int plots_dir(char *dst, size_t len, rs_err_t *err) {
#ifdef RINGSIM_HAVE_PLOTS
    const char *dir = rs_plot_scripts_dir(err);
    if (!dir) return -1;
    snprintf(dst, len, "%s", dir);
    return 0;
#else
    (void)err;
    const char *env = getenv("RINGSIM_PLOTS_DIR");
    if (env && *env) {
        snprintf(dst, len, "%s", env);
        return 0;
    }
    const char *src = __FILE__; /* .../cli/cmd_plan.c */
    const char *slash = strrchr(src, '/');
    int dir_len = slash ? (int)(slash - src) : 0;
    snprintf(dst, len, "%.*s%s../plots", dir_len, src, slash ? "/" : "");
    return 0;
#endif
}

/* Draw the max-context curve: gnuplot plots/maxctx.gp with data, out, fmt; atomic output. */
static int draw_figure(const char *csv, const char *out, const cand_t *cands, int n, rs_err_t *err) {
    const char *dot = strrchr(out, '.');
    const char *fmt = NULL;
    if (dot && !strcmp(dot, ".png")) fmt = "png";
    else if (dot && !strcmp(dot, ".pdf")) fmt = "pdf";
    else if (dot && !strcmp(dot, ".svg")) fmt = "svg";
    if (!fmt) return rs_errf(err, "--figure %s: extension must be .png, .pdf or .svg", out);
    char dir[1024], script[1100], style[1100];
    if (plots_dir(dir, sizeof dir, err)) return -1;
    snprintf(script, sizeof script, "%s/maxctx.gp", dir);
    snprintf(style, sizeof style, "%s/style.gp", dir);
    if (access(script, R_OK) || access(style, R_OK))
        return rs_errf(err, "--figure: cannot read %s and style.gp (set RINGSIM_PLOTS_DIR to the plots/ folder)", script);
    char tmp[1200], profiles[1024] = "", expr[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%s", out, (long)getpid(), fmt);
    for (int i = 0; i < n; i++) {
        strncat(profiles, i ? " " : "", sizeof profiles - strlen(profiles) - 1);
        strncat(profiles, cands[i].hw.name, sizeof profiles - strlen(profiles) - 1);
    }
    snprintf(expr, sizeof expr, "data='%s'; out='%s'; fmt='%s'; style='%s'; profiles='%s'", csv, tmp, fmt, style,
             profiles);
    const char *gnuplot = "gnuplot";
#ifdef RINGSIM_HAVE_PLOTS
    gnuplot = rs_gnuplot_path(err);
    if (!gnuplot) return -1;
#endif
    char *args[] = {(char *)gnuplot, "-e", expr, script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, gnuplot, NULL, NULL, args, environ);
    if (rc) return rs_errf(err, "--figure: cannot run gnuplot: %s (install gnuplot)", strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        remove(tmp);
        return rs_errf(err, "--figure: gnuplot failed on %s (status %d)", script, status);
    }
    if (rename(tmp, out)) {
        remove(tmp);
        return rs_errf(err, "--figure %s: %s", out, strerror(errno));
    }
    return 0;
}

/* SimGrid (sim/alt.c): each split's forward and backward attention pass, combined as the plan does
 * (forward + backward + recomputed forward under full checkpointing). */
static int simulate(const rs_plan_config_t *c, cand_t *k, rs_err_t *err) {
#ifdef RINGSIM_HAVE_SIM
    const rs_plan_result_t *r = &k->res;
    if (r->sp > SIM_MAX_N) return 0;
    rs_machine_t mm;
    rs_plan_machine(c, &k->machine, &mm);
    for (int j = 0; j < r->n_options; j++) {
        const rs_plan_option_t *o = &r->options[j];
        rs_sp_config_t sc;
        rs_sp_config_default(&sc);
        sc.seq_tokens = r->seq_tokens;
        sc.batch = 1;
        sc.ulysses = o->ulysses;
        sc.ring = o->ring;
        sc.causal = c->causal;
        sc.layout = c->layout;
        sc.act_bytes = rs_precision_act_bytes(c->precision);
        sc.grad_bytes = rs_precision_grad_bytes(c->precision);
        sc.tile = c->tile;
        rs_sim_alt_result_t f, b;
        if (rs_sim_alt_run(&c->model, &mm, &sc, RS_PASS_FORWARD, &f, err) ||
            rs_sim_alt_run(&c->model, &mm, &sc, RS_PASS_BACKWARD, &b, err))
            return -1;
        k->sim_attn_s[j] = f.makespan_s + b.makespan_s + (c->ckpt == RS_CKPT_FULL ? f.makespan_s : 0.0);
    }
#else
    (void)c;
    (void)k;
    (void)err;
#endif
    return 0;
}

int rs_cmd_plan(int argc, char **argv) {
    rs_err_t err = {{0}};
    rs_plan_config_t c;
    rs_plan_config_default(&c);
    const char *model = NULL, *profile_list = "h100-sxm", *inter = NULL, *csv = NULL, *maxctx_csv = NULL,
               *figure = NULL;
    int64_t gpn = -1;
    bool do_sim = false;
    price_t prices[MAX_PRICES];
    int n_prices = 0;
    int opt;
    rs_cli_getopt_reset();
    while ((opt = getopt_long(argc, argv, ":m:S:p:N:L:h", opts, NULL)) != -1) {
        int rc = 0;
        switch (opt) {
        case 'm': case OPT_MODEL: model = optarg; break;
        case 'S': case OPT_SEQ:
            if (!strcmp(optarg, "max")) c.seq_tokens = 0;
            else rc = rs_parse_size("--seq", optarg, 1, (int64_t)1 << 36, &c.seq_tokens, &err);
            break;
        case OPT_GBATCH: rc = rs_parse_size("--global-batch", optarg, 1, 1 << 24, &c.global_batch, &err); break;
        case OPT_DP: rc = rs_parse_size("--dp", optarg, 1, 1 << 24, &c.dp, &err); break;
        case 'p': case OPT_PROFILE: profile_list = optarg; break;
        case OPT_GPN: rc = rs_parse_size("--gpus-per-node", optarg, 0, 1 << 20, &gpn, &err); break;
        case OPT_INTER: inter = optarg; break;
        case 'N': case OPT_RANKS: rc = rs_parse_size("--ranks", optarg, 1, 1 << 20, &c.fixed_sp, &err); break;
        case OPT_MAX_RANKS: rc = rs_parse_size("--max-ranks", optarg, 1, 1 << 20, &c.max_sp, &err); break;
        case OPT_PRECISION:
            if (rs_precision_parse(optarg, &c.precision)) rc = rs_errf(&err, "--precision %s: expected mixed or fp32", optarg);
            break;
        case OPT_CKPT:
            if (rs_ckpt_parse(optarg, &c.ckpt)) rc = rs_errf(&err, "--ckpt %s: expected none, selective or full", optarg);
            break;
        case OPT_CHUNK: rc = rs_parse_size("--chunk", optarg, 1, (int64_t)1 << 30, &c.chunk_tokens, &err); break;
        case 'L': case OPT_LAYOUT:
            if (rs_layout_parse(optarg, &c.layout))
                rc = rs_errf(&err, "--layout %s: expected contiguous, striped or zigzag", optarg);
            break;
        case OPT_NO_CAUSAL: c.causal = false; break;
        case OPT_TILE: rc = rs_parse_size("--tile", optarg, 1, 65536, &c.tile, &err); break;
        case OPT_USABLE: rc = rs_parse_double("--usable", optarg, 1e-6, 1, &c.usable_frac, &err); break;
        case OPT_LIN_EFF: rc = rs_parse_double("--linear-eff", optarg, 1e-6, 1, &c.linear_eff, &err); break;
        case OPT_PRICE: {
            if (n_prices >= MAX_PRICES) {
                rc = rs_errf(&err, "--price: at most %d", MAX_PRICES);
                break;
            }
            const char *eq = strrchr(optarg, '=');
            price_t *p = &prices[n_prices];
            p->name[0] = '\0';
            if (eq) snprintf(p->name, sizeof p->name, "%.*s", (int)(eq - optarg), optarg);
            rc = rs_parse_double("--price", eq ? eq + 1 : optarg, 0, 1e6, &p->usd, &err);
            n_prices++;
            break;
        }
        case OPT_NO_ALT: c.alternatives = false; break;
        case OPT_SIM:
#ifdef RINGSIM_HAVE_SIM
            do_sim = true;
#else
            rc = rs_errf(&err, "--sim: this build has no SimGrid backend (install libsimgrid-dev and rebuild)");
#endif
            break;
        case OPT_CSV: csv = optarg; break;
        case OPT_MAXCTX_CSV: maxctx_csv = optarg; break;
        case OPT_FIGURE: figure = optarg; break;
        case 'h': case OPT_HELP: help(); return RS_EXIT_OK;
        case ':': rc = rs_errf(&err, "%s: missing value", argv[optind - 1]); break;
        default: rc = rs_errf(&err, "%s: unknown option (see ringsim plan --help)", argv[optind - 1]); break;
        }
        if (rc) {
            fprintf(stderr, "ringsim plan: %s\n", err.msg);
            return RS_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ringsim plan: unexpected argument '%s'\n", argv[optind]);
        return RS_EXIT_USAGE;
    }
    if (!model) {
        fprintf(stderr, "ringsim plan: --model is required (presets: ringsim memory --list)\n");
        return RS_EXIT_USAGE;
    }
    if (rs_transformer_load(model, &c.model, &err) || rs_plan_config_validate(&c, &err)) {
        fprintf(stderr, "ringsim plan: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }

    /* load the candidates */
    cand_t *cands = calloc(MAX_CAND, sizeof *cands);
    if (!cands) {
        fprintf(stderr, "ringsim plan: out of memory\n");
        return RS_EXIT_FAIL;
    }
    int n = 0, exit_code = RS_EXIT_USAGE;
    char list[4096];
    snprintf(list, sizeof list, "%s", profile_list);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= MAX_CAND) {
            rs_errf(&err, "--profile: at most %d candidates", MAX_CAND);
            goto fail;
        }
        cand_t *k = &cands[n];
        snprintf(k->spec, sizeof k->spec, "%s", tok);
        if (rs_hw_load(tok, &k->hw, &err)) goto fail;
        if (inter) {
            if (rs_tier_load(inter, &k->hw.inter, &err)) goto fail;
            k->hw.has_inter = true;
        }
        if (gpn >= 0) k->hw.devices_per_node = gpn;
        for (int i = 0; i < n_prices; i++)
            if (!prices[i].name[0] || !strcmp(prices[i].name, tok) || !strcmp(prices[i].name, k->hw.name))
                k->hw.price_per_device_hour = prices[i].usd;
        rs_dtype_t dt = c.precision == RS_PREC_FP32 ? RS_DTYPE_FP32 : RS_DTYPE_BF16;
        if (rs_machine_from_hw(&k->hw, dt, &k->machine, &err)) goto fail;
        n++;
    }
    if (n == 0) {
        rs_errf(&err, "--profile: no candidate given");
        goto fail;
    }
    for (int i = 0; i < n_prices; i++) {
        bool used = !prices[i].name[0];
        for (int j = 0; j < n && !used; j++)
            used = !strcmp(prices[i].name, cands[j].spec) || !strcmp(prices[i].name, cands[j].hw.name);
        if (!used) {
            rs_errf(&err, "--price %s=...: no such candidate in --profile %s", prices[i].name, profile_list);
            goto fail;
        }
    }

    /* plan every candidate; the max-context curve when asked for */
    int64_t n_points = 0;
    for (int64_t s = 1; s <= c.max_sp; s *= 2) n_points++;
    double total = (double)n * (1.0 + ((maxctx_csv || figure) ? (double)n_points : 0.0)), done = 0;
    int n_fit = 0;
    for (int i = 0; i < n; i++) {
        cand_t *k = &cands[i];
        progress(done / total, k->hw.name);
        if (rs_plan_run(&c, &k->hw, &k->machine, &k->res, &err)) goto fail;
        done += 1;
        n_fit += k->res.best >= 0;
        for (int j = 0; j < RS_PLAN_MAX_OPTIONS; j++) k->sim_attn_s[j] = NAN;
        if (do_sim && simulate(&c, k, &err)) {
            exit_code = RS_EXIT_FAIL;
            goto fail;
        }
        if (maxctx_csv || figure)
            for (int64_t s = 1; s <= c.max_sp && k->n_curve < 32; s *= 2) {
                progress(done / total, k->hw.name);
                int64_t seq = 0;
                if (rs_plan_max_seq(&c, c.usable_frac * k->hw.mem_bytes, s, &seq, &k->curve_capped[k->n_curve], &err))
                    goto fail;
                k->curve_n[k->n_curve] = s;
                k->curve_seq[k->n_curve++] = seq;
                done += 1;
            }
    }
    progress(1, "");
    if (n_fit == 0) {
        /* one line: the candidate that comes closest, and by how much it misses */
        int bi = 0;
        for (int i = 1; i < n; i++)
            if (cands[i].res.shortfall_bytes < cands[bi].res.shortfall_bytes) bi = i;
        const rs_plan_result_t *r = &cands[bi].res;
        char a[32], b[32], s[32];
        char hint[200];
        if (r->n_limit[0]) snprintf(hint, sizeof hint, "%s", r->n_limit);
        else snprintf(hint, sizeof hint, "raise --max-ranks%s or shorten --seq",
                      c.ckpt == RS_CKPT_FULL ? "" : ", use --ckpt full");
        rs_errf(&err, "%s does not fit at S=%lld on any candidate even at N=%lld: the closest, %s, needs %s GiB per "
                      "device with %s GiB usable (short by %s GiB; %s)",
                c.model.name, (long long)r->seq_tokens, (long long)r->sp, r->hw_name, gib(a, sizeof a, r->mem.total_bytes),
                gib(b, sizeof b, r->usable_bytes), gib(s, sizeof s, r->shortfall_bytes), hint);
        goto fail;
    }
    exit_code = RS_EXIT_FAIL;
    if (csv && write_csv(csv, cands, n, &err)) goto fail;
    if (maxctx_csv && write_maxctx(maxctx_csv, &c, cands, n, &err)) goto fail;
    if (figure) {
        char tmpcsv[1100];
        const char *data = maxctx_csv;
        if (!data) {
            snprintf(tmpcsv, sizeof tmpcsv, "%s.maxctx.%ld.csv", figure, (long)getpid());
            if (write_maxctx(tmpcsv, &c, cands, n, &err)) goto fail;
            data = tmpcsv;
        }
        int rc = draw_figure(data, figure, cands, n, &err);
        if (!maxctx_csv) remove(tmpcsv);
        if (rc) goto fail;
    }
    if (!csv || strcmp(csv, "-")) print_table(stdout, &c, cands, n);
    free(cands);
    return RS_EXIT_OK;
fail:
    progress(1, "");
    fprintf(stderr, "ringsim plan: %s\n", err.msg);
    free(cands);
    return exit_code;
}
