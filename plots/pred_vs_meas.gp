# pred_vs_meas.gp - predicted against measured duration per (rank, step), log-log, with y = x and
# a +-10% band.
#
# Inputs: data  a `ringsim compare --csv` file (columns metric, ref_s, other_s)
#         metrics  space-separated metrics present ('t_comp t_comm t_step')
#         lo, hi   axis range in seconds       xlab, ylab   axis labels       title
if (!exists("style")) style = 'style.gp'
h_grow = 0   # a square graph: the first pass at the figure's own height (a taller one would widen it)
load style
if (!exists("title")) title = 'Predicted vs measured, per step'
if (!exists("xlab")) xlab = 'measured (reference)'
if (!exists("ylab")) ylab = 'predicted'
@set_title
set format x fmt_time
set format y fmt_time
@identity_frame
set xlabel fit_w(xlab, 1)
eval set_ylab(ylab, 0.6)
label(m) = m eq 't_comp' ? T_comp : (m eq 't_comm' ? T_comm : T_step)
cmd = "plot @identity_keys, for [i=1:words(metrics)] data using (strcol('metric') eq word(metrics, i) ? column('ref_s') : NaN):(column('other_s')) " . \
      "with points lt i title label(word(metrics, i))"
tics = "eval identity_tics(6)"
@draw
