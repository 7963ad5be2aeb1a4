# timeline.gp - Gantt chart of one run: per rank, compute, send and recv of every step.
#
# Inputs: data   a trace CSV (docs/traces.md)        pass_sel  'forward' | 'backward'
#         n_ranks  ranks in the trace                title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("pass_sel")) pass_sel = 'forward'
if (!exists("title")) title = 'Timeline'
@set_title
set xlabel fit_w('time since the start of the pass (send, recv: post to completion)', 1)
set ylabel 'rank'
set format x fmt_time
set yrange [n_ranks - 0.5 : -0.5]
set mytics 1
set grid noytics
set style fill solid 0.9 border lc rgb c_gap
# lanes inside a rank's row: compute on top, send in the middle, recv below
lane(k) = k eq 'compute' ? -0.22 : (k eq 'send' ? 0.06 : 0.30)
h = 0.12
pick(k) = (strcol('pass') eq pass_sel && strcol('kind') eq k)
box(k) = sprintf("data using (pick('%s') ? (column('start_s') + column('end_s')) / 2 : NaN):(column('rank') + lane('%s')):(column('start_s')):(column('end_s'))" . \
                 ":(column('rank') + lane('%s') - h):(column('rank') + lane('%s') + h) with boxxyerror fc rgb c_%s title '%s'", k, k, k, k, k, k)
cmd = "plot " . box('compute') . ", " . box('send') . ", " . box('recv') . \
      ", data using (pick('step') ? column('end_s') : NaN):(column('rank') - 0.42):(0.0):(0.84) with vectors nohead lc rgb c_step_end lw lw_mark title 'step end'"
tics = "eval lin_tics('x', 6, 0); eval lin_tics('y', 1, 1)"
@draw
