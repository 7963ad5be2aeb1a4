/* platform_check.h - a user's SimGrid platform XML (sim --platform) checked before SimGrid reads it:
 * SimGrid aborts ("The Impossible Did Happen") on a host speed of 0 or a link bandwidth <= 0
 * without naming the file, the line or the attribute.
 *
 * Every rate and delay of the platform elements is read - host speed (each pstate of a list),
 * link bandwidth and latency, cluster speed, bw, lat, bb_bw, bb_lat, loopback_bw, loopback_lat,
 * limiter_link, peer speed, bw_in, bw_out, lat, backbone bandwidth and latency, cabinet speed, bw
 * and lat - as a number with an optional unit (SimGrid's: "1Gf", "25GBps", "100Gbps", "3us"):
 * rates must be finite and > 0, delays finite and >= 0.
 */
#ifndef RS_PLATFORM_CHECK_H
#define RS_PLATFORM_CHECK_H

#include "util.h"

/* Check the platform file at path (at most 256 MiB, a regular file or a pipe). Returns 0, or -1
 * with err "p.xml:12: <host id=\"gpu0\"> speed=\"0f\": a speed must be > 0" (a rate, a delay), or
 * the reader's message. */
int rs_platform_check_file(const char *path, rs_err_t *err);
/* The same on the text of a platform (origin names it in messages). */
int rs_platform_check_text(const char *text, const char *origin, rs_err_t *err);

#endif /* RS_PLATFORM_CHECK_H */
