/* figure_data.c - the data of every figure kind (figure_data.h). */
#include "figure_data.h"

#include <stdarg.h>
#include <stdio.h>

#include "harness.h"

char figure_data[RS_PLOT_KIND_COUNT][1024];
char figure_data_sweep2[1024];

/* name's path into dst. */
static const char *at(char *dst, const char *name) {
    snprintf(dst, 1024, "%s", rs_test_path(name));
    return dst;
}

/* ringsim with the printf arguments; its exit status. */
static int ringsim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ringsim(const char *fmt, ...) {
    char args[12288];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return rs_test_ringsim(args);
}

int figure_data_make(void) {
    char(*d)[1024] = figure_data;
    int bad = ringsim("sweep --block 128:8K:x2 --no-causal -q -o %s", at(d[RS_PLOT_TCOMM_VS_B], "sweep.csv"));
    bad |= ringsim("sweep --block 128:8K:x2 --no-causal --profile h100-sxm,mi300x -q -o %s", at(figure_data_sweep2, "sweep2.csv"));
    bad |= ringsim("sweep --seq 64K --ranks 2:32:x2 --profile h100-sxm,mi300x -q -o %s", at(d[RS_PLOT_SCALING], "scaling.csv"));
    bad |= ringsim("model -N 4 -S 32K -L zigzag -P forward --trace %s", at(d[RS_PLOT_TIMELINE], "model.csv"));
    bad |= ringsim("model -N 4 -S 32K -L zigzag -P forward --latency 2e-6 --trace %s", rs_test_path("model2.csv"));
    bad |= ringsim("compare -q %s %s --csv %s", d[RS_PLOT_TIMELINE], rs_test_path("model2.csv"), at(d[RS_PLOT_PRED_VS_MEAS], "cmp.csv"));
    bad |= ringsim("plan --inference -m llama3-70b --nodes 1,2 -S 8K,32K,128K --cached 4K,16K,64K --csv %s --boundary-csv %s",
                   at(d[RS_PLOT_TTFT], "ttft.csv"), at(d[RS_PLOT_PASS_BOUNDARY], "boundary.csv"));
    bad |= ringsim("plan -m llama3-70b -p h100-sxm,mi300x --maxctx-csv %s", at(d[RS_PLOT_MAXCTX], "maxctx.csv"));
    if (bad) {
        fprintf(stderr, "could not make the data with ringsim: %s\n", rs_test_err);
        return 1;
    }
    FILE *fp = fopen(at(d[RS_PLOT_LAYOUT_BUSY], "busy.csv"), "w");
    if (!fp) return 1;
    fprintf(fp, "# per-rank busy time\nrank,contiguous,striped,zigzag\n");
    for (int r = 0; r < 4; r++) fprintf(fp, "%d,%g,%g,%g\n", r, 1e-3 * (2 * r + 1), 4e-3, 4e-3);
    fclose(fp);
    if (!(fp = fopen(at(d[RS_PLOT_CONTENTION], "contention.csv"), "w"))) return 1;
    fprintf(fp, "# contention\nseries,nics,oversub,balance_efficiency,balance_efficiency_free\n");
    for (int s2 = 0; s2 < 2; s2++)
        for (int k = 1; k <= 8; k *= 2)
            fprintf(fp, "leaf-spine/tp-cp-dp/%d:1,%d,%d,%g,%g\n", s2 + 1, k, s2 + 1, 0.12 * k / (s2 + 1), 0.98);
    fclose(fp);
    if (!(fp = fopen(at(d[RS_PLOT_VALIDATION], "validation.csv"), "w"))) return 1;
    fprintf(fp, "# unit=s\ncase,source,published,predicted,predicted_low,predicted_high\n"
                "8x,paper_A,0.5,0.52,0.47,0.6\n16x,paper_A,1.0,0.93,,\n4x,README B,0.2,0.25,0.2,0.3\n");
    fclose(fp);
    return 0;
}
