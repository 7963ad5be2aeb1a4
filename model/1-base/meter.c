/* meter.c - progress on a terminal (meter.h). */
#define _DEFAULT_SOURCE /* TIOCGWINSZ */
#include "meter.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define RS_METER_DEPTH 4
#define RS_METER_PERIOD_S 0.1

#define RS_METER_TICK_S 0.5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static rs_meter_t *stack[RS_METER_DEPTH]; /* the meters drawn, outermost first */
static int depth;
static bool quiet, shown, hidden;          /* -q; a line is on the terminal; rs_meter_hide until an update */
static double last_draw_s;
static pthread_t ticker;                   /* redraws every RS_METER_TICK_S while depth > 0 */
static bool ticking;

void rs_meter_quiet(bool q) { quiet = q; }

bool rs_meter_on(void) {
    if (quiet) return false;
    const char *forced = getenv("RINGSIM_METER"); /* set for its ranks by a process re-launched under mpirun */
    if (forced && (!strcmp(forced, "0") || !strcmp(forced, "1"))) return forced[0] == '1';
    return isatty(STDERR_FILENO);
}

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

/* One level: "what 3/11 points detail"; the innermost has "(27%), 8 s left" (or the time it has
 * run, without a total) before its detail, so a narrow terminal cuts the detail first. */
static void level_text(const rs_meter_t *m, bool innermost, char *buf, size_t len) {
    size_t n = (size_t)snprintf(buf, len, "%s", m->what);
    if (m->total > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %.0f/%.0f%s%s", m->done, m->total, m->unit ? " " : "", m->unit ? m->unit : "");
    char t[32];
    if (innermost && m->total > 0 && n < len) {
        const double frac = m->done / m->total, elapsed = rs_now_s() - m->t0_s;
        n += (size_t)snprintf(buf + n, len - n, " (%.0f%%)", 100 * fmin(frac, 1));
        if (m->done > 0 && frac < 1 && n < len)
            n += (size_t)snprintf(buf + n, len - n, ", %s left",
                                  rs_meter_duration(elapsed / m->done * (m->total - m->done), t, sizeof t));
    }
    if (m->detail[0] && n < len) n += (size_t)snprintf(buf + n, len - n, "%s %s", innermost && m->total > 0 ? "," : "", m->detail);
    if (innermost && !(m->total > 0) && n < len) snprintf(buf + n, len - n, ", %s", rs_meter_duration(rs_now_s() - m->t0_s, t, sizeof t));
}

/* Draw the stack (lock held). */
static void draw(void) {
    char line[1024] = "", part[400];
    for (int i = 0; i < depth; i++) {
        level_text(stack[i], i == depth - 1, part, sizeof part);
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

/* The ticker: redraw every RS_METER_TICK_S until no meter runs. */
static void *tick(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    while (depth > 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(RS_METER_TICK_S * 1e9);
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&wake, &lock, &until);
        if (depth > 0 && !hidden && rs_now_s() - last_draw_s >= RS_METER_TICK_S) draw();
    }
    pthread_mutex_unlock(&lock);
    return NULL;
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
        hidden = false;
        if (rs_now_s() - last_draw_s >= RS_METER_PERIOD_S) draw(); /* short-lived inner meters do not flicker */
        if (!ticking) ticking = pthread_create(&ticker, NULL, tick, NULL) == 0;
    }
    pthread_mutex_unlock(&lock);
}

void rs_meter_update(rs_meter_t *m, double done, const char *fmt, ...) {
    const bool active = m->active; /* only the caller's thread starts and ends m */
    if (active) pthread_mutex_lock(&lock); /* the ticker reads m */
    m->done = done;
    bool changed = false; /* a new phase or item is drawn at once */
    if (fmt) {
        char detail[sizeof m->detail];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        changed = strcmp(detail, m->detail) != 0;
        memcpy(m->detail, detail, sizeof detail);
    }
    if (!active) return;
    if (hidden || changed || rs_now_s() - last_draw_s >= RS_METER_PERIOD_S) draw();
    hidden = false;
    pthread_mutex_unlock(&lock);
}

void rs_meter_end(rs_meter_t *m) {
    if (!m->active) return;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < depth && stack[i] != m) i++;
    if (i < depth) depth = i; /* it and anything started inside it */
    m->active = false;
    const bool join = depth == 0 && ticking;
    if (depth == 0) erase();
    else if (!hidden && rs_now_s() - last_draw_s >= RS_METER_PERIOD_S) draw();
    if (join) {
        ticking = false;
        pthread_cond_signal(&wake);
    }
    pthread_mutex_unlock(&lock);
    if (join) pthread_join(ticker, NULL);
}

void rs_meter_hide(void) {
    pthread_mutex_lock(&lock);
    erase();
    hidden = depth > 0; /* the next update redraws */
    pthread_mutex_unlock(&lock);
}
