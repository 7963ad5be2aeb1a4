# pred_vs_meas.gp - predicted against measured duration per (rank, step), log-log, with y = x and
# a +-10% band.
#
# Inputs: data  a `ringsim compare --csv` file (columns metric, ref_s, other_s)
#         metrics  space-separated metrics present ('t_comp t_comm t_step')
#         lo, hi   axis range in seconds       xlab, ylab   axis labels       title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Predicted vs measured, per step'
if (!exists("xlab")) xlab = 'measured (reference)'
if (!exists("ylab")) ylab = 'predicted'
set title title
set logscale xy
set xrange [lo : hi]
set yrange [lo : hi]
set size ratio -1
set format x fmt_time
set format y fmt_time
# 1-2-5 ticks when the range spans less than two decades (a log axis would show one tick)
if (hi / lo < 100) {
    set xtics ()
    set ytics ()
    d = 10**floor(log10(lo))
    do for [e=0:3] {
        do for [m in "1 2 5"] {
            v = real(m) * d * 10**e
            if (v >= lo && v <= hi) { set xtics add (v); set ytics add (v) }
        }
    }
}
set xlabel xlab
set ylabel ylab
set key top left
set object 1 polygon from lo, 0.9 * lo to hi, 0.9 * hi to hi, 1.1 * hi to lo, 1.1 * lo to lo, 0.9 * lo \
    fc rgb '#E4E4E4' fs solid 1.0 noborder behind
set arrow 1 from lo, lo to hi, hi nohead lw 1.2 lc rgb c_mark
label(m) = m eq 't_comp' ? 'T_{comp}' : (m eq 't_comm' ? 'T_{comm}' : 'T_{step}')
plot keyentry with boxes fc rgb '#E4E4E4' fs solid 1.0 title '±10%', \
     keyentry with lines lc rgb c_mark lw 1.2 title 'y = x', \
     for [i=1:words(metrics)] data using (strcol('metric') eq word(metrics, i) ? column('ref_s') : NaN):(column('other_s')) \
         with points lt i ps 1.0 title label(word(metrics, i))
