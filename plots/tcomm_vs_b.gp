# tcomm_vs_b.gp - T_comp and T_comm per ring step against the block size B (log-log).
# Predicted lines (the seed's closed form for full blocks, dashed; the model's critical-path walk,
# solid) and measured points (SimGrid, real execution), B_min = F/W and the measured crossover marked.
#
# Inputs: data  a `ringsim sweep` CSV (columns block_tokens, seed_/pred_/sim_/exec_t_comp_s, ..._t_comm_s)
#         series  value of the 'series' column to draw ('' = every row)
#         bmin    the seed's threshold F*c_b/(W*c_f), tokens       bstar  with latency/F_eff
#                 (NaN = not drawn: the driver passes NaN for a mark outside the data's B range)
#         bx      crossover B found in the measured data (NaN = none)  bx_label  e.g. 'simulated'
#         has_sim, has_exec  1 if those columns hold data      title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("series")) series = ''
if (!exists("bstar")) bstar = NaN
if (!exists("bx")) bx = NaN
if (!exists("bx_label")) bx_label = 'measured'
if (!exists("has_sim")) has_sim = 0
if (!exists("has_exec")) has_exec = 0
if (!exists("title")) title = 'Ring step: compute vs transfer'
set title title
set logscale x 2
set logscale y 10
@tokens_xtics
set format y fmt_time
set xlabel 'block size B (tokens per rank)'
set ylabel 'time per ring step'
set key bottom right opaque box lc rgb '#CCCCCC'
set offsets graph 0.03, graph 0.03, 0, 0
sel(c) = (series eq '' || strcol('series') eq series) ? column(c) : NaN
if (bmin == bmin) {
    set arrow 1 from bmin, graph 0 to bmin, graph 1 nohead dt 2 lw 1.5 lc rgb c_mark
    set label 1 sprintf(' B_{min} = F c_b / (W c_f) = %.0f', bmin) at bmin, graph 0.04 left textcolor rgb c_mark font ',11'
}
if (bstar == bstar && !(abs(bstar - bmin) <= 0.02 * bmin)) {
    set arrow 2 from bstar, graph 0 to bstar, graph 1 nohead dt 4 lw 1.2 lc rgb '#777777'
    set label 2 sprintf(' B* = %.0f', bstar) at bstar, graph 0.10 left textcolor rgb '#777777' font ',11'
}
if (bx == bx) {
    set arrow 3 from bx, graph 0 to bx, graph 1 nohead dt 3 lw 2 lc rgb '#D55E00'
    set label 3 sprintf(' crossover (%s) = %.0f', bx_label, bx) at bx, graph 0.16 left textcolor rgb '#D55E00' font ',11'
}
# The plot command is assembled so that series without data are left out (gnuplot warns on them).
B = "(sel('block_tokens'))"
cmd = "plot data using ".B.":(sel('seed_t_comp_s')) with lines lt 1 dt 2 lw 1.5 title 'T_{comp} seed (full block)'"
cmd = cmd.", data using ".B.":(sel('seed_t_comm_s')) with lines lt 2 dt 2 lw 1.5 title 'T_{comm} seed'"
cmd = cmd.", data using ".B.":(sel('pred_t_comp_s')) with lines lt 1 title 'T_{comp} predicted (model)'"
cmd = cmd.", data using ".B.":(sel('pred_t_comm_s')) with lines lt 2 title 'T_{comm} predicted (model)'"
if (has_sim) {
    cmd = cmd.", data using ".B.":(sel('sim_t_comp_s')) with points lt 1 pt 6 ps 1.6 title 'T_{comp} simulated'"
    cmd = cmd.", data using ".B.":(sel('sim_t_comm_s')) with points lt 2 pt 4 ps 1.5 title 'T_{comm} simulated'"
}
if (has_exec) {
    cmd = cmd.", data using ".B.":(sel('exec_t_comp_s')) with points lt 1 pt 7 ps 1.2 title 'T_{comp} measured'"
    cmd = cmd.", data using ".B.":(sel('exec_t_comm_s')) with points lt 2 pt 5 ps 1.1 title 'T_{comm} measured'"
}
eval cmd
