# scaling.gp - step time and overlap efficiency T_comp / T_step against N or B, one line per
# hardware profile (predicted lines, simulated points).
#
# Inputs: data  a `ringsim sweep` CSV      xcol  'n_ranks' | 'block_tokens'
#         profiles  space-separated values of the 'profile' column      has_sim  1 if sim columns hold data
#         title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("has_sim")) has_sim = 0
if (!exists("title")) title = 'Scaling'
sel(i, c) = (strcol('profile') eq word(profiles, i)) ? column(c) : NaN
xlab = xcol eq 'n_ranks' ? 'ranks N' : 'block size B (tokens per rank)'
set multiplot layout 2, 1 title title font ',15'
set lmargin 14
set rmargin 4
set offsets graph 0.02, graph 0.02, 0, 0
set logscale x 2
if (xcol eq 'block_tokens') { @tokens_xtics } else { set xtics auto; set format x '%.0f' }
set key top left
set ylabel 'step time T_{step}'
set logscale y 10
set format y fmt_time
set format x ''
set xlabel ''
set bmargin 1
# simulated points only when the sweep has them (gnuplot warns on series without data)
sim_step = has_sim ? ", keyentry with points pt 6 ps 1.6 lc rgb '#444444' title 'simulated (SimGrid)', for [i=1:words(profiles)] data using (sel(i, xcol)):(sel(i, 'sim_t_step_s')) with points lt i pt 6 ps 1.6 notitle" : ""
sim_eff = has_sim ? ", for [i=1:words(profiles)] data using (sel(i, xcol)):(sel(i, 'sim_overlap_efficiency')) with points lt i pt 6 ps 1.6 notitle" : ""
plot for [i=1:words(profiles)] data using (sel(i, xcol)):(sel(i, 'pred_t_step_s')) with linespoints lt i pt 7 ps 0.8 title word(profiles, i) @sim_step
unset logscale y
set yrange [0 : 1.05]
set format y '%.1f'
set ylabel 'overlap efficiency T_{comp} / T_{step}'
if (xcol eq 'block_tokens') { set format x '%g'; @tokens_xtics } else { set format x '%.0f' }
set xlabel xlab
set tmargin 1
set bmargin
if (xcol eq 'n_ranks') { set key top right } else { set key bottom right }
plot for [i=1:words(profiles)] data using (sel(i, xcol)):(sel(i, 'pred_overlap_efficiency')) with linespoints lt i pt 7 ps 0.8 title word(profiles, i) @sim_eff
unset multiplot
