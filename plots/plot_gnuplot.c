/* plot_gnuplot.c - the gnuplot process (plot.h, plot_gnuplot.h): output formats by extension,
 * finding gnuplot, the scripts' folder (RINGSIM_PLOTS_DIR, an installation's, the source tree's or
 * the embedded copies), copying the scripts, and running gnuplot through the subprocess helper. */
#include "plot.h"
#include "plot_gnuplot.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "datadir.h"
#include "embed.h"
#include "output.h"
#include "subprocess.h"

extern const rs_embedded_file_t rs_embedded_plots[]; /* the plots/ scripts, embedded (plots/CMakeLists.txt) */

const char *rs_plot_format_ext(rs_plot_format_t f) {
    static const char *const e[RS_PLOT_FORMAT_COUNT] = {"png", "pdf", "svg", "tex"};
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
    return rs_errc(err, RS_ERR_BAD_INPUT, "-o %s: expected a file name ending in .png, .pdf, .svg or .tex", path);
}

/* ------------------------------------------------------------------------------------------------
 * gnuplot and the scripts
 * ---------------------------------------------------------------------------------------------- */
static int is_exec(const char *p) { return p && *p && access(p, X_OK) == 0; }

/* An environment variable that overrides what the build found. */
typedef struct {
    const char *var;          /* its name */
    int (*ok)(const char *);  /* whether a value can serve */
    const char *why;          /* what a value that cannot serve is told */
    rs_errc_t code;           /* and the kind of that failure */
} env_choice_t;

/* The environment's choice, else the build's: 1 with *out when the variable is set and ok(its
 * value), -1 with err "VAR=value: why" when it is set but not ok; when it is unset or empty, 1 with
 * *out = built when built is ok, else 0. */
static int choice(const env_choice_t *c, const char *built, const char **out, rs_err_t *err) {
    const char *v = getenv(c->var);
    if (v && *v && !c->ok(v)) return rs_errc(err, c->code, "%s=%s: %s", c->var, v, c->why);
    *out = v && *v ? v : built;
    return *out && c->ok(*out);
}

const char *rs_gnuplot_path(rs_err_t *err) {
    static char found[1024];
#ifndef GNUPLOT_EXECUTABLE
#define GNUPLOT_EXECUTABLE NULL
#endif
    static const env_choice_t env = {"RINGSIM_GNUPLOT", is_exec,
                                      "not an executable (unset it to use gnuplot from PATH)", RS_ERR_BAD_INPUT};
    const char *chosen = NULL;
    const int k = choice(&env, GNUPLOT_EXECUTABLE, &chosen, err);
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
    rs_errc(err, RS_ERR_BAD_INPUT, "gnuplot not found (figures need it: apt-get install gnuplot-nox, or set RINGSIM_GNUPLOT)");
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
    static const env_choice_t env = {"RINGSIM_PLOTS_DIR", has_style, "no style.gp there", RS_ERR_RUNTIME};
    const char *built = rs_data_path(installed, sizeof installed, "plots") ? installed : RS_PLOTS_SOURCE_DIR;
    const char *chosen = NULL;
    const int k = choice(&env, built, &chosen, err);
    if (k) return k > 0 ? chosen : NULL;
    if (extracted_dir[0]) return extracted_dir;
    if (rs_out_tmpdir("plots", extracted_dir, sizeof extracted_dir, err) != 0) {
        extracted_dir[0] = 0;
        rs_err_mark(err, RS_ERR_RUNTIME);
        return NULL;
    }
    atexit(remove_extracted);
    if (write_embedded(extracted_dir, err) != 0) {
        remove_extracted();
        rs_err_mark(err, RS_ERR_RUNTIME);
        return NULL;
    }
    return extracted_dir;
}

int plot_copy_into(const char *from, FILE *to, rs_err_t *err) {
    FILE *in = fopen(from, "r");
    if (!in) return rs_errc(err, RS_ERR_RUNTIME, "%s: cannot read: %s", from, strerror(errno));
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, to);
    const int bad = ferror(in);
    fclose(in);
    return bad ? rs_errc(err, RS_ERR_RUNTIME, "%s: read error", from) : 0;
}

int plot_copy_file(const char *from, const char *to, rs_err_t *err) {
    FILE *fp = fopen(to, "w");
    if (!fp) return rs_errc(err, RS_ERR_RUNTIME, "%s: cannot write: %s", to, strerror(errno));
    const int rc = plot_copy_into(from, fp, err);
    if (fclose(fp) != 0 && rc == 0) return rs_errc(err, RS_ERR_RUNTIME, "%s: write error", to);
    return rc;
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
        rs_file_t out;
        if (rs_file_open(&out, to, err) != 0) return -1;
        if (plot_copy_into(from, out.fp, err) != 0) {
            rs_file_abort(&out);
            return -1;
        }
        if (rs_file_commit(&out, err) != 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Running gnuplot
 * ---------------------------------------------------------------------------------------------- */
/* The first non-blank line of the file open on fd (without its newline) into first, and the file's
 * size - 0 when every line is blank or one of gnuplot's warnings ("line 0: warning: iconv failed to
 * convert degree sign" in the C locale: the figure is drawn all the same); closes fd. */
static long read_first_line(int fd, char *first, size_t len) {
    first[0] = 0;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return 0;
    }
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    bool failed = false;
    for (char line[512]; !failed && fgets(line, (int)sizeof line, f);) {
        char *s = line;
        while (isspace((unsigned char)*s)) s++;
        if (!*s || strstr(s, "warning:")) continue;
        snprintf(first, len, "%s", s);
        failed = true;
    }
    first[strcspn(first, "\n")] = 0;
    fclose(f);
    return failed ? size : 0;
}

int plot_gnuplot_run(const char *gnuplot, const char *vars, const char *script, rs_err_t *err) {
    /* gnuplot's stderr: in a registered temporary folder (a signal removes it); gnuplot leads its own
     * process group, so that the watchdog (subprocess.h: the child bound) ends a script's children too */
    char dir[PATH_MAX], errpath[PATH_MAX + 16];
    if (rs_out_tmpdir("gnuplot", dir, sizeof dir, err) != 0) return rs_err_mark(err, RS_ERR_RUNTIME);
    snprintf(errpath, sizeof errpath, "%s/stderr", dir);
    int efd = open(errpath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (efd < 0) {
        rs_out_tmpdir_remove(dir);
        return rs_errc(err, RS_ERR_RUNTIME, "cannot create a temporary file: %s", strerror(errno));
    }
    char *argv[] = {(char *)gnuplot, "-e", (char *)vars, (char *)script, NULL};
    const rs_spawn_t sp = {.argv = argv, .stdin_fd = RS_SPAWN_NULL, .stdout_fd = RS_SPAWN_NULL, .stderr_fd = efd, .new_group = true};
    rs_child_status_t st;
    if (rs_spawn_run(&sp, "gnuplot", 0, &st, err) != 0) {
        close(efd);
        rs_out_tmpdir_remove(dir);
        return rs_err_mark(err, RS_ERR_RUNTIME);
    }
    char first[512];
    const long size = read_first_line(efd, first, sizeof first);
    rs_out_tmpdir_remove(dir);
    char how[64];
    if (st.timed_out || st.term_signal)
        return rs_errc(err, RS_ERR_RUNTIME, "gnuplot %s: %s", script, rs_child_status_text(&st, 0, how, sizeof how));
    if (st.exit_code == 127) return rs_errc(err, RS_ERR_RUNTIME, "%s: cannot execute gnuplot", gnuplot);
    if (st.exit_code != 0)
        return rs_errc(err, RS_ERR_RUNTIME, "gnuplot %s failed (status %d): %s", script, st.exit_code, first);
    if (size > 0) return rs_errc(err, RS_ERR_RUNTIME, "gnuplot %s wrote to stderr (treated as a failure): %s", script, first);
    return 0;
}
