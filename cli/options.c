/* options.c - command-line options as data (options.h). */
#include "options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "meter.h"

#define RS_OPT_CODE 1000 /* getopt_long's value of group g, row i: RS_OPT_CODE + 64 g + i */

/* "a|b|c" -> "a, b or c". */
static void choice_list(const char *choices, char *buf, size_t len) {
    buf[0] = 0;
    int n = 1;
    for (const char *c = choices; *c; c++) n += *c == '|';
    int i = 0;
    for (const char *c = choices; *c && i < n; i++) {
        const size_t m = strcspn(c, "|");
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%.*s", i == 0 ? "" : i == n - 1 ? " or " : ", ", (int)m, c);
        c += m + (c[m] == '|');
    }
}

/* true when name is one of the items of list, separated by sep (NULL: no item). */
static bool list_has(const char *list, char sep, const char *name) {
    const size_t n = strlen(name);
    const char seps[2] = {sep, 0};
    for (const char *c = list; c && *c;) {
        const size_t m = strcspn(c, seps);
        if (m == n && strncmp(c, name, n) == 0) return true;
        c += m + (c[m] == sep);
    }
    return false;
}

/* Store the argument of o into dst. Returns 0 or -1 with err. */
static int store(const rs_opt_t *o, void *dst, const char *arg, rs_err_t *err) {
    char *p = (char *)dst + o->offset, name[80];
    snprintf(name, sizeof name, "--%s", o->name);
    int64_t v;
    switch (o->kind) {
    case RS_ARG_TRUE: *(bool *)p = true; return 0;
    case RS_ARG_FALSE: *(bool *)p = false; return 0;
    case RS_ARG_SIZE: return rs_parse_size(name, arg, (int64_t)o->min, (int64_t)o->max, (int64_t *)p, err);
    case RS_ARG_INT:
        if (rs_parse_size(name, arg, (int64_t)o->min, (int64_t)o->max, &v, err) != 0) return -1;
        *(int *)p = (int)v;
        return 0;
    case RS_ARG_DOUBLE: return rs_parse_double(name, arg, o->min, o->max, (double *)p, err);
    case RS_ARG_STRING:
    case RS_ARG_IN:
    case RS_ARG_OUT:
    case RS_ARG_OUTDIR: *(const char **)p = arg; return 0;
    case RS_ARG_BUF:
    case RS_ARG_IN_BUF:
        if (strlen(arg) >= (size_t)o->max) return rs_errf(err, "%s %s: at most %d characters", name, arg, (int)o->max - 1);
        snprintf(p, (size_t)o->max, "%s", arg);
        return 0;
    case RS_ARG_CHOICE:
        if (!list_has(o->choices, '|', arg)) {
            char list[256];
            choice_list(o->choices, list, sizeof list);
            return rs_errf(err, "%s %s: expected %s", name, arg, list);
        }
        *(const char **)p = arg;
        return 0;
    case RS_ARG_CUSTOM: return o->parse(dst, arg, err);
    }
    return rs_errf(err, "%s: unknown option kind", name);
}

/* The rows every command gets. */
static const rs_opt_t builtin_help = {"help", 'h', NULL, NULL, "this help", RS_ARG_TRUE, 0, 0, 0, NULL, NULL, NULL};
static const rs_opt_t builtin_quiet = {"quiet", 'q', NULL, "off", "no progress on stderr (it shows only on a terminal)",
                                       RS_ARG_TRUE, 0, 0, 0, NULL, NULL, NULL};

bool rs_cli_in_list(const char *list, const char *name) { return list_has(list, ',', name); }

bool rs_cli_offered(const rs_opt_group_t *g, const rs_opt_t *o) { return !rs_cli_in_list(g->skip, o->name); }

/* getopt_long's tables for the groups: long options and "-S:" short ones. NULL on OOM. */
static struct option *make_longopts(const rs_opt_group_t *groups, int n_groups, char *shortopts, size_t len) {
    int total = 1;
    for (int g = 0; g < n_groups; g++) total += groups[g].n;
    struct option *lo = calloc((size_t)total + 2, sizeof *lo);
    if (!lo) return NULL;
    snprintf(shortopts, len, ":h");
    int k = 0;
    for (int g = 0; g < n_groups; g++)
        for (int i = 0; i < groups[g].n; i++) {
            const rs_opt_t *o = &groups[g].opts[i];
            if (!rs_cli_offered(&groups[g], o)) continue;
            const bool has_arg = o->kind != RS_ARG_TRUE && o->kind != RS_ARG_FALSE;
            lo[k++] = (struct option){o->name, has_arg ? required_argument : no_argument, NULL, RS_OPT_CODE + 64 * g + i};
            if (o->short_name)
                snprintf(shortopts + strlen(shortopts), len - strlen(shortopts), "%c%s", o->short_name, has_arg ? ":" : "");
        }
    const rs_opt_t *builtin[2];
    for (int i = 0, n = rs_cli_builtins(groups, n_groups, builtin); i < n; i++) {
        lo[k++] = (struct option){builtin[i]->name, no_argument, NULL, builtin[i]->short_name};
        if (builtin[i]->short_name != 'h') /* 'h' is already in shortopts */
            snprintf(shortopts + strlen(shortopts), len - strlen(shortopts), "%c", builtin[i]->short_name);
    }
    return lo;
}

int rs_cli_builtins(const rs_opt_group_t *groups, int n_groups, const rs_opt_t **out) {
    bool own_quiet = false;
    for (int g = 0; g < n_groups; g++)
        for (int i = 0; i < groups[g].n; i++)
            own_quiet |= rs_cli_offered(&groups[g], &groups[g].opts[i]) &&
                         (!strcmp(groups[g].opts[i].name, "quiet") || groups[g].opts[i].short_name == 'q');
    int n = 0;
    out[n++] = &builtin_help;
    if (!own_quiet) out[n++] = &builtin_quiet;
    return n;
}

/* The group and row of a short option letter. */
static bool find_short(const rs_opt_group_t *groups, int n_groups, int c, int *g_out, int *i_out) {
    for (int g = 0; g < n_groups; g++)
        for (int i = 0; i < groups[g].n; i++)
            if (groups[g].opts[i].short_name == c && rs_cli_offered(&groups[g], &groups[g].opts[i])) {
                *g_out = g, *i_out = i;
                return true;
            }
    return false;
}

int rs_cli_parse(const char *cmd, int argc, char **argv, rs_opt_group_t *groups, int n_groups, rs_err_t *err) {
    char shortopts[256];
    struct option *lo = make_longopts(groups, n_groups, shortopts, sizeof shortopts);
    if (!lo) return rs_errf(err, "out of memory");
    for (int g = 0; g < n_groups; g++) groups[g].seen = 0;
    const rs_opt_t *builtin[2];
    const bool builtin_quiet = rs_cli_builtins(groups, n_groups, builtin) > 1;
    optind = 0; /* 0, not 1: glibc then also drops the rest of a short-option cluster ("-xN") where an
                 * earlier parse stopped, which points into that parse's argv */
    opterr = 0;
    int c, rc = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
        int g = -1, i = -1;
        if (c == 'h') {
            rc = 1;
        } else if (c == 'q' && builtin_quiet) { /* the built-in --quiet (a command's own row comes back as its code) */
            rs_meter_quiet(true);
        } else if (c == ':' || c == '?') {
            /* optopt: the letter of a short option, a long option's code, 0 for an unknown long one;
             * argv[optind - 1] is not always the option: "-zN" stops on z with optind still on it */
            char name[96];
            if (optopt >= RS_OPT_CODE) {
                const int og = (optopt - RS_OPT_CODE) / 64, oi = (optopt - RS_OPT_CODE) % 64;
                snprintf(name, sizeof name, "--%s", groups[og].opts[oi].name);
            } else if (optopt != 0) { /* glibc's char: a byte over 0x7f is negative */
                snprintf(name, sizeof name, "-%c", (char)optopt);
            } else {
                snprintf(name, sizeof name, "%s", argv[optind - 1]);
            }
            if (c == ':') rc = rs_errf(err, "option '%s' needs a value (see ringsim %s --help)", name, cmd);
            else if (optopt >= RS_OPT_CODE) rc = rs_errf(err, "option '%s' takes no value (see ringsim %s --help)", name, cmd);
            else rc = rs_errf(err, "unknown option '%s' (see ringsim %s --help)", name, cmd);
        } else if (c >= RS_OPT_CODE) {
            g = (c - RS_OPT_CODE) / 64, i = (c - RS_OPT_CODE) % 64;
        } else if (!find_short(groups, n_groups, c, &g, &i)) {
            rc = rs_errf(err, "unknown option '-%c' (see ringsim %s --help)", c, cmd);
        }
        if (g >= 0 && (rc = store(&groups[g].opts[i], groups[g].dst, optarg, err)) == 0) {
            groups[g].seen |= 1ull << i;
            if (!strcmp(groups[g].opts[i].name, "quiet")) rs_meter_quiet(true); /* a command's own -q also silences it */
        }
    }
    free(lo);
    return rc;
}

/* The value of row i of group g when it is a file option that was given, else NULL (a flag's field is
 * no pointer). */
static const char *given_path(const rs_opt_group_t *g, int i) {
    const rs_opt_t *o = &g->opts[i];
    const bool file = o->kind == RS_ARG_IN || o->kind == RS_ARG_IN_BUF || o->kind == RS_ARG_OUT || o->kind == RS_ARG_OUTDIR;
    if (!file || !((g->seen >> i) & 1)) return NULL;
    const char *p = (const char *)g->dst + o->offset;
    return o->kind == RS_ARG_IN_BUF ? p : *(const char *const *)(const void *)p;
}

const char *rs_cli_given_path(const rs_opt_group_t *groups, int n_groups, const char *name) {
    for (int g = 0; g < n_groups; g++)
        for (int i = 0; i < groups[g].n; i++)
            if (!strcmp(groups[g].opts[i].name, name) && given_path(&groups[g], i)) return given_path(&groups[g], i);
    return NULL;
}

int rs_cli_io_add(rs_io_plan_t *plan, const rs_opt_group_t *groups, int n_groups, const char *skip) {
    int rc = 0;
    for (int g = 0; g < n_groups; g++)
        for (int i = 0; i < groups[g].n; i++) {
            const rs_opt_t *o = &groups[g].opts[i];
            const char *v = given_path(&groups[g], i);
            if (!v || rs_cli_in_list(skip, o->name)) continue;
            char name[80];
            snprintf(name, sizeof name, "--%s", o->name);
            if (o->kind == RS_ARG_IN || o->kind == RS_ARG_IN_BUF) rc |= rs_io_input(plan, name, v, true);
            else if (o->kind == RS_ARG_OUT) rc |= rs_io_output(plan, name, v);
            else if (o->kind == RS_ARG_OUTDIR) rc |= rs_io_output_dir(plan, name, v, true);
        }
    return rc;
}

bool rs_cli_given(const rs_opt_group_t *g, const char *name) {
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->opts[i].name, name) == 0) return (g->seen >> i) & 1;
    return false;
}

/* One option: "  -S, --seq TOKENS         help text [default]" (help lines after the first indented). */
static void print_opt(FILE *out, const rs_opt_t *o) {
    char left[96];
    snprintf(left, sizeof left, "%s--%s%s%s", o->short_name ? (char[]){'-', o->short_name, ',', ' ', 0} : "    ", o->name,
             o->arg ? " " : "", o->arg ? o->arg : "");
    const char *h = o->help;
    for (int line = 0;; line++) {
        const size_t n = strcspn(h, "\n");
        const bool last = h[n] == 0;
        char text[160];
        snprintf(text, sizeof text, "%.*s", (int)n, h);
        if (last && o->def) fprintf(out, "  %-24s %-44s [%s]\n", line == 0 ? left : "", text, o->def);
        else fprintf(out, "  %-24s %s\n", line == 0 ? left : "", text);
        if (last) break;
        h += n + 1;
    }
}

int rs_cli_own_groups(const rs_opt_group_t *groups, int n_groups) {
    int k = n_groups > 0;
    while (k < n_groups && groups[k].own) k++;
    return k;
}

void rs_cli_print_opts(FILE *out, const rs_opt_group_t *groups, int n_groups) {
    const rs_opt_t *builtin[2];
    const int n_builtin = rs_cli_builtins(groups, n_groups, builtin), own = rs_cli_own_groups(groups, n_groups);
    for (int g = 0; g < n_groups; g++) {
        for (int i = 0; i < groups[g].n; i++) {
            const rs_opt_t *o = &groups[g].opts[i];
            if (o->section) /* the heading, when a row of its section is offered */
                for (int j = i; j < groups[g].n && (j == i || !groups[g].opts[j].section); j++)
                    if (rs_cli_offered(&groups[g], &groups[g].opts[j])) {
                        fprintf(out, "%s\n", o->section);
                        break;
                    }
            if (rs_cli_offered(&groups[g], o)) print_opt(out, o);
        }
        for (int i = 0; g == own - 1 && i < n_builtin; i++) print_opt(out, builtin[i]); /* after the command's own options */
    }
}
