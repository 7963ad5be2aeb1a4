/* plot.c - the gnuplot driver (plot.h): validate the data, pick the script, run gnuplot. */
#include "plot.h"

#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "compare.h"
#include "datadir.h"
#include "embed.h"
#include "subprocess.h"
#include "trace.h"

extern const rs_embedded_file_t rs_embedded_plots[]; /* the plots/ scripts, embedded (plots/CMakeLists.txt) */

static const char *const kind_names[RS_PLOT_KIND_COUNT] = {"tcomm-vs-b", "timeline", "pred-vs-meas",
                                                           "layout-busy", "scaling", "maxctx", "contention",
                                                           "ttft", "pass-boundary"};
static const char *const script_names[RS_PLOT_KIND_COUNT] = {"tcomm_vs_b", "timeline", "pred_vs_meas",
                                                             "layout_busy", "scaling", "maxctx", "contention",
                                                             "ttft", "pass_boundary"};

const char *rs_plot_kind_name(rs_plot_kind_t k) { return rs_enum_name(kind_names, RS_PLOT_KIND_COUNT, (int)k); }

int rs_plot_kind_parse(const char *s, rs_plot_kind_t *out) {
    const int k = rs_enum_parse(kind_names, RS_PLOT_KIND_COUNT, s);
    if (k >= 0) *out = (rs_plot_kind_t)k;
    return k < 0 ? -1 : 0;
}

const char *rs_plot_script_name(rs_plot_kind_t k) {
    static char buf[RS_PLOT_KIND_COUNT][32];
    if (k < 0 || k >= RS_PLOT_KIND_COUNT) return "?";
    snprintf(buf[k], sizeof buf[k], "%s.gp", script_names[k]);
    return buf[k];
}

const char *rs_plot_format_ext(rs_plot_format_t f) {
    static const char *const e[RS_PLOT_FORMAT_COUNT] = {"png", "pdf", "svg"};
    return (f >= 0 && f < RS_PLOT_FORMAT_COUNT) ? e[f] : "?";
}

int rs_plot_format_of(const char *path, rs_plot_format_t *out, rs_err_t *err) {
    const char *dot = strrchr(path, '.');
    if (dot && !strchr(dot, '/'))
        for (int f = 0; f < RS_PLOT_FORMAT_COUNT; f++)
            if (strcasecmp(dot + 1, rs_plot_format_ext((rs_plot_format_t)f)) == 0) {
                *out = (rs_plot_format_t)f;
                return 0;
            }
    return rs_errf(err, "-o %s: expected a file name ending in .png, .pdf or .svg", path);
}

/* ------------------------------------------------------------------------------------------------
 * gnuplot and the scripts
 * ---------------------------------------------------------------------------------------------- */
static int is_exec(const char *p) { return p && *p && access(p, X_OK) == 0; }

/* The environment's choice, else the build's: 1 with *out when var is set and ok(its value), -1 with
 * err "VAR=value: why" when it is set but not ok; when it is unset or empty, 1 with *out = built
 * when built is ok, else 0. */
static int choice(const char *var, int (*ok)(const char *), const char *why, const char *built, const char **out,
                  rs_err_t *err) {
    const char *v = getenv(var);
    if (v && *v && !ok(v)) return rs_errf(err, "%s=%s: %s", var, v, why);
    *out = v && *v ? v : built;
    return *out && ok(*out);
}

const char *rs_gnuplot_path(rs_err_t *err) {
    static char found[1024];
#ifndef GNUPLOT_EXECUTABLE
#define GNUPLOT_EXECUTABLE NULL
#endif
    const char *chosen = NULL;
    const int k = choice("RINGSIM_GNUPLOT", is_exec, "not an executable (unset it to use gnuplot from PATH)",
                         GNUPLOT_EXECUTABLE, &chosen, err);
    if (k) return k > 0 ? chosen : NULL;
    const char *path = getenv("PATH");
    if (path) {
        const char *s = path;
        while (*s) {
            const char *e = strchr(s, ':');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            if (n > 0 && n < sizeof found - 10) {
                snprintf(found, sizeof found, "%.*s/gnuplot", (int)n, s);
                if (is_exec(found)) return found;
            }
            if (!e) break;
            s = e + 1;
        }
    }
    rs_errf(err, "gnuplot not found (figures need it: apt-get install gnuplot-nox, or set RINGSIM_GNUPLOT)");
    return NULL;
}

static char extracted_dir[512]; /* temporary copy of the embedded scripts, removed at exit */

static void remove_extracted(void) {
    if (!extracted_dir[0]) return;
    rs_out_tmpdir_remove(extracted_dir);
    extracted_dir[0] = 0;
}

static int write_embedded(const char *dir, rs_err_t *err) {
    for (const rs_embedded_file_t *f = rs_embedded_plots; f->name; f++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s.gp", dir, f->name);
        rs_file_t out;
        if (rs_file_open(&out, p, err) != 0) return -1;
        fputs(f->text, out.fp);
        if (rs_file_commit(&out, err) != 0) return -1;
    }
    return 0;
}

static int has_style(const char *dir) {
    char p[1024];
    snprintf(p, sizeof p, "%s/style.gp", dir);
    return access(p, R_OK) == 0;
}

const char *rs_plot_scripts_dir(rs_err_t *err) {
#ifndef RS_PLOTS_SOURCE_DIR
#define RS_PLOTS_SOURCE_DIR NULL
#endif
    static char installed[4096]; /* an installation's share/ringsim/plots wins over the source tree */
    const char *built = rs_data_path(installed, sizeof installed, "plots") ? installed : RS_PLOTS_SOURCE_DIR;
    const char *chosen = NULL;
    const int k = choice("RINGSIM_PLOTS_DIR", has_style, "no style.gp there", built, &chosen, err);
    if (k) return k > 0 ? chosen : NULL;
    if (extracted_dir[0]) return extracted_dir;
    if (rs_out_tmpdir("plots", extracted_dir, sizeof extracted_dir, err) != 0) {
        extracted_dir[0] = 0;
        return NULL;
    }
    atexit(remove_extracted);
    if (write_embedded(extracted_dir, err) != 0) {
        remove_extracted();
        return NULL;
    }
    return extracted_dir;
}

int rs_plot_copy_scripts(const char *dir, rs_err_t *err) {
    const char *src = rs_plot_scripts_dir(err);
    if (!src) return -1;
    const char *names[RS_PLOT_KIND_COUNT + 1];
    names[0] = "style.gp";
    for (int k = 0; k < RS_PLOT_KIND_COUNT; k++) names[k + 1] = rs_plot_script_name((rs_plot_kind_t)k);
    for (int i = 0; i <= RS_PLOT_KIND_COUNT; i++) {
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/%s", src, names[i]);
        snprintf(to, sizeof to, "%s/%s", dir, names[i]);
        FILE *in = fopen(from, "r");
        if (!in) return rs_errf(err, "%s: cannot read: %s", from, strerror(errno));
        rs_file_t out;
        if (rs_file_open(&out, to, err) != 0) {
            fclose(in);
            return -1;
        }
        char buf[8192];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out.fp);
        fclose(in);
        if (rs_file_commit(&out, err) != 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Table reader
 * ---------------------------------------------------------------------------------------------- */
static char **split_dup(const char *line, int *n) {
    int cnt = 1;
    for (const char *c = line; *c; c++) cnt += *c == ',';
    char **v = calloc((size_t)cnt, sizeof *v);
    if (!v) return NULL;
    const char *s = line;
    for (int i = 0; i < cnt; i++) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        v[i] = malloc(len + 1);
        if (!v[i]) {
            for (int j = 0; j < i; j++) free(v[j]);
            free(v);
            return NULL;
        }
        memcpy(v[i], s, len);
        v[i][len] = 0;
        s = e ? e + 1 : s + len;
    }
    *n = cnt;
    return v;
}

static void free_strs(char **v, int n) {
    if (!v) return;
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

void rs_table_free(rs_table_t *t) {
    free_strs(t->cols, t->n_cols);
    for (size_t r = 0; r < t->n_rows; r++) free_strs(t->cells[r], t->n_cols);
    free(t->cells);
    free(t->lines);
    for (size_t i = 0; i < t->n_notes; i++) free(t->notes[i]);
    free(t->notes);
    memset(t, 0, sizeof *t);
}

int rs_table_read(const char *path, rs_table_t *t, rs_err_t *err) {
    memset(t, 0, sizeof *t);
    FILE *fp = rs_input_open(path, "CSV table", (uint64_t)1 << 30, err);
    if (!fp) return -1;
    char *line = NULL;
    size_t cap = 0, cap_rows = 0, cap_notes = 0;
    long ln = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, fp)) != -1) {
        ln++;
        if ((size_t)len > RS_MAX_LINE_BYTES) {
            rc = rs_errf(err, "%s:%ld: line longer than %zu bytes (not a CSV table)", path, ln, RS_MAX_LINE_BYTES);
            goto done;
        }
        if ((size_t)len != strlen(line)) { /* a NUL would cut the line short silently */
            rc = rs_errf(err, "%s:%ld: expected text, found a NUL byte", path, ln);
            goto done;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (line[0] == '#') {
            if (t->n_notes == cap_notes) {
                cap_notes = cap_notes ? 2 * cap_notes : 32;
                char **nn = realloc(t->notes, cap_notes * sizeof *nn);
                if (!nn) goto oom;
                t->notes = nn;
            }
            const char *s = line + 1;
            while (*s == ' ') s++;
            if (!(t->notes[t->n_notes] = strdup(s))) goto oom;
            t->n_notes++;
            continue;
        }
        if (len == 0) continue;
        int n = 0;
        char **cells = split_dup(line, &n);
        if (!cells) goto oom;
        if (!t->cols) {
            t->cols = cells;
            t->n_cols = n;
            t->header_line = ln;
            continue;
        }
        if (n != t->n_cols) {
            free_strs(cells, n);
            rc = rs_errf(err, "%s:%ld: expected %d comma-separated columns (as the header line), got %d", path, ln,
                         t->n_cols, n);
            goto done;
        }
        if (t->n_rows == cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 64;
            char ***c = realloc(t->cells, cap_rows * sizeof *c);
            long *l = c ? realloc(t->lines, cap_rows * sizeof *l) : NULL;
            if (c) t->cells = c;
            if (!c || !l) {
                free_strs(cells, n);
                goto oom;
            }
            t->lines = l;
        }
        t->cells[t->n_rows] = cells;
        t->lines[t->n_rows] = ln;
        t->n_rows++;
    }
    if (!t->cols) rc = rs_errf(err, "%s:%ld: expected a header line of column names", path, ln + 1);
    goto done;
oom:
    rc = rs_errf(err, "%s:%ld: out of memory", path, ln);
done:
    free(line);
    fclose(fp);
    if (rc) rs_table_free(t);
    return rc;
}

int rs_table_col(const rs_table_t *t, const char *name) {
    for (int i = 0; i < t->n_cols; i++)
        if (strcmp(t->cols[i], name) == 0) return i;
    return -1;
}

const char *rs_table_note(const rs_table_t *t, const char *key, char *buf, size_t len) {
    size_t kl = strlen(key);
    for (size_t i = 0; i < t->n_notes; i++) {
        const char *s = t->notes[i];
        while (s && *s) {
            while (*s == ' ') s++;
            if (strncmp(s, key, kl) == 0 && s[kl] == '=') {
                snprintf(buf, len, "%s", s + kl + 1);
                return buf;
            }
            s = strchr(s, ' ');
        }
    }
    return NULL;
}

/* Required columns: -1 with "path: expected a column NAME" when absent. */
static int need_cols(const rs_table_t *t, const char *path, const char *const *names, int *idx, rs_err_t *err) {
    for (int i = 0; names[i]; i++) {
        idx[i] = rs_table_col(t, names[i]);
        if (idx[i] < 0) return rs_errf(err, "%s:%ld: expected a column named '%s' in the header line", path, t->header_line,
                                    names[i]);
    }
    return 0;
}

/* Cell as a number: finite, or NaN for "nan"/"" ; -1 with file:line for anything else. */
static int cell_num(const rs_table_t *t, size_t r, int c, const char *path, double *out, rs_err_t *err) {
    const char *s = t->cells[r][c];
    if (!*s || strcasecmp(s, "nan") == 0 || strcasecmp(s, "-nan") == 0) {
        *out = NAN;
        return 0;
    }
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end || isinf(v))
        return rs_errf(err, "%s:%ld: expected a number in column '%s', got '%s'", path, t->lines[r], t->cols[c], s);
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * gnuplot variables
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    char *buf;  /* the -e argument */
    size_t len; /* used */
    size_t cap; /* allocated */
    int oom;    /* allocation failed */
} vars_t;

static void vars_add(vars_t *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vars_add(vars_t *v, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || v->oom) return;
    if (v->len + (size_t)n + 2 > v->cap) {
        size_t cap = (v->len + (size_t)n + 2) * 2;
        char *b = realloc(v->buf, cap);
        if (!b) {
            v->oom = 1;
            return;
        }
        v->buf = b;
        v->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(v->buf + v->len, v->cap - v->len, fmt, ap);
    va_end(ap);
    v->len += (size_t)n;
    v->buf[v->len++] = ';';
    v->buf[v->len] = 0;
}

/* A gnuplot single-quoted string literal of s ('' escapes a quote); enhanced: also escape the
 * enhanced-text control characters so a file name prints as is. */
static void vars_str(vars_t *v, const char *name, const char *s, bool enhanced) {
    size_t n = strlen(s);
    char *q = malloc(3 * n + 3);
    if (!q) {
        v->oom = 1;
        return;
    }
    size_t k = 0;
    q[k++] = '\'';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'') q[k++] = '\'';
        else if (enhanced && strchr("_^{}@&~", s[i])) q[k++] = '\\';
        q[k++] = s[i];
    }
    q[k++] = '\'';
    q[k] = 0;
    vars_add(v, "%s=%s", name, q);
    free(q);
}

static void vars_num(vars_t *v, const char *name, double x) {
    if (isnan(x)) vars_add(v, "%s=NaN", name);
    else vars_add(v, "%s=%.17g", name, x);
}

/* ------------------------------------------------------------------------------------------------
 * Per-kind preparation: validate the data, set the script's variables
 * ---------------------------------------------------------------------------------------------- */
static int prep_tcomm(const char *data, const rs_plot_opts_t *o, vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    static const char *const need[] = {"series", "block_tokens", "b_min_tokens", "b_star_tokens", "seed_t_comp_s",
                                       "seed_t_comm_s", "pred_t_comp_s", "pred_t_comm_s", NULL};
    int c[8];
    int rc = need_cols(&t, data, need, c, err);
    if (rc == 0 && t.n_rows == 0) rc = rs_errf(err, "%s:%ld: expected at least one data row", data, t.header_line + 1);
    if (rc) {
        rs_table_free(&t);
        return -1;
    }
    const char *series = o && o->series ? o->series : t.cells[0][c[0]];
    int c_sim[2] = {rs_table_col(&t, "sim_t_comp_s"), rs_table_col(&t, "sim_t_comm_s")};
    int c_exec[2] = {rs_table_col(&t, "exec_t_comp_s"), rs_table_col(&t, "exec_t_comm_s")};
    size_t n = 0;
    double *b = calloc(t.n_rows, sizeof *b), *cs = calloc(t.n_rows, sizeof *cs), *ms = calloc(t.n_rows, sizeof *ms);
    double *ce = calloc(t.n_rows, sizeof *ce), *me = calloc(t.n_rows, sizeof *me);
    double bmin = NAN, bstar = NAN;
    int good_sim[2] = {0, 0}, good_exec[2] = {0, 0}, good_pred = 0;
    if (!b || !cs || !ms || !ce || !me) rc = rs_errf(err, "%s: out of memory", data);
    for (size_t r = 0; rc == 0 && r < t.n_rows; r++) {
        if (strcmp(t.cells[r][c[0]], series) != 0) continue;
        double x[8];
        for (int i = 1; i < 8 && rc == 0; i++) rc = cell_num(&t, r, c[i], data, &x[i], err);
        if (rc) break;
        if (!(x[1] > 0))
            rc = rs_errf(err, "%s:%ld: expected block_tokens > 0, got '%s'", data, t.lines[r], t.cells[r][c[1]]);
        if (rc) break;
        if (isnan(bmin)) bmin = x[2], bstar = x[3];
        good_pred |= x[6] > 0 && x[7] > 0;
        b[n] = x[1];
        cs[n] = ms[n] = ce[n] = me[n] = NAN;
        for (int i = 0; i < 2 && rc == 0; i++) {
            double y = NAN;
            if (c_sim[i] >= 0 && (rc = cell_num(&t, r, c_sim[i], data, &y, err)) == 0 && y > 0) good_sim[i] = 1;
            if (i == 0) cs[n] = y;
            else ms[n] = y;
            y = NAN;
            if (rc == 0 && c_exec[i] >= 0 && (rc = cell_num(&t, r, c_exec[i], data, &y, err)) == 0 && y > 0)
                good_exec[i] = 1;
            if (i == 0) ce[n] = y;
            else me[n] = y;
        }
        n++;
    }
    if (rc == 0 && n == 0) rc = rs_errf(err, "--series %s: %s has no rows of that series", series, data); /* (only a given one can miss) */
    if (rc == 0 && !good_pred)
        rc = rs_errf(err, "%s: series '%s' has no positive pred_t_comp_s/pred_t_comm_s to plot", data, series);
    if (rc == 0 && !(bmin > 0)) rc = rs_errf(err, "%s: series '%s': expected b_min_tokens > 0", data, series);
    if (rc == 0) {
        int has_sim = good_sim[0] && good_sim[1], has_exec = good_exec[0] && good_exec[1];
        /* sort by B for the crossover (rows are usually sorted already) */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && b[j - 1] > b[j]; j--) {
                double *arr[5] = {b, cs, ms, ce, me};
                for (int a = 0; a < 5; a++) {
                    double tmp = arr[a][j];
                    arr[a][j] = arr[a][j - 1];
                    arr[a][j - 1] = tmp;
                }
            }
        double bx = NAN;
        const char *bx_label = "measured";
        if (has_exec) bx = rs_crossover_b(b, ce, me, n);
        if (isnan(bx) && has_sim) bx = rs_crossover_b(b, cs, ms, n), bx_label = "simulated";
        /* marks outside the data's B range would be drawn outside the axes: leave them out */
        double blo = b[0], bhi = b[n - 1];
        if (!(bmin >= blo / 1.05 && bmin <= bhi * 1.05)) bmin = NAN;
        if (!(bstar >= blo / 1.05 && bstar <= bhi * 1.05)) bstar = NAN;
        vars_str(v, "series", series, false);
        vars_num(v, "bmin", bmin);
        vars_num(v, "bstar", bstar);
        vars_num(v, "bx", bx);
        vars_str(v, "bx_label", bx_label, false);
        vars_add(v, "has_sim=%d", has_sim);
        vars_add(v, "has_exec=%d", has_exec);
        char title[512];
        snprintf(title, sizeof title, "Ring step: compute vs transfer (%s)", series);
        vars_str(v, "title", o && o->title ? o->title : title, !(o && o->title));
    }
    free(b), free(cs), free(ms), free(ce), free(me);
    rs_table_free(&t);
    return rc;
}

static int prep_timeline(const char *data, const rs_plot_opts_t *o, vars_t *v, int *height, rs_err_t *err) {
    rs_trace_t *t = rs_trace_read_csv(data, err);
    if (!t) return -1;
    size_t n = rs_trace_count(t);
    const rs_event_t *e = rs_trace_events(t);
    if (n == 0) {
        rs_trace_free(t);
        return rs_errf(err, "%s: expected at least one event to draw", data);
    }
    rs_pass_t pass = e[0].pass;
    if (o && o->pass && rs_pass_parse(o->pass, &pass) != 0) {
        rs_trace_free(t);
        return rs_errf(err, "--pass %s: expected forward or backward", o->pass);
    }
    int32_t max_rank = -1;
    int kinds = 0;
    for (size_t i = 0; i < n; i++)
        if (e[i].pass == pass) {
            if (e[i].rank > max_rank) max_rank = e[i].rank;
            kinds |= 1 << e[i].kind;
        }
    if (max_rank < 0) {
        rs_trace_free(t);
        return rs_errf(err, "%s: expected events of the %s pass", data, rs_pass_name(pass));
    }
    if (kinds != 0xF) { /* every lane must have data, else gnuplot warns about an empty plot */
        rs_trace_free(t);
        return rs_errf(err, "%s: expected compute, send, recv and step events in the %s pass (N = 1 has no "
                            "transfers to draw)",
                       data, rs_pass_name(pass));
    }
    vars_str(v, "pass_sel", rs_pass_name(pass), false);
    vars_add(v, "n_ranks=%d", (int)max_rank + 1);
    char title[512];
    rs_problem_t p;
    rs_err_t e2;
    if (rs_trace_problem(t, &p, &e2) == 0)
        snprintf(title, sizeof title, "%s: %s %s, %s, S = %lld, N = %lld", rs_trace_source(t),
                 rs_layout_name(p.layout), rs_pass_name(pass), p.causal ? "causal" : "non-causal",
                 (long long)p.seq_tokens, (long long)p.n_ranks);
    else
        snprintf(title, sizeof title, "%s: %s pass", rs_trace_source(t), rs_pass_name(pass));
    const char *hw = rs_trace_get_meta(t, "hw");
    if (hw) snprintf(title + strlen(title), sizeof title - strlen(title), ", %s", hw);
    vars_str(v, "title", o && o->title ? o->title : title, !(o && o->title));
    int h = 160 + 60 * (max_rank + 1);
    *height = h < 750 ? 750 : (h > 4000 ? 4000 : h);
    rs_trace_free(t);
    return 0;
}

static int prep_pvm(const char *data, const rs_plot_opts_t *o, vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    static const char *const need[] = {"metric", "ref_s", "other_s", NULL};
    int c[3];
    if (need_cols(&t, data, need, c, err) != 0) {
        rs_table_free(&t);
        return -1;
    }
    static const char *const metrics[] = {"t_comp", "t_comm", "t_step"};
    int present[3] = {0, 0, 0};
    double lo = INFINITY, hi = 0;
    int rc = 0;
    for (size_t r = 0; r < t.n_rows && rc == 0; r++) {
        double a, b;
        if ((rc = cell_num(&t, r, c[1], data, &a, err)) || (rc = cell_num(&t, r, c[2], data, &b, err))) break;
        int m = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(t.cells[r][c[0]], metrics[i]) == 0) m = i;
        if (m < 0) {
            rc = rs_errf(err, "%s:%ld: expected metric t_comp, t_comm or t_step, got '%s'", data, t.lines[r],
                         t.cells[r][c[0]]);
            break;
        }
        if (a > 0 && b > 0) {
            present[m] = 1;
            lo = fmin(lo, fmin(a, b));
            hi = fmax(hi, fmax(a, b));
        }
    }
    if (rc == 0 && !(present[0] || present[1] || present[2]))
        rc = rs_errf(err, "%s: expected at least one row with positive ref_s and other_s", data);
    if (rc == 0) {
        char list[64] = "";
        for (int i = 0; i < 3; i++)
            if (present[i]) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? " " : "", metrics[i]);
        vars_str(v, "metrics", list, false);
        if (hi <= lo * 1.5) lo /= 1.5, hi *= 1.5; /* a band needs some width */
        vars_num(v, "lo", lo / 1.25);
        vars_num(v, "hi", hi * 1.25);
        char buf[600], lab[700];
        const char *ref = rs_table_note(&t, "reference", buf, sizeof buf);
        snprintf(lab, sizeof lab, "reference: %s", ref ? ref : "?");
        if (o && o->xlabel) vars_str(v, "xlab", o->xlabel, false);
        else vars_str(v, "xlab", lab, true);
        const char *oth = rs_table_note(&t, "other", buf, sizeof buf);
        snprintf(lab, sizeof lab, "other: %s", oth ? oth : "?");
        if (o && o->ylabel) vars_str(v, "ylab", o->ylabel, false);
        else vars_str(v, "ylab", lab, true);
        if (o && o->title) vars_str(v, "title", o->title, false);
    }
    rs_table_free(&t);
    return rc;
}

static int prep_busy(const char *data, const rs_plot_opts_t *o, vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    static const char *const need[] = {"rank", "contiguous", "striped", "zigzag", NULL};
    int c[4];
    int rc = need_cols(&t, data, need, c, err);
    if (rc == 0 && t.n_rows == 0) rc = rs_errf(err, "%s:%ld: expected at least one data row", data, t.header_line + 1);
    for (size_t r = 0; rc == 0 && r < t.n_rows; r++)
        for (int i = 1; i < 4 && rc == 0; i++) {
            double x;
            if ((rc = cell_num(&t, r, c[i], data, &x, err)) == 0 && !(x >= 0))
                rc = rs_errf(err, "%s:%ld: expected a time >= 0 in column '%s', got '%s'", data, t.lines[r],
                             t.cols[c[i]], t.cells[r][c[i]]);
        }
    if (rc == 0 && o && o->title) vars_str(v, "title", o->title, false);
    rs_table_free(&t);
    return rc;
}

static int prep_scaling(const char *data, const rs_plot_opts_t *o, vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    static const char *const need[] = {"profile", "n_ranks", "block_tokens", "pred_t_step_s", "pred_overlap_eff", NULL};
    int c[5];
    int rc = need_cols(&t, data, need, c, err);
    if (rc == 0 && t.n_rows == 0) rc = rs_errf(err, "%s:%ld: expected at least one data row", data, t.header_line + 1);
    int c_sim[2] = {rs_table_col(&t, "sim_t_step_s"), rs_table_col(&t, "sim_overlap_eff")};
    enum { MAXP = 16 };
    const char *prof[MAXP];
    int np = 0, pred_ok[MAXP] = {0}, sim_ok[MAXP] = {0};
    bool n_varies = false, b_varies = false;
    for (size_t r = 0; rc == 0 && r < t.n_rows; r++) {
        const char *p = t.cells[r][c[0]];
        if (!*p || strchr(p, ' ') || strchr(p, '\'')) {
            rc = rs_errf(err, "%s:%ld: expected a profile name without spaces or quotes, got '%s'", data, t.lines[r], p);
            break;
        }
        int k = -1;
        for (int i = 0; i < np; i++)
            if (strcmp(prof[i], p) == 0) k = i;
        if (k < 0) {
            if (np == MAXP) {
                rc = rs_errf(err, "%s:%ld: expected at most %d profiles", data, t.lines[r], MAXP);
                break;
            }
            prof[k = np++] = p;
        }
        double x[5];
        for (int i = 1; i < 5 && rc == 0; i++) rc = cell_num(&t, r, c[i], data, &x[i], err);
        if (rc) break;
        if (strcmp(t.cells[r][c[1]], t.cells[0][c[1]]) != 0) n_varies = true;
        if (strcmp(t.cells[r][c[2]], t.cells[0][c[2]]) != 0) b_varies = true;
        if (x[3] > 0 && x[4] >= 0) pred_ok[k] = 1;
        if (c_sim[0] >= 0 && c_sim[1] >= 0) {
            double s0, s1;
            if ((rc = cell_num(&t, r, c_sim[0], data, &s0, err)) || (rc = cell_num(&t, r, c_sim[1], data, &s1, err))) break;
            if (s0 > 0 && s1 >= 0) sim_ok[k] = 1;
        }
    }
    const char *xcol = o && o->x ? o->x : (n_varies ? "n_ranks" : "block_tokens");
    if (rc == 0 && strcmp(xcol, "n_ranks") != 0 && strcmp(xcol, "block_tokens") != 0)
        rc = rs_errf(err, "--x %s: expected n_ranks or block_tokens", xcol);
    if (rc == 0 && !n_varies && !b_varies)
        rc = rs_errf(err, "%s: expected n_ranks or block_tokens to vary across rows", data);
    int has_sim = np > 0;
    for (int i = 0; rc == 0 && i < np; i++) {
        if (!pred_ok[i]) rc = rs_errf(err, "%s: profile '%s' has no positive pred_t_step_s", data, prof[i]);
        has_sim &= sim_ok[i];
    }
    if (rc == 0) {
        char list[1024] = "";
        for (int i = 0; i < np; i++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "", prof[i]);
        vars_str(v, "profiles", list, false);
        vars_str(v, "xcol", xcol, false);
        vars_add(v, "has_sim=%d", has_sim);
        char title[256];
        snprintf(title, sizeof title, "Step time and overlap efficiency vs %s",
                 strcmp(xcol, "n_ranks") == 0 ? "ranks N" : "block size B");
        vars_str(v, "title", o && o->title ? o->title : title, false);
    }
    rs_table_free(&t);
    return rc;
}

/* profile,n_ranks,max_seq_tokens: the profiles, in the order they come. */
static int prep_maxctx(const char *data, const rs_plot_opts_t *o, vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    static const char *const need[] = {"profile", "n_ranks", "max_seq_tokens", NULL};
    int c[3];
    int rc = need_cols(&t, data, need, c, err);
    if (rc == 0 && t.n_rows == 0) rc = rs_errf(err, "%s:%ld: expected at least one data row", data, t.header_line + 1);
    char list[1024] = "";
    for (size_t r = 0; rc == 0 && r < t.n_rows; r++) {
        const char *p = t.cells[r][c[0]];
        double x;
        if (!*p || strchr(p, ' ') || strchr(p, '\''))
            rc = rs_errf(err, "%s:%ld: expected a profile name without spaces or quotes, got '%s'", data, t.lines[r], p);
        for (int i = 1; i < 3 && rc == 0; i++) rc = cell_num(&t, r, c[i], data, &x, err);
        if (rc == 0 && (r == 0 || strcmp(p, t.cells[r - 1][c[0]]) != 0))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? " " : "", p);
    }
    if (rc == 0) vars_str(v, "profiles", list, false);
    if (rc == 0 && o && o->title) vars_str(v, "title", o->title, false);
    rs_table_free(&t);
    return rc;
}

/* series,nics,oversub,efficiency,efficiency_free: the series in the order they come; x = the column
 * that varies (nics unless only oversub does). */
static int prep_contention(const char *data, const rs_plot_opts_t *o, vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    static const char *const need[] = {"series", "nics", "oversub", "efficiency", "efficiency_free", NULL};
    int c[5];
    int rc = need_cols(&t, data, need, c, err);
    if (rc == 0 && t.n_rows == 0) rc = rs_errf(err, "%s:%ld: expected at least one data row", data, t.header_line + 1);
    char list[4096] = "";
    bool nics_vary = false, ratio_vary = false;
    for (size_t r = 0; rc == 0 && r < t.n_rows; r++) {
        const char *p = t.cells[r][c[0]];
        if (!*p || strchr(p, ' ') || strchr(p, '\''))
            rc = rs_errf(err, "%s:%ld: expected a series name without spaces or quotes, got '%s'", data, t.lines[r], p);
        double x;
        for (int i = 1; i < 5 && rc == 0; i++) rc = cell_num(&t, r, c[i], data, &x, err);
        if (rc) break;
        nics_vary |= strcmp(t.cells[r][c[1]], t.cells[0][c[1]]) != 0;
        ratio_vary |= strcmp(t.cells[r][c[2]], t.cells[0][c[2]]) != 0;
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++) seen = strcmp(t.cells[q][c[0]], p) == 0;
        if (!seen && strlen(list) + strlen(p) + 2 < sizeof list)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? " " : "", p);
    }
    const char *xcol = o && o->x ? o->x : (nics_vary || !ratio_vary ? "nics" : "oversub");
    if (rc == 0 && strcmp(xcol, "nics") != 0 && strcmp(xcol, "oversub") != 0)
        rc = rs_errf(err, "--x %s: expected nics or oversub", xcol);
    if (rc == 0) {
        vars_str(v, "series", list, false);
        vars_str(v, "xcol", xcol, false);
        vars_str(v, "title", o && o->title ? o->title
                                           : !strcmp(xcol, "nics") ? "Concurrent rings: efficiency vs NICs per node"
                                                                   : "Concurrent rings: efficiency vs spine oversubscription",
                 false);
    }
    rs_table_free(&t);
    return rc;
}

/* A series name gnuplot can take as a word: not empty, no spaces or quotes. */
static int series_ok(const rs_table_t *t, size_t r, int c, const char *data, rs_err_t *err) {
    const char *p = t->cells[r][c];
    if (!*p || strchr(p, ' ') || strchr(p, '\'') || strchr(p, '"'))
        return rs_errf(err, "%s:%ld: expected a series name without spaces or quotes, got '%s'", data, t->lines[r], p);
    return 0;
}

/* Append word to a space-separated list (when it fits). */
static void list_add(char *list, size_t len, const char *word) {
    const size_t n = strlen(list);
    if (n + strlen(word) + 2 < len) snprintf(list + n, len - n, "%s%s", n ? " " : "", word);
}

/* series,context_tokens and the four TTFT columns (`ringsim plan --inference --csv`): one line per
 * series and variant that has at least one TTFT > 0 (an empty cell: the variant cannot run there). */
static int prep_ttft(const char *data, const rs_plot_opts_t *o, vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    static const char *const need[] = {"series", "context_tokens", "ttft_pass_kv_s", "ttft_pass_q_s", "ttft_ulysses_s",
                                       "ttft_usp_s", NULL};
    static const char *const variant[4] = {"pass-KV", "pass-Q", "Ulysses", "USP"};
    enum { MAXS = 16 };
    int c[6], ns = 0, has[MAXS][4] = {{0}};
    const char *ser[MAXS];
    int rc = need_cols(&t, data, need, c, err);
    if (rc == 0 && t.n_rows == 0) rc = rs_errf(err, "%s:%ld: expected at least one data row", data, t.header_line + 1);
    for (size_t r = 0; rc == 0 && r < t.n_rows; r++) {
        if ((rc = series_ok(&t, r, c[0], data, err))) break;
        int k = -1;
        for (int i = 0; i < ns; i++)
            if (!strcmp(ser[i], t.cells[r][c[0]])) k = i;
        if (k < 0 && ns == MAXS) rc = rs_errf(err, "%s:%ld: expected at most %d series", data, t.lines[r], MAXS);
        else if (k < 0) ser[k = ns++] = t.cells[r][c[0]];
        double x;
        if (rc == 0 && (rc = cell_num(&t, r, c[1], data, &x, err)) == 0 && !(x > 0 && x < 1e30))
            rc = rs_errf(err, "%s:%ld: expected context_tokens in (0, 1e30), got '%s'", data, t.lines[r], t.cells[r][c[1]]);
        for (int j = 0; j < 4 && rc == 0; j++) {
            if ((rc = cell_num(&t, r, c[2 + j], data, &x, err)) == 0 && !isnan(x) && !(x > 0 && x < 1e30))
                rc = rs_errf(err, "%s:%ld: expected a TTFT in (0, 1e30) s (or empty) in column '%s', got '%s'", data, t.lines[r],
                             t.cols[c[2 + j]], t.cells[r][c[2 + j]]);
            if (rc == 0 && x > 0) has[k][j] = 1;
        }
    }
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    for (size_t r = 0; rc == 0 && r < t.n_rows; r++) {
        double x;
        cell_num(&t, r, c[1], data, &x, NULL);
        xmin = fmin(xmin, x), xmax = fmax(xmax, x);
        for (int j = 0; j < 4; j++)
            if (cell_num(&t, r, c[2 + j], data, &x, NULL) == 0 && x > 0) ymin = fmin(ymin, x), ymax = fmax(ymax, x);
    }
    char pser[4096] = "", pcol[4096] = "", pname[4096] = "", pdash[512] = "", pcolor[512] = "";
    for (int i = 0; rc == 0 && i < ns; i++)
        for (int j = 0; j < 4; j++) {
            if (!has[i][j]) continue;
            char name[300], num[16];
            snprintf(name, sizeof name, "%.250s/%s", ser[i], variant[j]);
            list_add(pser, sizeof pser, ser[i]);
            list_add(pcol, sizeof pcol, need[2 + j]);
            list_add(pname, sizeof pname, name);
            snprintf(num, sizeof num, "%d", j + 1);
            list_add(pdash, sizeof pdash, num);
            snprintf(num, sizeof num, "%d", i + 1);
            list_add(pcolor, sizeof pcolor, num);
        }
    if (rc == 0 && !pser[0]) rc = rs_errf(err, "%s: expected a TTFT > 0 in at least one row", data);
    if (rc == 0) {
        vars_str(v, "pser", pser, false);
        vars_str(v, "pcol", pcol, false);
        vars_str(v, "pname", pname, false);
        vars_str(v, "pdash", pdash, false);
        vars_str(v, "pcolor", pcolor, false);
        vars_num(v, "xmin", xmin / 1.25), vars_num(v, "xmax", xmax * 1.25); /* margins: one point still spans a range */
        vars_num(v, "ymin", ymin / 1.25), vars_num(v, "ymax", ymax * 1.25);
        if (o && o->title) vars_str(v, "title", o->title, false);
    }
    rs_table_free(&t);
    return rc;
}

/* series,cached_tokens,cross_tokens,comm_bound_ratio (`ringsim plan --inference --boundary-csv`): the
 * series with at least one crossing > 0; ratio from the first row. */
static int prep_boundary(const char *data, const rs_plot_opts_t *o, vars_t *v, rs_err_t *err) {
    rs_table_t t;
    if (rs_table_read(data, &t, err) != 0) return -1;
    static const char *const need[] = {"series", "cached_tokens", "cross_tokens", "comm_bound_ratio", NULL};
    int c[4];
    int rc = need_cols(&t, data, need, c, err);
    if (rc == 0 && t.n_rows == 0) rc = rs_errf(err, "%s:%ld: expected at least one data row", data, t.header_line + 1);
    char list[4096] = "";
    double ratio = NAN, pmin = INFINITY, pmax = 0;
    for (size_t r = 0; rc == 0 && r < t.n_rows; r++) {
        double x[4];
        if ((rc = series_ok(&t, r, c[0], data, err))) break;
        for (int i = 1; i < 4 && rc == 0; i++) rc = cell_num(&t, r, c[i], data, &x[i], err);
        if (rc == 0 && !(x[1] > 0 && x[1] < 1e30))
            rc = rs_errf(err, "%s:%ld: expected cached_tokens in (0, 1e30), got '%s'", data, t.lines[r], t.cells[r][c[1]]);
        if (rc == 0 && !(x[3] > 0 && x[3] < 1e30))
            rc = rs_errf(err, "%s:%ld: expected comm_bound_ratio in (0, 1e30), got '%s'", data, t.lines[r], t.cells[r][c[3]]);
        if (rc) break;
        if (r == 0) ratio = x[3];
        pmin = fmin(pmin, x[1]), pmax = fmax(pmax, x[1]);
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++) seen = !strcmp(t.cells[q][c[0]], t.cells[r][c[0]]) && atof(t.cells[q][c[2]]) > 0;
        if (!seen && x[2] > 0) {
            char word[300];
            snprintf(word, sizeof word, " %s ", t.cells[r][c[0]]);
            char padded[4100];
            snprintf(padded, sizeof padded, " %s ", list);
            if (!strstr(padded, word)) list_add(list, sizeof list, t.cells[r][c[0]]);
        }
    }
    if (rc == 0 && !list[0]) rc = rs_errf(err, "%s: expected a crossing (cross_tokens > 0) in at least one row", data);
    if (rc == 0) {
        vars_str(v, "series", list, false);
        vars_num(v, "ratio", ratio);
        vars_num(v, "pmin", pmin / 1.25); /* a margin: one P alone still spans a range */
        vars_num(v, "pmax", pmax * 1.25);
        if (o && o->title) vars_str(v, "title", o->title, false);
    }
    rs_table_free(&t);
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * Running gnuplot
 * ---------------------------------------------------------------------------------------------- */
/* Run gnuplot -e vars script with stdin /dev/null, stdout /dev/null, stderr captured. Returns 0 or
 * -2 with err quoting gnuplot's first stderr line. */
static int run_gnuplot(const char *gnuplot, const char *vars, const char *script, rs_err_t *err) {
    char errpath[] = "/tmp/ringsim-gnuplot-XXXXXX";
    int efd = mkstemp(errpath);
    if (efd < 0) {
        rs_errf(err, "cannot create a temporary file: %s", strerror(errno));
        return -2;
    }
    char *argv[] = {(char *)gnuplot, "-e", (char *)vars, (char *)script, NULL};
    const rs_spawn_t sp = {.argv = argv, .stdin_fd = RS_SPAWN_NULL, .stdout_fd = RS_SPAWN_NULL, .stderr_fd = efd};
    rs_child_status_t st;
    if (rs_spawn_run(&sp, "gnuplot", 0, &st, err) != 0) {
        close(efd);
        remove(errpath);
        return -2;
    }
    char first[512] = "";
    FILE *ef = fdopen(efd, "r");
    long size = 0;
    if (ef) {
        fseek(ef, 0, SEEK_END);
        size = ftell(ef);
        fseek(ef, 0, SEEK_SET);
        while (fgets(first, sizeof first, ef)) { /* first non-blank line */
            char *s = first;
            while (isspace((unsigned char)*s)) s++;
            if (*s) break;
        }
        first[strcspn(first, "\n")] = 0;
        fclose(ef);
    } else {
        close(efd);
    }
    remove(errpath);
    if (st.exit_code != 0) {
        if (st.exit_code == 127)
            rs_errf(err, "%s: cannot execute gnuplot", gnuplot);
        else
            rs_errf(err, "gnuplot %s failed (status %d): %s", script, st.exit_code, first);
        return -2;
    }
    if (size > 0) {
        rs_errf(err, "gnuplot %s wrote to stderr (treated as a failure): %s", script, first);
        return -2;
    }
    return 0;
}

/* Validate data for kind and set the script's variables in v (height: timeline's). Returns 0 or -1. */
static int prepare(rs_plot_kind_t kind, const char *data, const rs_plot_opts_t *opts, vars_t *v, int *height,
                   rs_err_t *err) {
    switch (kind) {
    case RS_PLOT_TCOMM_VS_B: return prep_tcomm(data, opts, v, err);
    case RS_PLOT_TIMELINE: return prep_timeline(data, opts, v, height, err);
    case RS_PLOT_PRED_VS_MEAS: return prep_pvm(data, opts, v, err);
    case RS_PLOT_LAYOUT_BUSY: return prep_busy(data, opts, v, err);
    case RS_PLOT_MAXCTX: return prep_maxctx(data, opts, v, err);
    case RS_PLOT_CONTENTION: return prep_contention(data, opts, v, err);
    case RS_PLOT_TTFT: return prep_ttft(data, opts, v, err);
    case RS_PLOT_PASS_BOUNDARY: return prep_boundary(data, opts, v, err);
    default: return prep_scaling(data, opts, v, err);
    }
}

int rs_plot_prepare(rs_plot_kind_t kind, const char *data, const rs_plot_opts_t *opts, char **vars, rs_err_t *err) {
    if (vars) *vars = NULL;
    if (kind < 0 || kind >= RS_PLOT_KIND_COUNT) return rs_errf(err, "unknown figure kind");
    vars_t v = {0};
    int height = 0;
    if (prepare(kind, data, opts, &v, &height, err) != 0) {
        free(v.buf);
        return -1;
    }
    if (v.oom) {
        free(v.buf);
        return rs_errf(err, "out of memory");
    }
    if (vars) *vars = v.buf;
    else free(v.buf);
    return 0;
}

int rs_plot_render(rs_plot_kind_t kind, const char *data, const char *out, const rs_plot_opts_t *opts,
                   rs_err_t *err) {
    rs_plot_format_t fmt;
    if (kind < 0 || kind >= RS_PLOT_KIND_COUNT) return rs_errf(err, "unknown figure kind");
    if (rs_plot_format_of(out, &fmt, err) != 0) return -1;
    const char *gnuplot = rs_gnuplot_path(err);
    if (!gnuplot) return -1;
    char pending[4200];
    data = rs_out_read_path(data, pending, sizeof pending); /* this run's own CSV, not yet committed */
    if (access(data, R_OK) != 0) return rs_errf(err, "%s: cannot read: %s", data, strerror(errno));
    vars_t v = {0};
    int height = 0;
    int rc = prepare(kind, data, opts, &v, &height, err);
    if (rc != 0) {
        free(v.buf);
        return -1;
    }
    const char *dir = rs_plot_scripts_dir(err);
    if (!dir) {
        free(v.buf);
        return -2;
    }
    int w = opts && opts->width_px > 0 ? opts->width_px : 1200;
    int h = opts && opts->height_px > 0 ? opts->height_px : (height > 0 ? height : 750);
    if (kind == RS_PLOT_SCALING && !(opts && opts->height_px > 0)) h = 1000;
    char style[1100], script[1100];
    rs_file_t fo; /* gnuplot writes the temporary; committed with the run's other outputs */
    if (rs_file_reserve(&fo, out, err) != 0) {
        free(v.buf);
        return -1;
    }
    const char *tmp_out = fo.tmp_path;
    snprintf(style, sizeof style, "%s/style.gp", dir);
    snprintf(script, sizeof script, "%s/%s", dir, rs_plot_script_name(kind));
    vars_str(&v, "data", data, false);
    vars_str(&v, "out", tmp_out, false);
    vars_str(&v, "style", style, false);
    vars_str(&v, "fmt", rs_plot_format_ext(fmt), false);
    vars_add(&v, "w_px=%d", w);
    vars_add(&v, "h_px=%d", h);
    if (v.oom) {
        free(v.buf);
        return rs_errf(err, "out of memory");
    }
    rc = run_gnuplot(gnuplot, v.buf, script, err);
    free(v.buf);
    struct stat st;
    if (rc == 0 && (stat(tmp_out, &st) != 0 || st.st_size == 0)) {
        rs_errf(err, "gnuplot wrote no output to %s", out);
        rc = -2;
    }
    if (rc == 0 && rs_file_commit(&fo, err) != 0) rc = -2;
    if (rc != 0) rs_file_abort(&fo);
    return rc;
}
