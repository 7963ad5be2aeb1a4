/* jsonw.c - writing JSON text by hand (jsonw.h). */
#include "jsonw.h"

#include <jansson.h>
#include <stdlib.h>

#include "util.h"

void rs_jw_num(rs_jw_t *w, double x) {
    char buf[48];
    if (!rs_fmt_exact(x, buf, sizeof buf)) w->bad = 1;
    else fputs(buf, w->fp);
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
