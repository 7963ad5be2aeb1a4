/* plot_vars.c - gnuplot's -e text, one variable at a time (plot_vars.h). */
#include "plot_vars.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plot_vars_add(plot_vars_t *v, const char *fmt, ...) {
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

/* LaTeX's text for the character c (one of \\{}_^&%#$~): a command or an escape. */
static const char *latex_escape(char c) {
    switch (c) {
    case '\\': return "\\textbackslash{}";
    case '^': return "\\textasciicircum{}";
    case '~': return "\\textasciitilde{}";
    default: return NULL; /* the others: a backslash before them */
    }
}

void plot_vars_str(plot_vars_t *v, const char *name, const char *s, bool text) {
    size_t n = strlen(s);
    char *q = malloc(20 * n + 3);
    if (!q) {
        v->oom = 1;
        return;
    }
    size_t k = 0;
    q[k++] = '\'';
    for (size_t i = 0; i < n; i++) {
        const char *cmd = text && v->tex ? latex_escape(s[i]) : NULL;
        if (cmd) {
            k += (size_t)sprintf(q + k, "%s", cmd);
            continue;
        }
        if (s[i] == '\'') q[k++] = '\'';
        else if (text && strchr(v->tex ? "{}_&%#$" : "_^{}@&~", s[i])) q[k++] = '\\';
        q[k++] = s[i];
    }
    q[k++] = '\'';
    q[k] = 0;
    plot_vars_add(v, "%s=%s", name, q);
    free(q);
}

void plot_vars_num(plot_vars_t *v, const char *name, double x) {
    if (isnan(x)) plot_vars_add(v, "%s=NaN", name);
    else plot_vars_add(v, "%s=%.17g", name, x);
}
