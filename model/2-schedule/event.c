/* event.c - names of the event kinds and the order of events (event.h). */
#include "event.h"

#include <string.h>

#include "util.h"

static const char *const kind_names[RS_EV_KIND_COUNT] = {"compute", "send", "recv", "step"};

const char *rs_event_kind_name(rs_event_kind_t k) { return rs_enum_name(kind_names, RS_EV_KIND_COUNT, (int)k); }

int rs_event_kind_parse(const char *s, rs_event_kind_t *out) {
    const int k = rs_enum_parse(kind_names, RS_EV_KIND_COUNT, s);
    if (k >= 0) *out = (rs_event_kind_t)k;
    return k < 0 ? -1 : 0;
}

int rs_event_key_cmp(const rs_event_t *a, const rs_event_t *b) {
    if (a->pass != b->pass) return a->pass < b->pass ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    return 0;
}

int rs_event_key_qcmp(const void *a, const void *b) { return rs_event_key_cmp(a, b); }
