# pass_boundary.gp - the pass-KV / pass-Q boundary in (T, P): for each machine and node count the
# smallest prompt T at which pass-KV is no slower than pass-Q on P cached tokens (pass-Q is faster
# below a line, pass-KV above it), and the transfer-bound ratio T = r P of docs/inference.md (both
# rings' transfers exposed, one CP rank per node) dashed (ringsim plan --inference --boundary-figure).
#
# Inputs: data    a `ringsim plan --inference --boundary-csv` CSV (series,cached_tokens,cross_tokens,
#                 comm_bound_ratio,...)
#         series  space-separated series (PROFILE:nNODES) with at least one crossing
#         ratio   the comm_bound_ratio r of the first row
#         pmin, pmax  the x range (the smallest and largest P with a margin)
#         title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'pass-KV / pass-Q boundary: pass-Q faster below a line, pass-KV above'
sel(i, c) = (strcol('series') eq word(series, i)) ? column(c) : NaN
pos(v) = v > 0 ? v : NaN
set title title
set logscale x 2
set logscale y 2
set xrange [pmin:pmax]
set xtics ("1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216)
set ytics ("64" 64, "256" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304)
set xlabel 'cached tokens P'
set ylabel 'new tokens T where pass-KV catches up'
set key top left
plot for [i=1:words(series)] data using (sel(i, 'cached_tokens')):(pos(sel(i, 'cross_tokens'))) with linespoints lt i pt 7 ps 0.9 title word(series, i), \
     data using (column('cached_tokens')):(ratio * column('cached_tokens')) with lines dt 2 lc rgb '#444444' title sprintf('both transfer-bound: T = %.3g P', ratio)
