# timeline.gp - Gantt chart of one run: per rank, compute, send and recv of every step.
#
# Inputs: data   a trace CSV (docs/traces.md)        pass_sel  'forward' | 'backward'
#         n_ranks  ranks in the trace                title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("pass_sel")) pass_sel = 'forward'
if (!exists("title")) title = 'Timeline'
set title title
set xlabel 'time since the start of the pass (send, recv: post to completion)'
set ylabel 'rank'
set format x fmt_time
set yrange [n_ranks - 0.5 : -0.5]
if (n_ranks <= 32) { set ytics 1 } else { set ytics autofreq }
set mytics 1
set grid noytics
set key outside bottom center horizontal maxrows 1 width 1
set style fill solid 0.9 border lc rgb '#FFFFFF'
# lanes inside a rank's row: compute on top, send in the middle, recv below
lane(k) = k eq 'compute' ? -0.22 : (k eq 'send' ? 0.06 : 0.30)
h = 0.12
pick(k) = (strcol('pass') eq pass_sel && strcol('kind') eq k)
plot data using (pick('compute') ? (column('start_s') + column('end_s')) / 2 : NaN):(column('rank') + lane('compute')):(column('start_s')):(column('end_s')):(column('rank') + lane('compute') - h):(column('rank') + lane('compute') + h) \
          with boxxyerror fc rgb c_compute title 'compute', \
     data using (pick('send') ? (column('start_s') + column('end_s')) / 2 : NaN):(column('rank') + lane('send')):(column('start_s')):(column('end_s')):(column('rank') + lane('send') - h):(column('rank') + lane('send') + h) \
          with boxxyerror fc rgb c_send title 'send', \
     data using (pick('recv') ? (column('start_s') + column('end_s')) / 2 : NaN):(column('rank') + lane('recv')):(column('start_s')):(column('end_s')):(column('rank') + lane('recv') - h):(column('rank') + lane('recv') + h) \
          with boxxyerror fc rgb c_recv title 'recv', \
     data using (pick('step') ? column('end_s') : NaN):(column('rank') - 0.42):(0.0):(0.84) with vectors nohead lc rgb '#555555' lw 1.2 title 'step end'
