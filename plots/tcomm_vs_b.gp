# tcomm_vs_b.gp - T_comp and T_comm per ring step against the block size B (log-log), for one
# series of a sweep. Colour: the quantity (T_comp blue, T_comm vermillion); style: where it comes
# from (the seed's closed form for full blocks dashed, the model's critical-path walk solid,
# SimGrid open circles, the real execution filled circles); B_min = F/W, B* and the measured
# crossover (measured where the sweep has the real execution's points, else simulated: bx_label)
# as vertical lines, their values in the key.
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
@set_title
set logscale x 2
set logscale y 10
set format y fmt_time
set xlabel fit_w('block size B (tokens per rank)', 1)
eval set_ylab('time per ring step', 0.5)
set offsets graph 0.03, graph 0.03, 0, 0
sel(c) = (series eq '' || strcol('series') eq series) ? column(c) : NaN
# the marks: vertical lines across the graph, told apart by colour and dash, named in the key
has_bstar = bstar == bstar && !(abs(bstar - bmin) <= 0.02 * bmin)
if (bmin == bmin) { set arrow 1 from bmin, graph 0 to bmin, graph 1 nohead dt 4 lw lw_mark lc rgb c_mark }
if (has_bstar) { set arrow 2 from bstar, graph 0 to bstar, graph 1 nohead dt 5 lw lw_mark lc rgb c_mark2 }
if (bx == bx) { set arrow 3 from bx, graph 0 to bx, graph 1 nohead dt 3 lw lw_mark lc rgb c_cross }
# The plot command is assembled so that series without data are left out (gnuplot warns on them).
B = "(sel('block_tokens'))"
cmd = "plot data using ".B.":(sel('seed_t_comp_s')) with lines lt 1 dt 2 notitle"
cmd = cmd.", data using ".B.":(sel('seed_t_comm_s')) with lines lt 2 dt 2 notitle"
cmd = cmd.", data using ".B.":(sel('pred_t_comp_s')) with lines lt 1 notitle"
cmd = cmd.", data using ".B.":(sel('pred_t_comm_s')) with lines lt 2 notitle"
if (has_sim) {
    cmd = cmd.", data using ".B.":(sel('sim_t_comp_s')) with points lt 1 pt 6 ps ps_open notitle"
    cmd = cmd.", data using ".B.":(sel('sim_t_comm_s')) with points lt 2 pt 6 ps ps_open notitle"
}
if (has_exec) {
    cmd = cmd.", data using ".B.":(sel('exec_t_comp_s')) with points lt 1 pt 7 notitle"
    cmd = cmd.", data using ".B.":(sel('exec_t_comm_s')) with points lt 2 pt 7 notitle"
}
cmd = cmd.", keyentry with lines lt 1 title T_comp, keyentry with lines lt 2 title T_comm"
cmd = cmd.", keyentry with lines lc rgb c_mark lw lw_line dt 2 title 'seed', keyentry with lines lc rgb c_mark lw lw_line title 'model'"
if (has_sim) { cmd = cmd.", keyentry with points lc rgb c_mark pt 6 ps ps_open title 'simulated'" }
if (has_exec) { cmd = cmd.", keyentry with points lc rgb c_mark pt 7 title 'measured'" }
if (bmin == bmin) { cmd = cmd.", keyentry with lines lc rgb c_mark lw lw_mark dt 4 title sprintf('%s = %.0f', B_min, bmin)" }
if (has_bstar) { cmd = cmd.", keyentry with lines lc rgb c_mark2 lw lw_mark dt 5 title sprintf('B* = %.0f', bstar)" }
if (bx == bx) { cmd = cmd.sprintf(", keyentry with lines lc rgb c_cross lw lw_mark dt 3 title 'crossover %.0f'", bx) }
tics = "eval pow2_tics('x', 4, 2); eval log_tics('y', 6)"
@draw
