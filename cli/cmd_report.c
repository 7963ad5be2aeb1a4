/* cmd_report.c - `ringsim report`: the main job. One directory with traces, sweeps, figures and
 * report.md / report.html stating the findings in numbers (docs/report.md).
 *
 * Default (no arguments): 8 x H100-SXM over NVLink (preset h100-sxm), Llama-3-8B attention (32 query
 * heads, 8 KV heads, head_dim 128), S = 128K, causal, bf16; all three layouts, forward and backward;
 * a B sweep across the threshold (full and causal); N and B scaling for H100 over NVLink, H100 over
 * NDR InfiniBand (one GPU per node) and MI300X; and, where available, a small real CPU execution
 * with calibration and validation (`ringsim validate`, a subprocess). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "kernel.h"
#include "compare.h"
#include "sweep.h"
#include "trace.h"
#ifdef RINGSIM_HAVE_SIM
#include "sim.h"
#endif
#ifdef RINGSIM_HAVE_PLOTS
#include "plot.h"
#endif

/* ------------------------------------------------------------------------------------------------
 * A document written as Markdown and HTML at once
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    FILE *md;   /* report.md */
    FILE *html; /* report.html */
} doc_t;

static void html_text(FILE *fp, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", fp);
        else if (*s == '>') fputs("&gt;", fp);
        else if (*s == '&') fputs("&amp;", fp);
        else if (*s == '`') continue;
        else if (*s == '*' && s[1] == '*') s++; /* bold markers: plain in HTML */
        else fputc(*s, fp);
    }
}

static void doc_h(doc_t *d, int level, const char *text) {
    fprintf(d->md, "\n%.*s %s\n\n", level, "######", text);
    fprintf(d->html, "<h%d>", level);
    html_text(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
}

static void doc_p(doc_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void doc_p(doc_t *d, const char *fmt, ...) {
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(d->md, "%s\n\n", buf);
    fputs("<p>", d->html);
    html_text(d->html, buf);
    fputs("</p>\n", d->html);
}

/* Bullet list item (consecutive items form one list in Markdown; HTML gets one-item lists). */
static void doc_li(doc_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void doc_li(doc_t *d, const char *fmt, ...) {
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(d->md, "- %s\n", buf);
    fputs("<ul><li>", d->html);
    html_text(d->html, buf);
    fputs("</li></ul>\n", d->html);
}
static void doc_end_list(doc_t *d) { fputs("\n", d->md); }

/* Table: cells are '|'-separated strings; the first row is the header. */
static void doc_table(doc_t *d, const char *const *rows, int n) {
    fputs("<table>\n", d->html);
    for (int r = 0; r < n; r++) {
        fprintf(d->md, "| %s |\n", rows[r]);
        if (r == 0) {
            int cols = 1;
            for (const char *c = rows[0]; *c; c++) cols += *c == '|';
            for (int i = 0; i < cols; i++) fputs(i ? "---|" : "|---|", d->md);
            fputs("\n", d->md);
        }
        fputs("<tr>", d->html);
        const char *s = rows[r];
        while (1) {
            const char *e = strchr(s, '|');
            char cell[512];
            snprintf(cell, sizeof cell, "%.*s", (int)(e ? e - s : (long)strlen(s)), s);
            fputs(r == 0 ? "<th>" : "<td>", d->html);
            html_text(d->html, cell);
            fputs(r == 0 ? "</th>" : "</td>", d->html);
            if (!e) break;
            s = e + 1;
        }
        fputs("</tr>\n", d->html);
    }
    fputs("</table>\n", d->html);
    fputs("\n", d->md);
}

static void doc_fig(doc_t *d, const char *name, const char *caption, bool have) {
    if (!have) {
        doc_p(d, "*(figure %s not rendered: see the note above)*", name);
        return;
    }
    fprintf(d->md, "![%s](figures/%s.png)\n\n*%s* (also [SVG](figures/%s.svg), [PDF](figures/%s.pdf))\n\n", caption, name,
            caption, name, name);
    fprintf(d->html, "<figure><img src=\"figures/%s.svg\" alt=\"", name);
    html_text(d->html, caption);
    fprintf(d->html, "\" width=\"900\"><figcaption>");
    html_text(d->html, caption);
    fprintf(d->html, " (<a href=\"figures/%s.png\">PNG</a>, <a href=\"figures/%s.pdf\">PDF</a>)</figcaption></figure>\n",
            name, name);
}

/* ------------------------------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    rs_problem_t problem;     /* layout x pass */
    rs_closed_t closed;       /* closed form */
    rs_walk_t walk;           /* critical-path walk */
    double *busy_s;           /* [N] per-rank compute time (walk) */
    bool has_sim;             /* simulated */
    double sim_makespan_s;    /* simulated makespan */
    rs_compare_t cmp;         /* sim (reference) vs model */
} entry_t;

static int mkdir_p(const char *path, rs_err_t *err) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return rs_errf(err, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

static const char *fmt_t(double t, char *buf, size_t n) { return rs_fmt_time(t, buf, n); }

/* Render one figure in PNG, SVG and PDF. Returns true when all three exist. */
static bool render(const char *dir, int kind, const char *data, const char *name, const char *title,
                   const char *series, const char *x, char *why, size_t why_len) {
#ifdef RINGSIM_HAVE_PLOTS
    static const char *const ext[3] = {"png", "svg", "pdf"};
    rs_plot_opts_t o;
    memset(&o, 0, sizeof o);
    o.title = title;
    o.series = series;
    o.x = x;
    for (int i = 0; i < 3; i++) {
        char out[1200];
        snprintf(out, sizeof out, "%s/figures/%s.%s", dir, name, ext[i]);
        rs_err_t err;
        if (rs_plot_render((rs_plot_kind_t)kind, data, out, &o, &err) != 0) {
            if (!why[0]) snprintf(why, why_len, "%s: %s", name, err.msg);
            return false;
        }
    }
    return true;
#else
    (void)dir, (void)kind, (void)data, (void)name, (void)title, (void)series, (void)x;
    snprintf(why, why_len, "figures not built (rs_plots missing)");
    return false;
#endif
}

/* Run a sweep spec into path; the points (run) come back in *pts_out. Returns 0 or -1. */
static int run_sweep(rs_sweep_spec_t *spec, const char *path, const char *label, rs_sweep_point_t **pts_out,
                     size_t *n_out, rs_err_t *err) {
    size_t n = rs_sweep_count(spec);
    rs_sweep_point_t *pts = calloc(n ? n : 1, sizeof *pts);
    if (!pts) return rs_errf(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (rs_sweep_point_setup(spec, i, &pts[i], err) != 0) {
            free(pts);
            return -1;
        }
    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) {
        free(pts);
        return -1;
    }
    rs_sweep_write_header(f.fp, spec, label);
    for (size_t i = 0; i < n; i++) {
        if (rs_sweep_point_run(spec, &pts[i], NULL, err) != 0) {
            rs_file_abort(&f);
            free(pts);
            return -1;
        }
        rs_sweep_write_row(f.fp, i, &pts[i]);
    }
    rs_sweep_write_crossovers(f.fp, pts, n);
    if (rs_file_commit(&f, err) != 0) {
        free(pts);
        return -1;
    }
    *pts_out = pts;
    *n_out = n;
    return 0;
}

static void sleep_s(double t) {
    struct timespec ts = {(time_t)t, (long)((t - (double)(time_t)t) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Run `self validate ...` with a time limit; its output goes to log_path. Returns the exit status,
 * or -1 if it could not start, -2 on timeout. */
static int run_validate(const char *self, char *const *args, const char *log_path, int timeout_s) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int nul = open("/dev/null", O_RDONLY);
        if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
        if (nul >= 0) dup2(nul, 0);
        setpgid(0, 0); /* its own group, so a timeout can end mpirun and its ranks together */
        execv(self, args);
        _exit(127);
    }
    double t0 = rs_now_s();
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) return -1;
        if (rs_now_s() - t0 > timeout_s) {
            kill(-pid, SIGTERM);
            sleep_s(0.5);
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -2;
        }
        sleep_s(0.1);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* First lines of a text file into buf (for the report), newlines replaced by "; ". */
static void file_tail(const char *path, char *buf, size_t len) {
    buf[0] = 0;
    FILE *fp = fopen(path, "r");
    if (!fp) return;
    char line[512];
    char last[4][512] = {{0}};
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0]) continue;
        snprintf(last[n % 4], sizeof last[0], "%s", line);
        n++;
    }
    fclose(fp);
    for (int i = n > 4 ? n - 4 : 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", strlen(buf) ? "; " : "", last[i % 4]);
}

/* ------------------------------------------------------------------------------------------------
 * The command
 * ---------------------------------------------------------------------------------------------- */
enum { OPT_OUT = 2000, OPT_FORCE, OPT_NO_SIM, OPT_NO_EXEC, OPT_NO_FIGURES, OPT_QUICK, OPT_EXEC_TIMEOUT, OPT_HELP };
static const struct option own_opts[] = {
    {"output", required_argument, NULL, OPT_OUT}, {"force", no_argument, NULL, OPT_FORCE},
    {"no-sim", no_argument, NULL, OPT_NO_SIM},    {"no-exec", no_argument, NULL, OPT_NO_EXEC},
    {"no-figures", no_argument, NULL, OPT_NO_FIGURES}, {"quick", no_argument, NULL, OPT_QUICK},
    {"exec-timeout", required_argument, NULL, OPT_EXEC_TIMEOUT}, {"help", no_argument, NULL, OPT_HELP},
};

static void help(void) {
    printf("usage: ringsim report [options]\n\n"
           "The main job: model, simulate and (where available) execute Ring Attention for one problem,\n"
           "sweep B across the overlap threshold and N across hardware, and write a directory with the\n"
           "traces (CSV + Chrome JSON), the data, the figures (PNG, SVG, PDF) and report.md / report.html\n"
           "stating the findings in numbers. See docs/report.md.\n\n"
           "Default problem: 8 x H100-SXM over NVLink, Llama-3-8B attention (32 q heads, 8 kv heads,\n"
           "head_dim 128), S = 128K, causal, bf16, all layouts, forward and backward.\n\n"
           "Report:\n"
           "  -o, --output DIR         the report directory (refused if it exists)   [ringsim-report]\n"
           "      --force              write into an existing DIR (files are replaced) [off]\n"
           "      --no-sim             skip the SimGrid runs                          [sim when built]\n"
           "      --no-exec            skip the real CPU execution (ringsim validate) [run it]\n"
           "      --exec-timeout S     time limit of ringsim validate, seconds        [240]\n"
           "      --no-figures         skip the figures                               [render them]\n"
           "      --quick              shorter sweeps (tests)                         [off]\n"
           "  -h, --help               this help\n\n"
           "Defaults here: --layout all --pass both.\n");
    rs_cli_common_help(stdout);
}

int rs_cmd_report(int argc, char **argv) {
    rs_cli_common_t *c = calloc(1, sizeof *c);
    rs_sweep_spec_t *spec = calloc(1, sizeof *spec);
    entry_t *es = NULL;
    rs_sweep_point_t *sb = NULL, *sbc = NULL, *sn = NULL, *sbb = NULL;
    size_t nsb = 0, nsbc = 0, nsn = 0, nsbb = 0;
    rs_sweep_point_t *sv = NULL; /* ringsim validate's B sweep, in the sweep format */
    double val_x_meas = NAN, val_x_model = NAN; /* validate's crossover at the seed's threshold */
    size_t nsv = 0;
    rs_compare_t vcmp;           /* measured vs model traces at one B of it */
    memset(&vcmp, 0, sizeof vcmp);
    long long vcmp_b = 0;
    int ne = 0, rc = RS_EXIT_OK;
    rs_err_t err = {{0}};
    const char *dir = "ringsim-report";
    bool force = false, no_sim = false, no_exec = false, no_figs = false, quick = false;
    int64_t exec_timeout = 240;
    doc_t d = {NULL, NULL};
    rs_file_t fmd = {0}, fhtml = {0};
    struct option *opts = rs_cli_merge_longopts(own_opts, (int)(sizeof own_opts / sizeof own_opts[0]));
    if (!c || !spec || !opts) {
        fprintf(stderr, "ringsim report: out of memory\n");
        rc = RS_EXIT_FAIL;
        goto done;
    }
    rs_cli_common_init(c);
    c->n_layouts = RS_LAYOUT_COUNT;
    for (int i = 0; i < RS_LAYOUT_COUNT; i++) c->layouts[i] = (rs_layout_t)i;
    c->n_passes = RS_PASS_COUNT;
    for (int i = 0; i < RS_PASS_COUNT; i++) c->passes[i] = (rs_pass_t)i;
    rs_cli_getopt_reset();
    int o;
    while ((o = getopt_long(argc, argv, "o:h" RS_CLI_COMMON_SHORTOPTS, opts, NULL)) != -1) {
        int r = 0;
        switch (o) {
        case 'o':
        case OPT_OUT: dir = optarg; break;
        case OPT_FORCE: force = true; break;
        case OPT_NO_SIM: no_sim = true; break;
        case OPT_NO_EXEC: no_exec = true; break;
        case OPT_NO_FIGURES: no_figs = true; break;
        case OPT_QUICK: quick = true; break;
        case OPT_EXEC_TIMEOUT: r = rs_parse_size("--exec-timeout", optarg, 1, 86400, &exec_timeout, &err); break;
        case 'h':
        case OPT_HELP: help(); goto done;
        default:
            r = rs_cli_common_opt(c, o, optarg, &err);
            if (r == 0) {
                fprintf(stderr, "ringsim report: unknown option '%s' or missing value (see ringsim report --help)\n", argv[optind - 1]);
                rc = RS_EXIT_USAGE;
                goto done;
            }
            r = r < 0 ? -1 : 0;
        }
        if (r < 0) {
            fprintf(stderr, "ringsim report: %s\n", err.msg);
            rc = RS_EXIT_USAGE;
            goto done;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ringsim report: unexpected argument '%s'\n", argv[optind]);
        rc = RS_EXIT_USAGE;
        goto done;
    }
    if (rs_cli_common_finish(c, &err) != 0) {
        fprintf(stderr, "ringsim report: %s\n", err.msg);
        rc = RS_EXIT_USAGE;
        goto done;
    }
    if (strlen(dir) > 400) {
        fprintf(stderr, "ringsim report: -o: at most 400 characters\n");
        rc = RS_EXIT_USAGE;
        goto done;
    }
    struct stat st;
    if (stat(dir, &st) == 0 && !force) {
        fprintf(stderr, "ringsim report: -o %s: exists; give --force to write into it, or another directory\n", dir);
        rc = RS_EXIT_USAGE;
        goto done;
    }
    double t_start = rs_now_s();
    char path[2048], path2[2048];
    const char *subs[] = {"", "/traces", "/data", "/figures", "/figures/scripts"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s%s", dir, subs[i]);
        if (mkdir_p(path, &err) != 0) {
            fprintf(stderr, "ringsim report: %s\n", err.msg);
            rc = RS_EXIT_USAGE;
            goto done;
        }
    }
    const rs_machine_t *m = &c->machine;
    const rs_problem_t *p0 = &c->problem;
    bool sim_on = false;
#ifdef RINGSIM_HAVE_SIM
    sim_on = !no_sim && m->comp_slowdown <= 1 && !rs_machine_partial_overlap(m);
#endif
    fprintf(stderr, "ringsim report: model%s for %d layouts x %d passes...\n", sim_on ? " and sim" : "", c->n_layouts,
            c->n_passes);

    /* ---- 1. every layout x pass: closed form, walk, traces, sim, compare ---- */
    ne = c->n_layouts * c->n_passes;
    es = calloc((size_t)ne, sizeof *es);
    if (!es) {
        rc = RS_EXIT_FAIL;
        goto done;
    }
    for (int j = 0; j < c->n_passes && rc == 0; j++)
        for (int i = 0; i < c->n_layouts && rc == 0; i++) {
            entry_t *e = &es[j * c->n_layouts + i];
            e->problem = rs_cli_common_problem(c, i, j);
            const rs_problem_t *p = &e->problem;
            e->busy_s = calloc((size_t)p->n_ranks, sizeof *e->busy_s);
            rs_schedule_t *s = rs_schedule_create(p, &err);
            rs_trace_t *t = rs_trace_create("model");
            if (!e->busy_s || !s || !t || rs_model_closed(p, m, &e->closed, &err) != 0 ||
                rs_model_walk(s, m, t, e->busy_s, &e->walk, &err) != 0 || rs_trace_meta_problem(t, p) != 0 ||
                rs_cli_meta_machine(t, m) != 0 || rs_trace_set_meta(t, "backend", "model") != 0) {
                rc = RS_EXIT_FAIL;
            }
            if (rc == 0) {
                rs_trace_sort(t);
                snprintf(path, sizeof path, "%s/traces/model-%s-%s.csv", dir, rs_layout_name(p->layout), rs_pass_name(p->pass));
                snprintf(path2, sizeof path2, "%s/traces/model-%s-%s.json", dir, rs_layout_name(p->layout), rs_pass_name(p->pass));
                if (rs_trace_write_csv(t, path, &err) != 0 || rs_trace_write_chrome(t, path2, &err) != 0) rc = RS_EXIT_FAIL;
            }
#ifdef RINGSIM_HAVE_SIM
            if (rc == 0 && sim_on) {
                rs_sim_config_t cfg;
                rs_sim_config_default(&cfg);
                rs_sim_result_t r;
                memset(&r, 0, sizeof r);
                rs_trace_t *st = rs_trace_create("sim");
                if (!st || rs_sim_run(s, m, &cfg, st, &r, &err) != 0) {
                    rc = RS_EXIT_FAIL;
                } else {
                    rs_trace_sort(st);
                    rs_cli_meta_machine(st, m);
                    e->has_sim = true;
                    e->sim_makespan_s = r.makespan_s;
                    snprintf(path, sizeof path, "%s/traces/sim-%s-%s.csv", dir, rs_layout_name(p->layout), rs_pass_name(p->pass));
                    snprintf(path2, sizeof path2, "%s/traces/sim-%s-%s.json", dir, rs_layout_name(p->layout), rs_pass_name(p->pass));
                    if (rs_trace_write_csv(st, path, &err) != 0 || rs_trace_write_chrome(st, path2, &err) != 0 ||
                        rs_compare_traces(st, t, &e->cmp, &err) != 0)
                        rc = RS_EXIT_FAIL;
                    snprintf(path, sizeof path, "%s/data/compare-%s-%s.csv", dir, rs_layout_name(p->layout), rs_pass_name(p->pass));
                    char na[200], nb[200];
                    snprintf(na, sizeof na, "sim-%s-%s.csv (sim)", rs_layout_name(p->layout), rs_pass_name(p->pass));
                    snprintf(nb, sizeof nb, "model-%s-%s.csv (model)", rs_layout_name(p->layout), rs_pass_name(p->pass));
                    if (rc == 0 && rs_compare_write_csv(&e->cmp, na, nb, path, &err) != 0) rc = RS_EXIT_FAIL;
                }
                rs_sim_result_free(&r);
                rs_trace_free(st);
            }
#endif
            rs_trace_free(t);
            rs_schedule_free(s);
        }
    if (rc != 0) {
        fprintf(stderr, "ringsim report: %s\n", err.msg);
        goto done;
    }
    /* per-rank busy time, one file per pass (all three layouts needed) */
    bool have_busy[RS_PASS_COUNT] = {false, false};
    for (int j = 0; j < c->n_passes; j++) {
        const entry_t *byl[RS_LAYOUT_COUNT] = {NULL, NULL, NULL};
        for (int i = 0; i < c->n_layouts; i++) byl[es[j * c->n_layouts + i].problem.layout] = &es[j * c->n_layouts + i];
        if (!byl[0] || !byl[1] || !byl[2]) continue;
        snprintf(path, sizeof path, "%s/data/busy-%s.csv", dir, rs_pass_name(c->passes[j]));
        rs_file_t f;
        if (rs_file_open(&f, path, &err) != 0) {
            rc = RS_EXIT_FAIL;
            goto fail_msg;
        }
        fprintf(f.fp, "# per-rank compute (busy) time of the model's critical-path walk, seconds; %s pass, %s\n",
                rs_pass_name(c->passes[j]), p0->causal ? "causal" : "non-causal");
        fprintf(f.fp, "rank,contiguous,striped,zigzag\n");
        for (int64_t r = 0; r < p0->n_ranks; r++)
            fprintf(f.fp, "%lld,%.17g,%.17g,%.17g\n", (long long)r, byl[0]->busy_s[r], byl[1]->busy_s[r], byl[2]->busy_s[r]);
        if (rs_file_commit(&f, &err) != 0) {
            rc = RS_EXIT_FAIL;
            goto fail_msg;
        }
        have_busy[c->passes[j]] = true;
    }
    /* summary.csv: the numbers the report states, at full precision (tests compare them to the model) */
    {
        snprintf(path, sizeof path, "%s/summary.csv", dir);
        rs_file_t f;
        if (rs_file_open(&f, path, &err) != 0) {
            rc = RS_EXIT_FAIL;
            goto fail_msg;
        }
        fprintf(f.fp, "# ringsim report summary: closed form and critical-path walk per layout and pass\n"
                      "layout,pass,block_tokens,b_min_tokens,b_star_tokens,t_comp_s,t_comm_s,t_step_s,bound,makespan_s,"
                      "ideal_s,efficiency,busy_max_s,busy_mean_s,comm_bound_steps,rank_steps,sim_makespan_s\n");
        for (int k = 0; k < ne; k++) {
            const entry_t *e = &es[k];
            fprintf(f.fp, "%s,%s,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%lld,%lld,",
                    rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), (long long)e->closed.block_tokens,
                    e->closed.b_min_tokens, e->closed.b_star_tokens, e->closed.t_comp_s, e->closed.t_comm_s,
                    e->closed.t_step_s, e->closed.comm_bound ? "comm" : "compute", e->walk.makespan_s, e->walk.ideal_s,
                    e->walk.efficiency, e->walk.busy_max_s, e->walk.busy_mean_s, (long long)e->walk.comm_bound_steps,
                    (long long)e->walk.rank_steps);
            if (e->has_sim) fprintf(f.fp, "%.17g\n", e->sim_makespan_s);
            else fprintf(f.fp, "nan\n");
        }
        if (rs_file_commit(&f, &err) != 0) {
            rc = RS_EXIT_FAIL;
            goto fail_msg;
        }
    }

    /* ---- 2. sweeps ---- */
    fprintf(stderr, "ringsim report: sweeps...\n");
    spec->common = *c;
    spec->common.n_layouts = 1;
    spec->common.layouts[0] = RS_LAYOUT_ZIGZAG;
    spec->common.n_passes = 1;
    spec->common.passes[0] = RS_PASS_FORWARD;
    spec->run_sim = sim_on;
    spec->run_exec = false;
    spec->n_blocks = rs_sweep_parse_range("--block", quick ? "256:16K:x4" : "64:64K:x2", 1, INT32_MAX, spec->blocks,
                                          RS_SWEEP_MAX_VALUES, &err);
    spec->common.problem.causal = false;
    snprintf(path, sizeof path, "%s/data/sweep-b.csv", dir);
    if (run_sweep(spec, path, "ringsim report (B sweep, full blocks)", &sb, &nsb, &err) != 0) {
        rc = RS_EXIT_FAIL;
        goto fail_msg;
    }
    spec->common.problem.causal = true;
    snprintf(path, sizeof path, "%s/data/sweep-b-causal.csv", dir);
    if (run_sweep(spec, path, "ringsim report (B sweep, causal)", &sbc, &nsbc, &err) != 0) {
        rc = RS_EXIT_FAIL;
        goto fail_msg;
    }
    /* scaling: N at fixed S, and B at fixed N, for three machines */
    spec->common.problem.causal = p0->causal;
    /* the report's profile, the same devices one per node (every hop over its inter-node tier, when
     * it has one), and a third vendor: h100-sxm, h100-sxm:g1, mi300x by default */
    spec->n_profiles = 0;
    snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%.500s", c->profile);
    if (c->hw.has_inter && !strchr(c->profile, ':'))
        snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%.500s:g1", c->profile);
    snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%s",
             strcmp(c->profile, "mi300x") == 0 ? "h100-sxm" : "mi300x");
    spec->common.flops_override = spec->common.bw_override = spec->common.inter_bw_override = 0;
    spec->n_blocks = 0;
    spec->n_seqs = 1;
    spec->seqs[0] = p0->seq_tokens;
    spec->n_ranks = rs_sweep_parse_range("--ranks", quick ? "2:16:x2" : "2:128:x2", 1, INT32_MAX, spec->ranks,
                                         RS_SWEEP_MAX_VALUES, &err);
    snprintf(path, sizeof path, "%s/data/scaling-n.csv", dir);
    if (run_sweep(spec, path, "ringsim report (N scaling at fixed S)", &sn, &nsn, &err) != 0) {
        rc = RS_EXIT_FAIL;
        goto fail_msg;
    }
    spec->n_seqs = 0;
    spec->n_ranks = 1;
    spec->ranks[0] = p0->n_ranks;
    spec->n_blocks = rs_sweep_parse_range("--block", quick ? "256:16K:x4" : "256:64K:x2", 1, INT32_MAX, spec->blocks,
                                          RS_SWEEP_MAX_VALUES, &err);
    snprintf(path, sizeof path, "%s/data/scaling-b.csv", dir);
    if (run_sweep(spec, path, "ringsim report (B scaling at fixed N)", &sbb, &nsbb, &err) != 0) {
        rc = RS_EXIT_FAIL;
        goto fail_msg;
    }

    /* ---- 3. real CPU execution: ringsim validate (helper-exec's command), as a subprocess ---- */
    char exec_note[1024] = "", exec_summary[2400] = "";
    int exec_status = -3;
    bool have_val = false, have_val_cmp = false;
    if (!no_exec) {
        char self[1024];
        ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
        if (k > 0) {
            self[k] = 0;
            char vdir[1200], a_csv[1400], a_tr[1400], a_prof[1400];
            snprintf(vdir, sizeof vdir, "%s/validation", dir);
            snprintf(path, sizeof path, "%s/traces", vdir);
            mkdir_p(vdir, &err);
            mkdir_p(path, &err);
            snprintf(a_csv, sizeof a_csv, "--csv=%s/validate.csv", vdir);
            snprintf(a_tr, sizeof a_tr, "--trace-dir=%s/traces", vdir);
            snprintf(a_prof, sizeof a_prof, "--save-profile=%s/calibrated.json", vdir);
            snprintf(path2, sizeof path2, "%s/validate.log", vdir);
            /* the problem is validate's own default, spelled out: the seed's full-block analysis */
            char *args[] = {self, "validate", a_csv, a_tr, a_prof, "--ranks=2", "--heads=2", "--kv-heads=2", "--head-dim=128",
                            "--dtype=fp32", "--no-causal", "--layout=contiguous", "--pass=forward", NULL};
            fprintf(stderr, "ringsim report: real CPU execution (ringsim validate, up to %lld s)...\n", (long long)exec_timeout);
            exec_status = run_validate(self, args, path2, (int)exec_timeout);
            char tail[700];
            file_tail(path2, tail, sizeof tail);
            if (exec_status == 0)
                snprintf(exec_note, sizeof exec_note, "ringsim validate calibrated this machine and measured a B sweep on "
                         "2 MPI ranks (validation/: validate.log, validate.csv, calibrated.json, traces/).");
            else if (exec_status == -2)
                snprintf(exec_note, sizeof exec_note, "ringsim validate did not finish within %lld s and was stopped "
                         "(validation/validate.log).", (long long)exec_timeout);
            else
                snprintf(exec_note, sizeof exec_note, "ringsim validate is not available or failed (exit %d): %s", exec_status,
                         tail[0] ? tail : "no output");
            if (exec_status == 0) {
                /* its summary lines, verbatim */
                FILE *lf = fopen(path2, "r");
                char line[512];
                while (lf && fgets(line, sizeof line, lf)) {
                    line[strcspn(line, "\n")] = 0;
                    const char *seed_x = "# crossover B (T_comm = T_comp alone";
                    if (strncmp(line, seed_x, strlen(seed_x)) == 0) { /* validate's crossover at the seed's threshold */
                        const char *pm = strstr(line, "measured "), *pw = strstr(line, "walk ");
                        if (pm) val_x_meas = strtod(pm + 9, NULL);
                        if (pw) val_x_model = strtod(pw + 5, NULL);
                    }
                    if (strncmp(line, "# crossover", 11) == 0 || strncmp(line, "# profile", 9) == 0 ||
                        strncmp(line, "# per-(rank, step)", 18) == 0 || strncmp(line, "# simulator vs", 14) == 0 ||
                        strncmp(line, "# alpha-beta", 12) == 0 || strncmp(line, "  t_", 4) == 0 || strncmp(line, "  makespan", 10) == 0)
                        snprintf(exec_summary + strlen(exec_summary), sizeof exec_summary - strlen(exec_summary), "%s\n",
                                 line[0] == '#' ? line + 2 : line + 2);
                }
                if (lf) fclose(lf);
#ifdef RINGSIM_HAVE_PLOTS
                /* the measured B sweep in the sweep format: model (walk on the calibrated profile) + measured */
                rs_table_t vt;
                snprintf(path, sizeof path, "%s/validate.csv", vdir);
                if (rs_table_read(path, &vt, &err) == 0) {
                    int cb = rs_table_col(&vt, "B"), cc = rs_table_col(&vt, "t_comp_meas_s"), cm = rs_table_col(&vt, "t_comm_meas_s"),
                        cs = rs_table_col(&vt, "t_step_meas_s"), ck = rs_table_col(&vt, "makespan_meas_s");
                    rs_sweep_spec_t *vs = calloc(1, sizeof *vs);
                    if (vs && cb >= 0 && cc >= 0 && cm >= 0 && cs >= 0 && ck >= 0 && vt.n_rows > 0) {
                        rs_cli_common_init(&vs->common);
                        rs_err_t e2;
                        snprintf(vs->common.profile, sizeof vs->common.profile, "%.480s/calibrated.json", vdir);
                        rs_cli_common_opt(&vs->common, RS_OPT_DTYPE, "fp32", &e2);
                        vs->common.problem.n_ranks = 2;
                        vs->common.problem.q_heads = vs->common.problem.kv_heads = 2;
                        vs->common.problem.head_dim = 128;
                        vs->common.problem.causal = false;
                        vs->common.layouts[0] = RS_LAYOUT_CONTIGUOUS;
                        vs->common.passes[0] = RS_PASS_FORWARD;
                        vs->n_blocks = 0;
                        for (size_t r = 0; r < vt.n_rows && r < RS_SWEEP_MAX_VALUES; r++)
                            vs->blocks[vs->n_blocks++] = strtoll(vt.cells[r][cb], NULL, 10);
                        snprintf(path, sizeof path, "%s/data/validation-b.csv", dir);
                        if (run_sweep(vs, path, "ringsim report (ringsim validate's B sweep: calibrated model + measured)",
                                      &sv, &nsv, &e2) == 0) {
                            for (size_t r = 0; r < nsv && r < vt.n_rows; r++) {
                                sv[r].has_exec = true;
                                sv[r].exec.t_comp_s = strtod(vt.cells[r][cc], NULL);
                                sv[r].exec.t_comm_s = strtod(vt.cells[r][cm], NULL);
                                sv[r].exec.t_step_s = strtod(vt.cells[r][cs], NULL);
                                sv[r].exec.makespan_s = strtod(vt.cells[r][ck], NULL);
                                sv[r].exec.n_comp = sv[r].exec.n_comm = sv[r].exec.n_step = 1;
                            }
                            rs_file_t f;
                            if (rs_file_open(&f, path, &e2) == 0) {
                                rs_sweep_write_header(f.fp, vs, "ringsim report (ringsim validate's B sweep: calibrated model + measured)");
                                for (size_t r = 0; r < nsv; r++) rs_sweep_write_row(f.fp, r, &sv[r]);
                                rs_sweep_write_crossovers(f.fp, sv, nsv);
                                have_val = rs_file_commit(&f, &e2) == 0;
                            }
                        }
                    }
                    free(vs);
                    rs_table_free(&vt);
                }
                /* per-step comparison at the B nearest the measured crossover's upper side */
                for (size_t r = 0; r < nsv && !have_val_cmp; r++) {
                    long long b = (long long)rs_problem_block(&sv[r].problem);
                    if (sv[r].exec.t_comp_s < sv[r].exec.t_comm_s && r + 1 < nsv) continue;
                    char ta[1600], tb[1600];
                    snprintf(ta, sizeof ta, "%s/traces/validate-B%lld-exec.csv", vdir, b);
                    snprintf(tb, sizeof tb, "%s/traces/validate-B%lld-model.csv", vdir, b);
                    rs_err_t e2;
                    rs_trace_t *xa = rs_trace_read_csv(ta, &e2), *xb = xa ? rs_trace_read_csv(tb, &e2) : NULL;
                    if (xa && xb && rs_compare_traces(xa, xb, &vcmp, &e2) == 0) {
                        char na[200], nb[200];
                        snprintf(na, sizeof na, "validate-B%lld-exec.csv (measured, CPU)", b);
                        snprintf(nb, sizeof nb, "validate-B%lld-model.csv (model, calibrated)", b);
                        snprintf(path, sizeof path, "%s/data/compare-exec.csv", dir);
                        have_val_cmp = rs_compare_write_csv(&vcmp, na, nb, path, &e2) == 0;
                        vcmp_b = b;
                    }
                    rs_trace_free(xa);
                    rs_trace_free(xb);
                    if (!have_val_cmp) break;
                }
#endif
            }
        } else {
            snprintf(exec_note, sizeof exec_note, "the ringsim binary could not be located; no real execution.");
        }
    } else {
        snprintf(exec_note, sizeof exec_note, "skipped (--no-exec).");
    }

    /* ---- 4. figures ---- */
    char fig_why[1200] = "";
    bool f_vb = false, f_vpvm = false, f_tb = false, f_tbc = false, f_tl = false, f_tlc = false, f_pvm = false, f_busy = false, f_sn = false, f_sb = false;
    if (!no_figs) {
        fprintf(stderr, "ringsim report: figures...\n");
        snprintf(path, sizeof path, "%s/data/sweep-b.csv", dir);
        f_tb = render(dir, 0, path, "tcomm-vs-b", NULL, NULL, NULL, fig_why, sizeof fig_why);
        snprintf(path, sizeof path, "%s/data/sweep-b-causal.csv", dir);
        f_tbc = render(dir, 0, path, "tcomm-vs-b-causal", NULL, NULL, NULL, fig_why, sizeof fig_why);
        snprintf(path, sizeof path, "%s/traces/%s-zigzag-forward.csv", dir, sim_on ? "sim" : "model");
        if (access(path, R_OK) == 0) f_tl = render(dir, 1, path, "timeline-zigzag-forward", NULL, NULL, NULL, fig_why, sizeof fig_why);
        snprintf(path, sizeof path, "%s/traces/%s-contiguous-forward.csv", dir, sim_on ? "sim" : "model");
        if (access(path, R_OK) == 0)
            f_tlc = render(dir, 1, path, "timeline-contiguous-forward", NULL, NULL, NULL, fig_why, sizeof fig_why);
        snprintf(path, sizeof path, "%s/data/compare-zigzag-forward.csv", dir);
        if (access(path, R_OK) == 0)
            f_pvm = render(dir, 2, path, "pred-vs-meas", "Model vs SimGrid, per step (zigzag, forward)", NULL, NULL, fig_why,
                           sizeof fig_why);
        snprintf(path, sizeof path, "%s/data/busy-forward.csv", dir);
        if (have_busy[RS_PASS_FORWARD])
            f_busy = render(dir, 3, path, "layout-busy", p0->causal ? "Per-rank compute time by layout (causal, forward)"
                                                                    : "Per-rank compute time by layout (forward)",
                            NULL, NULL, fig_why, sizeof fig_why);
        if (have_val) {
            snprintf(path, sizeof path, "%s/data/validation-b.csv", dir);
            f_vb = render(dir, 0, path, "tcomm-vs-b-measured", "Measured on this CPU (2 MPI ranks) vs the calibrated model", NULL,
                          NULL, fig_why, sizeof fig_why);
        }
        if (have_val_cmp) {
            snprintf(path, sizeof path, "%s/data/compare-exec.csv", dir);
            f_vpvm = render(dir, 2, path, "pred-vs-meas-exec", "Calibrated model vs CPU measurement, per (rank, step)", NULL, NULL,
                            fig_why, sizeof fig_why);
        }
        snprintf(path, sizeof path, "%s/data/scaling-n.csv", dir);
        f_sn = render(dir, 4, path, "scaling-n", NULL, NULL, "n_ranks", fig_why, sizeof fig_why);
        snprintf(path, sizeof path, "%s/data/scaling-b.csv", dir);
        f_sb = render(dir, 4, path, "scaling-b", NULL, NULL, "block_tokens", fig_why, sizeof fig_why);
#ifdef RINGSIM_HAVE_PLOTS
        snprintf(path, sizeof path, "%s/figures/scripts", dir);
        rs_err_t e2;
        if (rs_plot_copy_scripts(path, &e2) != 0 && !fig_why[0]) snprintf(fig_why, sizeof fig_why, "%s", e2.msg);
#endif
        /* regenerate.sh: the same figures from the data, with the (editable) copied scripts */
        snprintf(path, sizeof path, "%s/figures/regenerate.sh", dir);
        rs_file_t f;
        if (rs_file_open(&f, path, &err) == 0) {
            const char *simtr = sim_on ? "sim" : "model";
            fprintf(f.fp,
                    "#!/bin/sh\n# Re-render the report's figures from its data with the scripts in figures/scripts/\n"
                    "# (edit them freely; plots/style.gp is the shared look). Run from the report directory.\n"
                    "set -e\ncd \"$(dirname \"$0\")/..\"\nRINGSIM=${RINGSIM:-ringsim}\n"
                    "export RINGSIM_PLOTS_DIR=\"$PWD/figures/scripts\"\n"
                    "for ext in png svg pdf; do\n"
                    "  $RINGSIM plot tcomm-vs-b data/sweep-b.csv -o figures/tcomm-vs-b.$ext\n"
                    "  $RINGSIM plot tcomm-vs-b data/sweep-b-causal.csv -o figures/tcomm-vs-b-causal.$ext\n"
                    "  $RINGSIM plot timeline traces/%s-zigzag-forward.csv -o figures/timeline-zigzag-forward.$ext\n"
                    "  $RINGSIM plot timeline traces/%s-contiguous-forward.csv -o figures/timeline-contiguous-forward.$ext\n"
                    "  [ -f data/compare-zigzag-forward.csv ] && $RINGSIM plot pred-vs-meas data/compare-zigzag-forward.csv "
                    "--title 'Model vs SimGrid, per step (zigzag, forward)' -o figures/pred-vs-meas.$ext\n"
                    "  $RINGSIM plot layout-busy data/busy-forward.csv -o figures/layout-busy.$ext\n"
                    "  $RINGSIM plot scaling data/scaling-n.csv --x n_ranks -o figures/scaling-n.$ext\n"
                    "  $RINGSIM plot scaling data/scaling-b.csv --x block_tokens -o figures/scaling-b.$ext\n"
                    "done\n",
                    simtr, simtr);
            if (rs_file_commit(&f, &err) == 0) chmod(path, 0755);
        }
    } else {
        snprintf(fig_why, sizeof fig_why, "figures skipped (--no-figures)");
    }

    /* ---- 5. report.md / report.html ---- */
    snprintf(path, sizeof path, "%s/report.md", dir);
    snprintf(path2, sizeof path2, "%s/report.html", dir);
    if (rs_file_open(&fmd, path, &err) != 0 || rs_file_open(&fhtml, path2, &err) != 0) {
        rc = RS_EXIT_FAIL;
        goto fail_msg;
    }
    d.md = fmd.fp;
    d.html = fhtml.fp;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ringsim report</title>\n<style>\n"
          "body{font-family:'DejaVu Sans',sans-serif;max-width:1000px;margin:2em auto;line-height:1.45;color:#222}\n"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\n"
          "th{background:#f3f3f3}figure{margin:1.5em 0}figcaption{font-style:italic;color:#444}\n"
          "</style></head><body>\n",
          d.html);
    char a1[32], a2[32], a3[32], a4[32];
    doc_h(&d, 1, "Ring Attention report");
    doc_p(&d, "Problem: S = %lld tokens over N = %lld ranks (B = %lld tokens per rank), batch %lld, %lld query heads, "
              "%lld KV heads, head_dim %lld, %s activations (%lld bytes), dK/dV in flight %lld bytes, %s mask, tile %lldx%lld.",
          (long long)p0->seq_tokens, (long long)p0->n_ranks, (long long)rs_problem_block(p0), (long long)p0->batch,
          (long long)p0->q_heads, (long long)p0->kv_heads, (long long)p0->head_dim, rs_dtype_name(c->dtype),
          (long long)p0->act_bytes, (long long)p0->grad_bytes, p0->causal ? "causal" : "no", (long long)p0->tile_q,
          (long long)p0->tile_k);
    doc_p(&d, "Hardware: %s, F = %.1f TFLOP/s (%s), ring hop %s W = %.1f GB/s per direction, latency %s%s.", m->hw_name,
          m->flops_per_s / 1e12, rs_dtype_name(c->dtype), m->intra.name, m->intra.bw_bytes_per_s / 1e9,
          fmt_t(m->intra.latency_s, a1, sizeof a1),
          m->devices_per_node > 0 && m->devices_per_node < p0->n_ranks ? " (nodes cross over the inter-node tier)" : "");
    {
        char kd[256];
        doc_p(&d, "Compute: the attention steps are costed %s (docs/model.md section 3; --impl, --kernel, --flops change it).",
              rs_kernel_describe(m, kd, sizeof kd));
    }

    doc_h(&d, 2, "Findings");
    for (int j = 0; j < c->n_passes; j++) {
        const entry_t *e0 = &es[j * c->n_layouts];
        const rs_closed_t *cl = &e0->closed;
        doc_li(&d, "**%s: overlap threshold.** B_min = F c_b / (W c_f) = %.1f tokens (the seed's F/W, scaled by the K,V bytes "
                   "per token over the FLOPs per pair); for the %s layout's middle step, with latency, the kernel rates and "
                   "launches, B* = %.1f tokens. This problem runs B = %lld, %.1fx B*: that step computes for %s and moves %s, "
                   "so it is %s-bound (T_comm / T_comp = %.3f).",
               rs_pass_name(e0->problem.pass), cl->b_min_tokens, rs_layout_name(e0->problem.layout), cl->b_star_tokens,
               (long long)cl->block_tokens,
               (double)cl->block_tokens / cl->b_star_tokens, fmt_t(cl->t_comp_s, a1, sizeof a1),
               fmt_t(cl->t_comm_s, a2, sizeof a2), cl->comm_bound ? "transfer" : "compute", cl->t_comm_s / cl->t_comp_s);
        /* layout ranking */
        int best = 0, worst = 0;
        for (int i = 1; i < c->n_layouts; i++) {
            if (es[j * c->n_layouts + i].walk.makespan_s < es[j * c->n_layouts + best].walk.makespan_s) best = i;
            if (es[j * c->n_layouts + i].walk.makespan_s > es[j * c->n_layouts + worst].walk.makespan_s) worst = i;
        }
        const entry_t *eb = &es[j * c->n_layouts + best], *ew = &es[j * c->n_layouts + worst];
        char tie[256] = "";
        for (int i = 0; i < c->n_layouts; i++) /* layouts within 0.5% of the best tie with it */
            if (i != best && es[j * c->n_layouts + i].walk.makespan_s <= 1.005 * eb->walk.makespan_s)
                snprintf(tie + strlen(tie), sizeof tie - strlen(tie), " and %s", rs_layout_name(es[j * c->n_layouts + i].problem.layout));
        if (c->n_layouts > 1) {
            char others[1024] = "";
            for (int i = 0; i < c->n_layouts; i++) {
                if (i == best) continue;
                const entry_t *e = &es[j * c->n_layouts + i];
                snprintf(others + strlen(others), sizeof others - strlen(others), "%s%s %s (%.2fx, +%.2f%%)",
                         others[0] ? ", " : "", rs_layout_name(e->problem.layout), fmt_t(e->walk.makespan_s, a1, sizeof a1),
                         e->walk.makespan_s / eb->walk.makespan_s, 100.0 * (e->walk.makespan_s / eb->walk.makespan_s - 1));
            }
            doc_li(&d, "**%s: %s%s %s** with a makespan of %s (efficiency %.1f%% of perfect balance); %s. The worst, %s, "
                       "leaves its busiest rank computing %.2fx the mean.",
                   rs_pass_name(eb->problem.pass), rs_layout_name(eb->problem.layout), tie, tie[0] ? "tie (within 0.5%)" : "wins",
                   fmt_t(eb->walk.makespan_s, a2, sizeof a2),
                   100 * eb->walk.efficiency, others, rs_layout_name(ew->problem.layout),
                   ew->walk.busy_mean_s > 0 ? ew->walk.busy_max_s / ew->walk.busy_mean_s : 1.0);
        }
    }
    /* bound by what */
    for (int k = 0; k < ne; k++) {
        const entry_t *e = &es[k];
        double frac = e->walk.rank_steps ? (double)e->walk.comm_bound_steps / (double)e->walk.rank_steps : 0;
        double imb = e->walk.busy_mean_s > 0 ? e->walk.busy_max_s / e->walk.busy_mean_s : 1;
        const char *what = frac > 0.5 ? "the transfers" : (imb > 1.1 ? "load imbalance" : "compute");
        doc_li(&d, "%s %s is bound by **%s**: %.0f%% of (rank, step) wait on a transfer, busiest rank %.2fx the mean, "
                   "efficiency %.1f%%.",
               rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), what, 100 * frac, imb, 100 * e->walk.efficiency);
    }
    {
        double bx_full = rs_sweep_crossover(sb, nsb, sb[0].series, sim_on ? 1 : 0);
        double bx_causal = rs_sweep_crossover(sbc, nsbc, sbc[0].series, sim_on ? 1 : 0);
        doc_li(&d, "**Crossover in the data** (%s, zigzag, forward, N = %lld): full blocks cross at B = %.0f tokens "
                   "(B* = %.0f, B_min = %.0f); under the causal mask at B = %.0f tokens, because a causal zigzag step "
                   "computes about half a full block.",
               sim_on ? "SimGrid" : "model walk", (long long)p0->n_ranks, bx_full, sb[0].closed.b_star_tokens,
               sb[0].closed.b_min_tokens, bx_causal);
    }
    for (int pr = 0; pr < spec->n_profiles; pr++) {
        int64_t last_ok = -1, first_bad = -1;
        for (size_t i = 0; i < nsn; i++) {
            if (strcmp(sn[i].profile, spec->profiles[pr]) != 0) continue;
            bool comm = sn[i].pred.n_comm && sn[i].pred.t_comm_s > sn[i].pred.t_comp_s;
            if (!comm && first_bad < 0) last_ok = sn[i].problem.n_ranks;
            if (comm && first_bad < 0) first_bad = sn[i].problem.n_ranks;
        }
        if (first_bad < 0)
            doc_li(&d, "**Scaling, %s**: at S = %lld the ring stays compute-bound up to the largest N swept (%lld).",
                   spec->profiles[pr], (long long)p0->seq_tokens, (long long)spec->ranks[spec->n_ranks - 1]);
        else
            doc_li(&d, "**Scaling, %s**: at S = %lld the ring is compute-bound up to N = %lld and transfer-bound from N = %lld "
                       "(B = %lld tokens per rank).",
                   spec->profiles[pr], (long long)p0->seq_tokens, (long long)last_ok, (long long)first_bad,
                   (long long)(p0->seq_tokens / first_bad));
    }
    doc_end_list(&d);
    if (spec->n_profiles == 3)
        doc_p(&d, "%s is %s with one device per node: every ring hop crosses the inter-node tier (%s, %.0f GB/s per "
                  "direction) instead of %s.",
              spec->profiles[1], c->profile, c->hw.inter.name, c->hw.inter.bw_bytes_per_s / 1e9, c->hw.intra.name);

    doc_h(&d, 2, "Per layout and pass");
    {
        enum { MAXR = 1 + RS_LAYOUT_COUNT * RS_PASS_COUNT };
        char rows[MAXR][512];
        const char *rp[MAXR];
        snprintf(rows[0], sizeof rows[0],
                 "layout|pass|makespan (model)|makespan (sim)|efficiency|busiest/mean|comm-bound steps|T_comp (step)|T_comm|bound|B*");
        for (int k = 0; k < ne && k + 1 < MAXR; k++) {
            const entry_t *e = &es[k];
            snprintf(rows[k + 1], sizeof rows[0], "%s|%s|%s|%s|%.1f%%|%.2f|%lld / %lld|%s|%s|%s|%.0f", rs_layout_name(e->problem.layout),
                     rs_pass_name(e->problem.pass), fmt_t(e->walk.makespan_s, a1, sizeof a1),
                     e->has_sim ? fmt_t(e->sim_makespan_s, a2, sizeof a2) : "-", 100 * e->walk.efficiency,
                     e->walk.busy_mean_s > 0 ? e->walk.busy_max_s / e->walk.busy_mean_s : 1.0,
                     (long long)e->walk.comm_bound_steps, (long long)e->walk.rank_steps, fmt_t(e->closed.t_comp_s, a3, sizeof a3),
                     fmt_t(e->closed.t_comm_s, a4, sizeof a4), e->closed.comm_bound ? "transfer" : "compute", e->closed.b_star_tokens);
        }
        for (int k = 0; k <= ne && k < MAXR; k++) rp[k] = rows[k];
        doc_table(&d, rp, ne + 1 < MAXR ? ne + 1 : MAXR);
    }
    doc_p(&d, "Efficiency = ideal / makespan, ideal = total useful FLOPs / (N x the kernel's rate on one B x B call of the "
              "problem's mask; F_eff(B) without kernel curves). T_comp (step), T_comm, the bound and B* are the closed form's "
              "for the layout's middle step (the step class that paces the ring: a causal zigzag step computes about half a "
              "block). Exact values: summary.csv.");
    if (sim_on) {
        double worst = 0, worst_ms = 0;
        for (int k = 0; k < ne; k++) {
            if (!es[k].has_sim) continue;
            for (int mm = 0; mm < RS_CMP_METRIC_COUNT; mm++)
                if (es[k].cmp.stats[mm].n && es[k].cmp.stats[mm].max_abs > worst) worst = es[k].cmp.stats[mm].max_abs;
            if (fabs(es[k].cmp.makespan_rel) > worst_ms) worst_ms = fabs(es[k].cmp.makespan_rel);
        }
        doc_p(&d, "SimGrid against the model: largest per-step error %.3g%%, largest makespan error %.3g%% over all layouts "
                  "and passes (data/compare-*.csv; `ringsim compare` reproduces them).",
              100 * worst, 100 * worst_ms);
    } else {
        doc_p(&d, "SimGrid: not run (%s).", no_sim ? "--no-sim" : "not built, or --slowdown/--overlap are walk-only");
    }

    doc_h(&d, 2, "Figures");
    if (fig_why[0]) doc_p(&d, "Note: %s", fig_why);
    doc_fig(&d, "tcomm-vs-b", "T_comp and T_comm per ring step against B (full blocks): predicted lines, simulated points", f_tb);
    doc_fig(&d, "tcomm-vs-b-causal", "The same under the causal mask (zigzag): the crossover moves to about 2 B*", f_tbc);
    doc_fig(&d, "timeline-zigzag-forward", "Timeline of the zigzag forward pass: compute, send and recv per rank and step", f_tl);
    doc_fig(&d, "timeline-contiguous-forward", "Timeline of the contiguous forward pass: the causal mask idles early ranks", f_tlc);
    doc_fig(&d, "layout-busy", "Per-rank compute time of the three layouts", f_busy);
    doc_fig(&d, "pred-vs-meas", "Model against SimGrid per (rank, step), y = x with a +-10% band", f_pvm);
    doc_fig(&d, "scaling-n", "Step time and overlap efficiency against N at fixed S, three machines", f_sn);
    doc_fig(&d, "scaling-b", "Step time and overlap efficiency against B at fixed N, three machines", f_sb);

    doc_h(&d, 2, "Real execution (CPU)");
    doc_p(&d, "%s", exec_note);
    if (exec_summary[0]) {
        fprintf(d.md, "```\n%s```\n\n", exec_summary);
        fputs("<pre>", d.html);
        html_text(d.html, exec_summary);
        fputs("</pre>\n", d.html);
    }
    if (have_val) {
        double bx = rs_sweep_crossover(sv, nsv, sv[0].series, 2), bm = rs_sweep_crossover(sv, nsv, sv[0].series, 0);
        doc_p(&d, "On this machine (calibrated: F_eff peak %.2f GFLOP/s, W = %.3f GB/s, latency %s) the measured T_comm "
                  "crosses the block's compute alone (the seed's threshold) at B = %.0f tokens and the calibrated model's walk "
                  "at %.0f; it crosses the median per-step T_comp (the figure's points and lines; with N = 2 half of the steps "
                  "carry a transfer and its host cost) at B = %.0f, the model at %.0f. The closed form's B* (compute with "
                  "the host cost against the full-rate transfer) is %.0f, B_min = %.0f without latency and efficiency.",
              sv[0].machine.flops_per_s / 1e9, sv[0].machine.intra.bw_bytes_per_s / 1e9,
              fmt_t(sv[0].machine.intra.latency_s, a1, sizeof a1), val_x_meas, val_x_model, bx, bm, sv[0].closed.b_star_tokens,
              sv[0].closed.b_min_tokens);
        doc_fig(&d, "tcomm-vs-b-measured", "T_comp and T_comm measured on this CPU (points) against the calibrated model (lines)", f_vb);
    }
    if (have_val_cmp) {
        const rs_cmp_stats_t *s0 = &vcmp.stats[RS_CMP_STEP];
        doc_p(&d, "Per (rank, step) at B = %lld: T_step error median %.1f%%, p95 %.1f%%, max %.1f%% (worst at rank %d, step %d); "
                  "makespan error %+.1f%% (data/compare-exec.csv; error = (model - measured) / measured).",
              vcmp_b, 100 * s0->median_abs, 100 * s0->p95_abs, 100 * s0->max_abs, (int)s0->worst_rank, (int)s0->worst_step,
              100 * vcmp.makespan_rel);
        doc_fig(&d, "pred-vs-meas-exec", "Calibrated model against the CPU measurement per (rank, step), y = x with a +-10% band", f_vpvm);
    }

    doc_h(&d, 2, "Files");
    doc_li(&d, "traces/: model-LAYOUT-PASS.csv and .json (Chrome/Perfetto: open in ui.perfetto.dev)%s", sim_on ? ", sim-LAYOUT-PASS.*" : "");
    doc_li(&d, "data/: sweep-b.csv, sweep-b-causal.csv, scaling-n.csv, scaling-b.csv (ringsim sweep format), busy-*.csv, compare-*.csv");
    doc_li(&d, "figures/: PNG, SVG and PDF; figures/scripts/ holds the gnuplot scripts, figures/regenerate.sh re-renders them");
    doc_li(&d, "summary.csv: every number of the table above at full precision");
    doc_end_list(&d);
    char cmdline[1024] = "ringsim report";
    for (int i = 1; i < argc && strlen(cmdline) < sizeof cmdline - 200; i++)
        snprintf(cmdline + strlen(cmdline), sizeof cmdline - strlen(cmdline), " %s", argv[i]);
    doc_p(&d, "Generated by `%s` (ringsim %s) in %.1f s.", cmdline, RINGSIM_VERSION, rs_now_s() - t_start);
    fputs("</body></html>\n", d.html);
    if (rs_file_commit(&fhtml, &err) != 0 || rs_file_commit(&fmd, &err) != 0) {
        rc = RS_EXIT_FAIL;
        goto fail_msg;
    }
    printf("ringsim report: written to %s/report.md (and %s/report.html) in %.1f s\n", dir, dir, rs_now_s() - t_start);
    goto done;
fail_msg:
    fprintf(stderr, "ringsim report: %s\n", err.msg);
done:
    if (fhtml.fp) rs_file_abort(&fhtml);
    if (fmd.fp) rs_file_abort(&fmd);
    if (es)
        for (int k = 0; k < ne; k++) {
            free(es[k].busy_s);
            rs_compare_free(&es[k].cmp);
        }
    free(es);
    free(sb);
    free(sbc);
    free(sn);
    free(sbb);
    free(sv);
    rs_compare_free(&vcmp);
    free(opts);
    free(spec);
    free(c);
    return rc;
}
