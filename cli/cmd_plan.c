/* cmd_plan.c - `ringsim plan`: capacity planning over candidate hardware (model/plan/plan.h, docs/plan.md).
 *
 * For every profile: the smallest sequence-parallel N that fits memory (or the longest context at N
 * with --seq max), the predicted attention and layer times, whether the ring's transfers hide, MFU
 * and cost; Ring against Ulysses and USP at that N with the winner and why. Output: a table on stdout,
 * --csv FILE, --maxctx-csv FILE (longest context against N per profile) and --figure FILE (that curve
 * drawn by plots/maxctx.gp with gnuplot). A progress bar on stderr when it is a terminal.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "study_plan.h"

enum { OPT_MODEL = 2000, OPT_SEQ, OPT_GBATCH, OPT_DP, OPT_PROFILE, OPT_GPN, OPT_INTER, OPT_RANKS, OPT_MAX_RANKS,
       OPT_PRECISION, OPT_CKPT, OPT_CHUNK, OPT_LAYOUT, OPT_NO_CAUSAL, OPT_TILE, OPT_USABLE, OPT_LIN_EFF,
       OPT_ATTN_EFF, OPT_PRICE, OPT_NO_ALT, OPT_SIM, OPT_CSV, OPT_MAXCTX_CSV, OPT_FIGURE, OPT_HELP };

static const struct option opts[] = {
    {"model", required_argument, NULL, OPT_MODEL},        {"seq", required_argument, NULL, OPT_SEQ},
    {"global-batch", required_argument, NULL, OPT_GBATCH}, {"dp", required_argument, NULL, OPT_DP},
    {"profile", required_argument, NULL, OPT_PROFILE},    {"gpus-per-node", required_argument, NULL, OPT_GPN},
    {"inter", required_argument, NULL, OPT_INTER},        {"ranks", required_argument, NULL, OPT_RANKS},
    {"max-ranks", required_argument, NULL, OPT_MAX_RANKS}, {"precision", required_argument, NULL, OPT_PRECISION},
    {"ckpt", required_argument, NULL, OPT_CKPT},          {"chunk", required_argument, NULL, OPT_CHUNK},
    {"layout", required_argument, NULL, OPT_LAYOUT},      {"no-causal", no_argument, NULL, OPT_NO_CAUSAL},
    {"tile", required_argument, NULL, OPT_TILE},          {"usable", required_argument, NULL, OPT_USABLE},
    {"linear-eff", required_argument, NULL, OPT_LIN_EFF}, {"attn-eff", required_argument, NULL, OPT_ATTN_EFF},
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
           "      --attn-eff E          attention kernel efficiency (uncalibrated profiles) [0.50]\n"
           "      --price [NAME=]USD    price per device-hour (all, or one profile; repeatable) [profile's]\n"
           "      --no-alternatives     cost the ring only (no Ulysses / USP)\n"
           "      --sim                 also simulate every split in SimGrid (N <= %d; sim_attn_ms) [off]\n"
           "      --csv FILE            the table as CSV (\"-\" = stdout)               [none]\n"
           "      --maxctx-csv FILE     longest context vs N per profile, CSV           [none]\n"
           "      --figure FILE         that curve as .png/.pdf/.svg (gnuplot, plots/maxctx.gp) [none]\n"
           "  -h, --help                this help\n", RS_PLAN_SIM_MAX_N);
}

int rs_cmd_plan(int argc, char **argv) {
    rs_err_t err = {{0}};
    rs_plan_in_t in;
    rs_plan_defaults(&in);
    in.progress = true;
    rs_plan_config_t c = in.config;
    const char *model = NULL;
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
        case 'p': case OPT_PROFILE: in.profiles = optarg; break;
        case OPT_GPN: rc = rs_parse_size("--gpus-per-node", optarg, 0, 1 << 20, &in.gpus_per_node, &err); break;
        case OPT_INTER: in.inter = optarg; break;
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
        case OPT_ATTN_EFF: rc = rs_parse_double("--attn-eff", optarg, 1e-6, 1, &c.attn_eff, &err); break;
        case OPT_PRICE: {
            if (in.n_prices >= RS_PLAN_MAX_PRICES) {
                rc = rs_errf(&err, "--price: at most %d", RS_PLAN_MAX_PRICES);
                break;
            }
            const char *eq = strrchr(optarg, '=');
            rs_plan_price_t *p = &in.prices[in.n_prices];
            p->name[0] = '\0';
            if (eq) snprintf(p->name, sizeof p->name, "%.*s", (int)(eq - optarg), optarg);
            rc = rs_parse_double("--price", eq ? eq + 1 : optarg, 0, 1e6, &p->usd, &err);
            in.n_prices++;
            break;
        }
        case OPT_NO_ALT: c.alternatives = false; break;
        case OPT_SIM:
#ifdef RINGSIM_HAVE_SIM
            in.simulate = true;
#else
            rc = rs_errf(&err, "--sim: this build has no SimGrid backend (install libsimgrid-dev and rebuild)");
#endif
            break;
        case OPT_CSV: in.csv = optarg; break;
        case OPT_MAXCTX_CSV: in.maxctx_csv = optarg; break;
        case OPT_FIGURE: in.figure = optarg; break;
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

    in.config = c;
    int rc = rs_study_plan(&in, &err);
    if (rc != RS_EXIT_OK) fprintf(stderr, "ringsim plan: %s\n", err.msg);
    return rc;
}
