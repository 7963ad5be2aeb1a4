# contention.gp - balance efficiency of concurrent rings (a ring's mean per-rank compute over the job's
# makespan, docs/model.md "Metrics") against NICs per node or spine oversubscription, one line per series
# (fabric, placement order, ratio or K), the contention-free balance efficiency of the same series
# dashed (ringsim sweep with fabric knobs, studies/study_contention.h; docs/sim.md "Contention").
#
# Inputs: data    a contention CSV (series,...,nics,oversub,...,balance_efficiency,
#                 balance_efficiency_free,...)
#         series  space-separated values of the 'series' column      series_t  their legends
#         xcol    'nics' | 'oversub'
#         col_eff, col_eff_free  the columns of the efficiency with and without contention
#         title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Concurrent rings: balance efficiency'
if (!exists("series_t")) series_t = series
sel(i, c) = (strcol('series') eq word(series, i)) ? column(c) : NaN
@set_title
set logscale x 2
set xlabel fit_w(xcol eq 'nics' ? 'NICs per node K' : 'leaf uplink oversubscription (downlink : uplink)', 1)
eval set_ylab('balance efficiency (mean compute / makespan)', 0.6)
set yrange [0 : 1.05]
cmd = "plot for [i=1:words(series)] data using (sel(i, xcol)):(sel(i, col_eff)) with linespoints lt i title word(series_t, i), " . \
      "keyentry with lines dt 2 lw lw_line lc rgb c_mark title 'without contention', " . \
      "for [i=1:words(series)] data using (sel(i, xcol)):(sel(i, col_eff_free)) with lines lt i dt 2 notitle"
tics = "eval pow2_tics('x', 3, 1); eval lin_tics('y', 1, 0.1)"
@draw
