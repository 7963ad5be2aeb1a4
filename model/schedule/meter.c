/* meter.c - progress on a terminal (meter.h). */
#define _DEFAULT_SOURCE /* TIOCGWINSZ */
#include "meter.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util.h"

#define RS_METER_DEPTH 4
#define RS_METER_PERIOD_S 0.1

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static rs_meter_t *stack[RS_METER_DEPTH]; /* the meters drawn, outermost first */
static int depth;
static bool quiet, shown;                  /* -q; a line is on the terminal */
static double last_draw_s;

void rs_meter_quiet(bool q) { quiet = q; }

bool rs_meter_on(void) { return !quiet && isatty(STDERR_FILENO); }

const char *rs_meter_duration(double s, char *buf, int len) {
    if (!(s >= 0) || s > 1e8) snprintf(buf, (size_t)len, "?");
    else if (s < 60) snprintf(buf, (size_t)len, "%.0f s", s);
    else if (s < 3600) snprintf(buf, (size_t)len, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, (size_t)len, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
    return buf;
}

static int columns(void) {
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    return 80;
}

/* One level: "what 3/11 points (27%)" or "what: detail"; the innermost with a total also gets the
 * time left. */
static void level_text(const rs_meter_t *m, bool innermost, char *buf, size_t len) {
    size_t n = (size_t)snprintf(buf, len, "%s", m->what);
    if (m->total > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %.0f/%.0f%s%s", m->done, m->total, m->unit ? " " : "", m->unit ? m->unit : "");
    if (m->detail[0] && n < len) n += (size_t)snprintf(buf + n, len - n, " %s", m->detail);
    if (innermost && m->total > 0 && n < len) {
        const double frac = m->done / m->total, elapsed = rs_now_s() - m->t0_s;
        char left[32];
        n += (size_t)snprintf(buf + n, len - n, " (%.0f%%)", 100 * fmin(frac, 1));
        if (m->done > 0 && frac < 1 && n < len)
            snprintf(buf + n, len - n, ", %s left", rs_meter_duration(elapsed / m->done * (m->total - m->done), left, sizeof left));
    }
}

/* Draw the stack (lock held). */
static void draw(void) {
    char line[1024] = "", part[400];
    int inner = depth - 1; /* the innermost level with a total gets the time left */
    while (inner > 0 && !(stack[inner]->total > 0)) inner--;
    for (int i = 0; i < depth; i++) {
        level_text(stack[i], i == inner, part, sizeof part);
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", i ? " | " : "", part);
    }
    const int cols = columns() - 1;
    fprintf(stderr, "\r\033[K%.*s", cols, line);
    fflush(stderr);
    shown = true;
    last_draw_s = rs_now_s();
}

static void erase(void) {
    if (!shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    shown = false;
}

void rs_meter_start(rs_meter_t *m, const char *what, double total, const char *unit) {
    memset(m, 0, sizeof *m);
    snprintf(m->what, sizeof m->what, "%s", what);
    m->unit = unit;
    m->total = total > 0 ? total : 0;
    m->t0_s = rs_now_s();
    if (!rs_meter_on()) return;
    pthread_mutex_lock(&lock);
    if (depth < RS_METER_DEPTH) {
        stack[depth++] = m;
        m->active = true;
        draw();
    }
    pthread_mutex_unlock(&lock);
}

void rs_meter_update(rs_meter_t *m, double done, const char *fmt, ...) {
    m->done = done;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->detail, sizeof m->detail, fmt, ap);
        va_end(ap);
    }
    if (!m->active) return;
    pthread_mutex_lock(&lock);
    if (rs_now_s() - last_draw_s >= RS_METER_PERIOD_S) draw();
    pthread_mutex_unlock(&lock);
}

void rs_meter_end(rs_meter_t *m) {
    if (!m->active) return;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < depth && stack[i] != m) i++;
    if (i < depth) depth = i; /* it and anything started inside it */
    m->active = false;
    if (depth == 0) erase();
    else draw();
    pthread_mutex_unlock(&lock);
}

void rs_meter_hide(void) {
    pthread_mutex_lock(&lock);
    erase();
    last_draw_s = 0; /* the next update redraws */
    pthread_mutex_unlock(&lock);
}
