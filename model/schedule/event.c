/* event.c - names of the event kinds (event.h). */
#include "event.h"

#include <string.h>

static const char *const kind_names[RS_EV_KIND_COUNT] = {"compute", "send", "recv", "step"};

const char *rs_event_kind_name(rs_event_kind_t k) {
    return (k >= 0 && k < RS_EV_KIND_COUNT) ? kind_names[k] : "?";
}

int rs_event_kind_parse(const char *s, rs_event_kind_t *out) {
    for (int k = 0; k < RS_EV_KIND_COUNT; k++)
        if (strcmp(s, kind_names[k]) == 0) {
            *out = (rs_event_kind_t)k;
            return 0;
        }
    return -1;
}
