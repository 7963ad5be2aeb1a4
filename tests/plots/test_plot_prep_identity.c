/* test_plot_prep_identity.c - the identity figures' preparation (plots/plot_prep_identity.c) on
 * hand-made tables: pred-vs-meas (a compare CSV) and validation (cases against published runs), the
 * exact gnuplot variables each hands its script and the refusals with their exact messages. No
 * gnuplot runs here. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "plot.h"
#include "prep_fixtures.h"
#include "test_main.h"

/* the metrics with a positive pair; the range 0.001..0.004 with 25% margins; the labels from the
 * notes (escaped; a path cut to its file name) or the options (as given) */
RS_TEST(test_pred_vs_meas, "pred-vs-meas: metrics, range, labels") {
    const char *p = prepared_csv(RS_PLOT_PRED_VS_MEAS, "cmp.csv",
                                 "# reference=/runs/x/sim_x\n# other=runs/t.csv (model)\nmetric,ref_s,other_s\nt_comp,0.001,0.002\n"
                                 "t_step,0.004,0.004\nt_comm,0,0.001\n", NULL,
                                 "metrics='t_comp t_step';lo=0.00080000000000000004;hi=0.0050000000000000001;"
                                 "xlab='reference: sim\\_x';ylab='other: t.csv (model)';");
    rs_plot_opts_t o = {.xlabel = "x_lab", .ylabel = "y", .title = "T"};
    prepared(RS_PLOT_PRED_VS_MEAS, p, &o,
             "metrics='t_comp t_step';lo=0.00080000000000000004;hi=0.0050000000000000001;xlab='x_lab';ylab='y';title='T';");
    /* a version 2 compare CSV: the roles' busy times (far outside the range) are not plotted */
    prepared_csv(RS_PLOT_PRED_VS_MEAS, "cmp-roles.csv", "metric,ref_s,other_s\nt_comm,0.003,0.003\nattn_busy,9,9\nmerge_busy,1e-9,1\n", NULL,
                 "metrics='t_comm';lo=0.0016000000000000001;hi=0.0056250000000000007;xlab='reference: ?';ylab='other: ?';");
    /* one point: the band widened by 1.5 each way before the margins; no notes: '?' */
    prepared_csv(RS_PLOT_PRED_VS_MEAS, "cmp1.csv", "metric,ref_s,other_s\nt_comm,0.003,0.003\n", NULL,
                 "metrics='t_comm';lo=0.0016000000000000001;hi=0.0056250000000000007;xlab='reference: ?';ylab='other: ?';");
    refused(RS_PLOT_PRED_VS_MEAS, csv("cmp2.csv", "metric,ref_s,other_s\nt_comp,1,1\nt_bad,1,1\n"), NULL,
            "@:3: expected metric t_comp, t_comm or t_step, got 't_bad'");
    refused(RS_PLOT_PRED_VS_MEAS, csv("cmp3.csv", "metric,ref_s,other_s\nt_comp,0,1\n"), NULL,
            "@: expected at least one row with positive ref_s and other_s");
    refused(RS_PLOT_PRED_VS_MEAS, csv("cmp4.csv", "metric,ref_s\nt_comp,1\n"), NULL,
            "@:1: expected a column named 'other_s' in the header line");
}

static const char val_head[] = "# unit=s\ncase,source,published,predicted,predicted_low,predicted_high\n";

/* two sources in order (the row without a prediction not drawn: its 3.0 is outside the range); the
 * range 0.2..1.0 of every value drawn (bounds included) with 25% margins; seconds; the source as a
 * legend escaped, as a selection kept */
RS_TEST(test_validation, "validation: sources, bars, range, unit") {
    char text[1024];
    snprintf(text, sizeof text,
             "%sllama-8x,Liu_2023,0.5,0.52,0.47,0.6\nllama-16x,Liu_2023,1.0,0.93,,\nrfa-4x,rfa README,0.2,0.25,0.2,0.3\n"
             "rfa-8x,rfa README,3.0,,,\n",
             val_head);
    const char *p = prepared_csv(RS_PLOT_VALIDATION, "val.csv", text, NULL,
                                 "nsrc=2;src1='Liu_2023';src1_t='Liu\\_2023';src2='rfa README';src2_t='rfa README';"
                                 "has_bars=1;lo=0.16;hi=1.25;unit_s=1;xlab='published or measured';ylab='predicted';");
    rs_plot_opts_t o = {.xlabel = "measured_x", .ylabel = "model", .title = "V"};
    prepared(RS_PLOT_VALIDATION, p, &o,
             "nsrc=2;src1='Liu_2023';src1_t='Liu\\_2023';src2='rfa README';src2_t='rfa README';"
             "has_bars=1;lo=0.16;hi=1.25;unit_s=1;xlab='measured_x';ylab='model';title='V';");
    /* no bounds, another unit: the labels name it; one point: the band widened by 1.5 each way */
    prepared_csv(RS_PLOT_VALIDATION, "val2.csv", "# unit=TFLOP/s\ncase,source,published,predicted\nc,s,0.003,0.003\n", NULL,
                 "nsrc=1;src1='s';src1_t='s';has_bars=0;lo=0.0016000000000000001;hi=0.0056250000000000007;unit_s=0;"
                 "xlab='published or measured (TFLOP/s)';ylab='predicted (TFLOP/s)';");
}

/* nine sources: one too many for one marker each */
static void nine_sources(char *text, size_t len) {
    snprintf(text, len, "case,source,published,predicted\n");
    for (int i = 0; i < 9; i++) snprintf(text + strlen(text), len - strlen(text), "c%d,s%d,1,1\n", i, i);
}

RS_TEST(test_validation_refused, "validation: refusals") {
    refused(RS_PLOT_VALIDATION, csv("v1.csv", "case,source,published,predicted,predicted_low\nc,s,1,1,1\n"), NULL,
            "@:1: expected both predicted_low and predicted_high in the header line, or neither");
    refused(RS_PLOT_VALIDATION, csv("v2.csv", "case,source,published\nc,s,1\n"), NULL,
            "@:1: expected a column named 'predicted' in the header line");
    REFUSED_ROWS(RS_PLOT_VALIDATION, val_head,
                 {"c,s,0,1,,\n", "@:3: expected published in (0, 1e30), got '0'"},
                 {"c,s,,1,,\n", "@:3: expected published in (0, 1e30), got ''"},
                 {"c,s,1,-1,,\n", "@:3: expected predicted in (0, 1e30) (or empty: not drawn), got '-1'"},
                 {"c,s,1,x,,\n", "@:3: expected a number in column 'predicted', got 'x'"},
                 {"c,s,1,1,1.1,2\n",
                  "@:3: expected 0 < predicted_low <= predicted <= predicted_high < 1e30 (or both bounds empty), got '1.1', '1', '2'"},
                 {"c,s,1,1,0.5,\n",
                  "@:3: expected 0 < predicted_low <= predicted <= predicted_high < 1e30 (or both bounds empty), got '0.5', '1', ''"},
                 {"c,s,1,,0.5,2\n",
                  "@:3: expected 0 < predicted_low <= predicted <= predicted_high < 1e30 (or both bounds empty), got '0.5', '', '2'"},
                 {",s,1,1,,\n", "@:3: expected a case and a source, got '' and 's'"},
                 {"c,s,1,,,\n", "@: expected at least one row with a predicted value"},
                 {"", "@:3: expected at least one data row"});
    char text[1024];
    nine_sources(text, sizeof text);
    refused(RS_PLOT_VALIDATION, csv("v9.csv", text), NULL, "@:10: expected at most 8 sources (one marker each)");
}

RS_TEST_MAIN(.suite = "plot_prep_identity", .scratch = "plot_prep_identity", .keep_failed = true)
