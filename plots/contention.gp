# contention.gp - balance efficiency of concurrent rings (a ring's mean per-rank compute over the job's
# makespan, docs/model.md "Metrics") against NICs per node or spine oversubscription, one line per series
# (fabric, placement order, ratio or K), the contention-free balance efficiency of the same series
# dashed (ringsim sweep with fabric knobs, studies/study_contention.h; docs/sim.md "Contention").
#
# Inputs: data    a contention CSV (series,...,nics,oversub,...,balance_efficiency,
#                 balance_efficiency_free,...)
#         series  space-separated values of the 'series' column
#         xcol    'nics' | 'oversub'
#         title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Concurrent rings: balance efficiency'
sel(i, c) = (strcol('series') eq word(series, i)) ? column(c) : NaN
set title title
set logscale x 2
set format x '%g'
set xlabel (xcol eq 'nics' ? 'NICs per node K' : 'leaf uplink oversubscription (downlink : uplink)')
set ylabel 'balance efficiency (mean compute / makespan)'
set yrange [0 : 1.05]
set key bottom right
plot for [i=1:words(series)] data using (sel(i, xcol)):(sel(i, 'balance_efficiency')) with linespoints lt i pt 7 ps 0.9 title word(series, i), \
     keyentry with lines dt 2 lc rgb '#444444' title 'without contention (dashed)', \
     for [i=1:words(series)] data using (sel(i, xcol)):(sel(i, 'balance_efficiency_free')) with lines lt i dt 2 notitle
