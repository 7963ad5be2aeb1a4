# validation.gp - predicted against published (or measured) per case, log-log, with y = x and a
# +-10% band; one marker per source (a paper's table, a README, a measurement of this machine), the
# prediction's range as an error bar when the CSV has one.
#
# Inputs: data  a validation CSV (columns case, source, published, predicted, and optionally
#               predicted_low, predicted_high; '# unit=...' names the quantity's unit)
#         nsrc     sources with a predicted value     srcI, srcI_t  source I (1..nsrc) as in the CSV, as a legend
#         has_bars 1 if the CSV has predicted_low and predicted_high      unit_s  1 if the values are seconds
#         lo, hi   axis range       xlab, ylab   axis labels       title
if (!exists("style")) style = 'style.gp'
h_grow = 0   # a square graph: the first pass at the figure's own height (a taller one would widen it)
load style
if (!exists("title")) title = 'Predicted vs published'
if (!exists("xlab")) xlab = 'published or measured'
if (!exists("ylab")) ylab = 'predicted'
if (!exists("unit_s")) unit_s = 0
@set_title
if (unit_s) { set format x fmt_time; set format y fmt_time } else { set format x '%g'; set format y '%g' }
key_max = 5   # the longest key title: y = x, or a source's
do for [i=1:nsrc] { if (strlen(value(sprintf('src%d_t', i))) > key_max) { key_max = strlen(value(sprintf('src%d_t', i))) } }
@identity_frame
set xlabel fit_w(xlab, 1)
eval set_ylab(ylab, 0.6)
is(i) = strcol('source') eq value(sprintf('src%d', i))
# a bound left empty (no range for that case) draws a bar of no length
bound(c) = (b = column(c), b == b ? b : column('predicted'))
if (has_bars) {
    cmd = "plot @identity_keys, for [i=1:nsrc] data using (is(i) ? column('published') : NaN):(column('predicted')):(bound('predicted_low')):(bound('predicted_high')) " . \
          "with yerrorbars lt i title value(sprintf('src%d_t', i))"
} else {
    cmd = "plot @identity_keys, for [i=1:nsrc] data using (is(i) ? column('published') : NaN):(column('predicted')) with points lt i title value(sprintf('src%d_t', i))"
}
tics = "eval identity_tics(6)"
@draw
