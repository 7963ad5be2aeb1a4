# scaling.gp - step time and overlap efficiency T_comp / T_step against N or B, one line per
# series of the sweep (predicted lines, simulated points): a series is a profile, and a layout,
# pass, mask or size where those vary too.
#
# Inputs: data  a `ringsim sweep` CSV      xcol  'n_ranks' | 'block_tokens'
#         keycols  space-separated columns that tell the series apart ('profile', 'profile layout', ...)
#         lines    space-separated series: their keycols' values joined by '|'
#         titles   space-separated legends of the lines (no spaces in one)
#         col_step, col_eff, col_sim_step, col_sim_eff  the columns of the predicted and simulated step time
#                  and overlap efficiency       has_sim  1 if the simulated columns hold data
#         title
if (!exists("style")) style = 'style.gp'
h_grow = 0   # its own two passes: the preset's height (grown 1.4 times for two panels) as it is
load style
if (!exists("has_sim")) has_sim = 0
if (!exists("title")) title = 'Scaling'
rowkey(n) = n < 1 ? '' : rowkey(n - 1) . (n > 1 ? '|' : '') . strcol(word(keycols, n))
sel(i, c) = rowkey(words(keycols)) eq word(lines, i) ? column(c) : NaN
xlab = xcol eq 'n_ranks' ? 'ranks N' : 'block size B (tokens per rank)'
# simulated points only when the sweep has them (gnuplot warns on series without data)
sim_step = has_sim ? ", for [i=1:words(lines)] data using (sel(i, xcol)):(sel(i, col_sim_step)) with points pt 6 ps ps_open lc rgb c_mark notitle" . \
                     ", keyentry with points pt 6 ps ps_open lc rgb c_mark title 'simulated'" : ""
sim_eff = has_sim ? ", for [i=1:words(lines)] data using (sel(i, xcol)):(sel(i, col_sim_eff)) with points pt 6 ps ps_open lc rgb c_mark notitle" : ""
x_tics = xcol eq 'block_tokens' ? "pow2_tics('x', 4, 2)" : "pow2_tics('x', 4, 1)"
# Both panels are drawn twice (style.gp's two passes); the ticks of the second pass come from the first.
do for [pass=1:2] {
    if (pass == 2) { eval term_final; if (exists('out')) { set output out } else { set output } }
    set multiplot layout 2, 1 title fit_w(title, title_scale) font font_at(title_scale)
    ylab_top = fit_h('step time ' . T_step, 0.3)
    ylab_bottom = fit_h('overlap ' . T_comp . ' / ' . T_step, 0.3)
    set lmargin 9 + 1.8 * (nlines(ylab_top) > nlines(ylab_bottom) ? nlines(ylab_top) : nlines(ylab_bottom))
    set rmargin 3
    set offsets graph 0.02, graph 0.02, 0, 0
    set logscale x 2
    set format x '%g'
    set key tmargin
    set ylabel ylab_top offset 1 - nlines(ylab_top), 0
    set logscale y 10
    set yrange [*:*]
    set xrange [*:*]
    set format y fmt_time
    set xlabel ''
    set bmargin 1
    if (pass == 2) { eval top_tics }
    plot for [i=1:words(lines)] data using (sel(i, xcol)):(sel(i, col_step)) with linespoints ls i title word(titles, i) @sim_step
    if (pass == 1) { eval set_room; p2_blank = 1; top_tics = @x_tics . '; ' . log_tics('y', 6); p2_blank = 0 }
    unset logscale y
    set yrange [0 : 1.05]
    set xrange [*:*]
    set format y '%.1f'
    set format x '%g'
    set ylabel ylab_bottom offset 1 - nlines(ylab_bottom), 0
    set xlabel xlab
    set tmargin 1
    set bmargin
    unset key
    if (pass == 2) { eval bottom_tics }
    plot for [i=1:words(lines)] data using (sel(i, xcol)):(sel(i, col_eff)) with linespoints ls i notitle @sim_eff
    if (pass == 1) { eval set_room; bottom_tics = @x_tics . '; ' . lin_tics('y', 1, 0.1) }
    unset multiplot
    unset tmargin
    unset bmargin
}
