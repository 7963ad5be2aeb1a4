/* rate_source.h - where each rate a machine is costed at comes from: measured, published (with its
 * source), estimated (and how) or user-given. One record per rate - the attention compute rate, the
 * merge bandwidth, the intra- and inter-node hop bandwidths, the latency and the launch cost - held
 * whole by a profile (rs_hw_t: the profile reader fills it from each figure's source), by the machine
 * built from it (rs_machine_t: the option overrides make a rate user-given, the kernel selection sets
 * the attention rate's record) and printed from here by every output (the model and sim tables, the
 * CSV '#' header, JSON, the report, the Python results). docs/model.md section 3a, "Where each rate
 * comes from". */
#ifndef RS_RATE_SOURCE_H
#define RS_RATE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    RS_RKIND_MEASURED = 0, /* measured by ringsim (calibrate, a trace fit, a run on the device) */
    RS_RKIND_PUBLISHED,    /* a datasheet, a paper's figure, a public benchmark: the source says which */
    RS_RKIND_ESTIMATED,    /* derived from other figures: the source says how */
    RS_RKIND_USER,         /* given by the user: an option, or a profile file of their own */
    RS_RKIND_COUNT
} rs_rate_kind_t;

typedef enum {
    RS_RATE_ATTN = 0,      /* the attention kernels' compute rate */
    RS_RATE_MERGE_BW,      /* the merge/accumulate kernels' HBM bandwidth */
    RS_RATE_INTRA_BW,      /* the ring hop inside a node */
    RS_RATE_INTER_BW,      /* the ring hop between nodes */
    RS_RATE_LATENCY,       /* the per-message latency */
    RS_RATE_LAUNCH,        /* the launch cost per kernel (per step in the dense model) */
    RS_RATE_COUNT
} rs_rate_t;

#define RS_RATE_SOURCE_LEN 400

typedef struct {
    rs_rate_kind_t kind;
    char source[RS_RATE_SOURCE_LEN]; /* the source (published, measured) or how (estimated); "" = not said */
} rs_rate_source_t;

typedef struct {
    rs_rate_source_t rate[RS_RATE_COUNT];
} rs_rate_sources_t;

/* "measured" | "published" | "estimated" | "user-given"; "?" out of range. Can't fail. */
const char *rs_rate_kind_name(rs_rate_kind_t k);
/* 0 and *out, or -1 when s is none of the names above. */
int rs_rate_kind_parse(const char *s, rs_rate_kind_t *out);
/* "attention" | "merge_bw" | "intra_bw" | "inter_bw" | "latency" | "launch". Can't fail. */
const char *rs_rate_name(rs_rate_t r);

/* Set rate r's record: its kind and the formatted source (truncated to RS_RATE_SOURCE_LEN). Can't fail. */
void rs_rate_set(rs_rate_sources_t *s, rs_rate_t r, rs_rate_kind_t kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The kind a figure's source text says it is: "Measured by ringsim ..." or "ringsim calibrate ..."
 * (what ringsim's calibrations write; any case) is measured; in a shipped preset a text that starts
 * with "assumption" or "estimate" is estimated and any other published, NULL or "" estimated (not
 * sourced); in the user's own file (preset false) any other text is user-given. Can't fail. */
rs_rate_kind_t rs_rate_kind_of_text(const char *source, bool preset);

/* One line for table headers: "attention published (SOURCE); merge_bw measured (SOURCE); ..." with
 * each source cut to its first clause (at most about 90 characters, "..." when cut); rates in skip
 * (a bit per rs_rate_t, e.g. the inter-node hop of a ring inside one node) left out. Returns buf. */
const char *rs_rate_sources_line(const rs_rate_sources_t *s, unsigned skip, char *buf, size_t len);

#endif /* RS_RATE_SOURCE_H */
