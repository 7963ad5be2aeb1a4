/* jsonw.c - writing JSON text by hand (jsonw.h). */
#include "jsonw.h"
#include "util.h" /* rs_strtod, rs_locale_c_enter */

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

void rs_jw_num(rs_jw_t *w, double x) {
    if (!isfinite(x)) {
        w->bad = 1;
        return;
    }
    char buf[48];
    void *loc = rs_locale_c_enter(); /* '.' as the decimal point whatever the caller's locale */
    double ax = fabs(x);
    if (ax != 0 && (ax >= 1e4 || ax < 1e-3)) {
        /* engineering form, as in the shipped presets: 989e12, 3.35e12, 3e-6 */
        int e3 = (int)floor(log10(ax) / 3) * 3;
        double mant = x / pow(10, e3);
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*ge%d", prec, mant, e3);
            char *end = NULL;
            if (rs_strtod(buf, &end) == x && *end == '\0') {
                fputs(buf, w->fp);
                rs_locale_c_leave(loc);
                return;
            }
        }
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        if (rs_strtod(buf, NULL) == x) break;
    }
    rs_locale_c_leave(loc);
    fputs(buf, w->fp);
}

void rs_jw_str(rs_jw_t *w, const char *s) {
    json_t *j = json_string(s);
    char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    if (t) fputs(t, w->fp);
    else w->bad = 1;
    free(t);
    json_decref(j);
}

void rs_jw_key(rs_jw_t *w, int ind, const char *key, bool first) {
    fprintf(w->fp, "%s%*s", first ? "\n" : ",\n", ind, "");
    rs_jw_str(w, key);
    fputs(": ", w->fp);
}

void rs_jw_str_at(rs_jw_t *w, int ind, const char *key, const char *s, bool first) {
    rs_jw_key(w, ind, key, first);
    rs_jw_str(w, s);
}

void rs_jw_num_at(rs_jw_t *w, int ind, const char *key, double x, bool first) {
    rs_jw_key(w, ind, key, first);
    rs_jw_num(w, x);
}

void rs_jw_source(rs_jw_t *w, int ind, const char *note, bool first) {
    if (note) rs_jw_str_at(w, ind, "source", note, first);
}
