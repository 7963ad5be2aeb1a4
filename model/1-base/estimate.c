/* estimate.c - run estimates and the caps they are checked against (estimate.h). */
#include "estimate.h"
#include "subprocess.h" /* rs_spawn_bound_note */

#include <math.h>
#include <stdio.h>
#include <unistd.h>

double rs_phys_mem_bytes(void) {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 16.0 * 1073741824.0;
}

double rs_mem_cap_default(void) { return rs_phys_mem_bytes() / 2; }

void rs_estimate_then(rs_estimate_t *sum, const rs_estimate_t *e) {
    sum->rank_steps += e->rank_steps;
    sum->time_s += e->time_s;
    sum->mem_bytes = fmax(sum->mem_bytes, e->mem_bytes);
}

const char *rs_fmt_bytes(double b, char *buf, size_t len) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024 && u < 6) b /= 1024, u++;
    snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", b, unit[u]);
    return buf;
}

const char *rs_fmt_duration(double t, char *buf, size_t len) {
    if (!(t < 1e15)) snprintf(buf, len, "forever");
    else if (t >= 2 * 86400) snprintf(buf, len, "%.3g days", t / 86400);
    else if (t >= 2 * 3600) snprintf(buf, len, "%.3g hours", t / 3600);
    else if (t >= 120) snprintf(buf, len, "%.3g min", t / 60);
    else snprintf(buf, len, "%.2g s", t);
    return buf;
}

int rs_limits_check(const char *what, const rs_estimate_t *e, const rs_limits_t *l, rs_err_t *err) {
    const double max_t = l && l->max_time_s > 0 ? l->max_time_s : RS_MAX_TIME_DEFAULT_S;
    const double max_m = l && l->max_mem_bytes > 0 ? l->max_mem_bytes : rs_mem_cap_default();
    rs_spawn_bound_note(max_t); /* children without a timeout of their own run at most twice as long */
    char a[32], b[32], c[32];
    if (!(e->mem_bytes <= max_m)) {
        if (l && l->max_mem_bytes > 0)
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: an estimated %.3g rank-steps would need about %s of memory (above --max-memory %s: give "
                                "--max-memory to allow more)", what, e->rank_steps, rs_fmt_bytes(e->mem_bytes, a, sizeof a),
                           rs_fmt_bytes(max_m, b, sizeof b));
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: an estimated %.3g rank-steps would need about %s of memory (above %s, half of this "
                            "machine's %s: give --max-memory to allow more)", what, e->rank_steps,
                       rs_fmt_bytes(e->mem_bytes, a, sizeof a), rs_fmt_bytes(max_m, b, sizeof b),
                       rs_fmt_bytes(rs_phys_mem_bytes(), c, sizeof c));
    }
    if (!(e->time_s <= max_t))
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: an estimated %.3g rank-steps would take about %s (above --max-time %g s: give --max-time to "
                            "allow more)", what, e->rank_steps, rs_fmt_duration(e->time_s, a, sizeof a), max_t);
    return 0;
}
