# pass_boundary.gp - the pass-KV / pass-Q boundary in (T, P): for each machine and node count the
# smallest prompt T at which pass-KV is no slower than pass-Q on P cached tokens (pass-Q is faster
# below a line, pass-KV above it), and the transfer-bound ratio T = r P of docs/inference.md (both
# rings' transfers exposed, one CP rank per node) dashed (ringsim plan --inference --boundary-figure).
#
# Inputs: data    a `ringsim plan --inference --boundary-csv` CSV (series,cached_tokens,cross_tokens,
#                 comm_bound_ratio,...)
#         series  space-separated series (PROFILE:nNODES) with at least one crossing    series_t  their legends
#         ratio   the comm_bound_ratio r of the first row
#         pmin, pmax  the x range (the smallest and largest P with a margin)
#         title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'pass-KV / pass-Q boundary: pass-Q faster below a line, pass-KV above'
if (!exists("series_t")) series_t = series
sel(i, c) = (strcol('series') eq word(series, i)) ? column(c) : NaN
pos(v) = v > 0 ? v : NaN
@set_title
set logscale x 2
set logscale y 2
set xrange [pmin:pmax]
set xlabel 'cached tokens P'
eval set_ylab('new tokens T where pass-KV catches up', 0.6)
cmd = "plot for [i=1:words(series)] data using (sel(i, 'cached_tokens')):(pos(sel(i, 'cross_tokens'))) with linespoints ls i title word(series_t, i), " . \
      "data using (column('cached_tokens')):(ratio * column('cached_tokens')) with lines dt 2 lw lw_line lc rgb c_mark title sprintf('bound T = %.3g P', ratio)"
tics = "eval pow2_tics('x', 4, 2); eval pow2_tics('y', 4, 2)"
@draw
