# style.gp - the one look of every ringsim figure; every script in plots/ loads it first and takes
# from it every font, line width, point size and colour (the scripts name none of their own).
#
# Inputs (set with gnuplot -e "..."; ringsim plot does this for you):
#   fmt         'png' (screens) | 'pdf' | 'svg' | 'tex' (cairolatex: the text set by LaTeX in the
#               document's font, the graphics in a PDF beside it)          default 'png'
#   out         output file                                                default: the terminal's stdout
#   w_in, h_in  the figure's size in inches                               default w_px, h_px at 96 per inch
#   w_px, h_px  PNG and SVG size in pixels                                 default 1200 x 750
#   dpi         PNG pixels per inch (96 for a size given in pixels)        default 96
# Colours: Okabe-Ito (colour-blind safe). Fonts: DejaVu Sans; LaTeX output: the document's.
if (!exists("fmt")) fmt = 'png'
if (!exists("w_px")) w_px = 1200
if (!exists("h_px")) h_px = 750
if (!exists("dpi")) dpi = 96
if (!exists("w_in")) w_in = w_px / 96.0
if (!exists("h_in")) h_in = h_px / 96.0
tex = fmt eq 'tex'

# ---- text and lines: one base font, every size relative to it --------------------------------
font_name = 'DejaVu Sans'
font_base = 8.5      # pt: the text of a figure one column wide (3.3 in)
title_scale = 1.15   # the title, relative to the text
# The text grows with the cube root of the width: 8.5 pt at 3.3 in (a column), 10.9 pt at 7 in (two
# columns), 13.2 pt at 12.5 in (1200 px on a screen); lines with it (a line of width 1: 0.6 pt at a column).
text_scale = (w_in / 3.3) ** (1.0 / 3)
font_pt = font_base * text_scale
lw_pt = 0.6 * text_scale
# A terminal's own unit for a size in points: pngcairo sets text at 96 per inch, SVG in pixels
# (1/96 in), pdfcairo at 2/3 of the size asked for, cairolatex lays out text of the size asked for
# (0.51 em a character, as LaTeX's Computer Modern); a line of width 1 is 1 pixel in a PNG and an
# SVG, 0.5 pt in a PDF.
pt_unit = fmt eq 'png' ? dpi / 96.0 : (fmt eq 'svg' ? 96 / 72.0 : (tex ? 1.0 : 1.5))
lw_unit = fmt eq 'png' ? dpi / 72.0 : (fmt eq 'svg' ? 96 / 72.0 : 2.0)
font_at(scale) = sprintf('%s,%.2f', font_name, font_pt * scale * pt_unit)
tex_pt = floor(font_pt + 0.5)
set encoding utf8
set micro
# The terminal of the figure at height hin inches (PNG and SVG pixels: h_px at the size given, else
# hin at dpi and 96 per inch)
h_pix(hin) = hin == h_in ? h_px : int(hin * (fmt eq 'png' ? dpi : 96) + 0.5)
term_png(hin) = sprintf("set terminal pngcairo size %d, %d enhanced font '%s' linewidth %.4f background '#ffffff'", \
                        w_px, h_pix(hin), font_at(1), lw_pt * lw_unit)
term_svg(hin) = sprintf("set terminal svg size %d, %d dynamic enhanced font '%s' linewidth %.4f background '#ffffff'", \
                        w_px, h_pix(hin), font_at(1), lw_pt * lw_unit)
term_pdf(hin) = sprintf("set terminal pdfcairo size %.4fin, %.4fin enhanced font '%s' linewidth %.4f", w_in, hin, font_at(1), lw_pt * lw_unit)
# LaTeX: cairolatex sets the text in the document at tex_pt (its layout computed for that size);
# the first pass (below) draws the same figure as a PDF whose characters are as wide as
# cairolatex counts them (pdfcairo's are 0.424 of the size asked for, cairolatex's 0.509)
term_tex(hin) = sprintf("set terminal cairolatex pdf size %.4fin, %.4fin colortext font '%s,%.2f' linewidth %.4f " . \
                        "header '\\fontsize{%d}{%d}\\selectfont'", w_in, hin, font_name, font_pt, lw_pt * lw_unit, \
                        tex_pt, floor(1.2 * tex_pt + 0.5))
term_at(hin) = fmt eq 'png' ? term_png(hin) : (fmt eq 'svg' ? term_svg(hin) : (tex ? term_tex(hin) : term_pdf(hin)))
# h_grow (a preset's height): the first pass draws twice as high, so that a tall key below the
# graph fits; the second grows the figure when the graph would get less than 45% of its height
# (the rest keeps its size) and spaces the ticks for the graph's final height (grow_h, draw)
if (!exists("h_grow")) h_grow = 0
h_probe = h_grow ? 2 * h_in : h_in
term_final = term_at(h_in)
term_probe = tex ? sprintf("set terminal pdfcairo size %.4fin, %.4fin enhanced font '%s,%.2f' linewidth %.4f", \
                           w_in, h_probe, font_name, font_pt * 1.2, lw_pt * lw_unit) : term_at(h_probe)
eval term_probe
set output '/dev/null'

# ---- colours, line widths, point sizes ----------------------------------------------------------
# Series 1..8 (linetypes): colour, marker and size; a small filled marker first, then open ones of
# other shapes and larger sizes, so that curves that coincide stay visible. Line styles 1..8 add a dash pattern each (for
# figures where the dash means nothing else).
lw_line = 2.0    # a series' line
lw_mark = 1.2    # marks: y = x, thresholds, step ends
lw_grid = 0.8
ps_open = 1.7    # an open marker drawn around a point (simulated values on top of predicted ones)
array series_colour[8] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#999999']
array series_point[8] = [7, 4, 8, 12, 6, 14, 10, 2]
array series_ps[8] = [0.9, 1.3, 1.5, 1.6, 1.4, 1.5, 1.5, 1.3]
array series_dash[8] = [1, 2, 4, 5, 3, 2, 4, 5]
do for [i=1:8] {
    set linetype i lc rgb series_colour[i] lw lw_line pt series_point[i] ps series_ps[i] dt 1
    set style line i lc rgb series_colour[i] lw lw_line pt series_point[i] ps series_ps[i] dt series_dash[i]
}
set linetype cycle 8
# Markers grow with the text (as at 1200 x 750 pixels, pointsize 1) and, in a PNG, with its pixels per inch
set pointsize (text_scale / (12.5 / 3.3) ** (1.0 / 3)) * (fmt eq 'png' ? dpi / 96.0 : 1)
# Lane colours (timeline), layout colours (busy time), marks and neutral tones
c_compute = '#0072B2'; c_send = '#E69F00'; c_recv = '#009E73'; c_step_end = '#555555'
c_contiguous = '#D55E00'; c_striped = '#56B4E9'; c_zigzag = '#009E73'
c_mark = '#444444'; c_mark2 = '#777777'; c_cross = '#D55E00'; c_band = '#E4E4E4'
c_text = '#222222'; c_axis = '#333333'; c_grid = '#DDDDDD'; c_gap = '#FFFFFF'

set style line 100 lc rgb c_grid lw lw_grid dt 1
set grid back ls 100
set border 3 back lw 1.0 lc rgb c_axis
set tics nomirror out scale 0.6 textcolor rgb c_text
# The key sits outside the graph, below it (under the x label), so that it never covers the data.
# gnuplot gives each key text the width of its character count; the cairo terminals count a
# character as 0.62 em, which DejaVu Sans' digits and capitals exceed: 2 more for their texts.
set key bmargin center horizontal Left reverse noopaque nobox samplen 1.5 spacing 1.1 height 0.6 textcolor rgb c_text
set key width (fmt eq 'svg' ? 0 : 2)
set title font font_at(title_scale) textcolor rgb c_text
set datafile separator comma
set datafile columnheaders
set datafile missing NaN   # a NaN (a cell 'nan', or a row another line's: sel() gives NaN) is skipped, the line goes on
set mxtics default
set mytics default

# ---- text that fits -----------------------------------------------------------------------------
# wrap(s, n): s with spaces turned into line breaks so that no line is longer than n characters
# (a word longer than n stays whole). fit_w(s, scale) fits text of that scale to the figure's width,
# fit_h(s, frac) a y axis label to frac of its height (0.6 em per character, DejaVu Sans' mean).
last_space(s, i) = i < 1 ? 0 : (s[i:i] eq ' ' ? i : last_space(s, i - 1))
wrap(s, n) = strlen(s) <= n ? s : (wrap_k = last_space(s, n + 1), wrap_k > 1 ? s[1:wrap_k - 1] . "\n" . wrap(s[wrap_k + 1:], n) : \
             (wrap_k = strstrt(s, ' '), wrap_k > 0 ? s[1:wrap_k - 1] . "\n" . wrap(s[wrap_k + 1:], n) : s))
fit_n(len_in, scale) = int(0.92 * len_in * 72 / (0.6 * font_pt * scale))
fit_w(s, scale) = wrap(s, fit_n(w_in, scale))
fit_h(s, frac) = wrap(s, fit_n(h_in * frac, 1))
set_title = "set title fit_w(title, title_scale)"

# ---- what a figure writes -----------------------------------------------------------------------
# Formulas in the figure's markup: enhanced text, or LaTeX for fmt 'tex'.
sym(a, b) = tex ? sprintf('$%s_{\mathrm{%s}}$', a, b) : sprintf('%s_{%s}', a, b)
T_comp = sym('T', 'comp'); T_comm = sym('T', 'comm'); T_step = sym('T', 'step'); B_min = sym('B', 'min')
pm10 = tex ? '$\pm$10\%' : '±10%'
# Seconds with SI prefixes on a time axis: "100 µs", "2 ms"
fmt_time = '%.0s %cs'
# The identity figures (pred-vs-meas, validation): log-log over [lo:hi] on both axes, square, the
# +-10% band and y = x; identity_keys are their two key entries, identity_tics their ticks (k: the
# characters of a label). The key below holds at most key_cols(n) columns for titles of at most n
# characters (gnuplot lays it out for the width before the graph is made square, and counts a
# character narrower than DejaVu Sans' is: a sample and 8 characters of room each).
# Use: key_max = ...; @identity_frame ... plot @identity_keys, ...
key_cols(n) = (kc_n = int(fit_n(w_in, 1) / (n + 8.0)), kc_n < 1 ? 1 : kc_n)
if (!exists("key_max")) key_max = 5
identity_frame = "set logscale xy; set xrange [lo : hi]; set yrange [lo : hi]; set size ratio -1; set key maxcols key_cols(key_max); " . \
    "set object 1 polygon from lo, 0.9 * lo to hi, 0.9 * hi to hi, 1.1 * hi to lo, 1.1 * lo to lo, 0.9 * lo fc rgb c_band fs solid 1.0 noborder behind; " . \
    "set arrow 1 from lo, lo to hi, hi nohead lw lw_mark lc rgb c_mark"
identity_tics(k) = log_tics('x', k) . '; ' . log_tics('y', k)
identity_keys = "keyentry with boxes fc rgb c_band fs solid 1.0 title pm10, keyentry with lines lc rgb c_mark lw lw_mark title 'y = x'"

# ---- two passes: ticks that fit ----------------------------------------------------------------
# A figure is drawn twice: into nothing, then into out. What gnuplot found in the first pass (the
# axes' ranges, the graph's size in characters: GPVAL_*) spaces the ticks of the second so that no
# two labels touch: y labels 2.2 lines apart, x labels their width and 2 characters apart. A script
# sets cmd (its plot command) and tics (';'-separated calls of the functions below, one per axis)
# and ends with @draw; ranges are kept as the first pass found them.
ax_lo(a) = value('GPVAL_' . a . '_MIN')
ax_hi(a) = value('GPVAL_' . a . '_MAX')
room_x = 40; room_y = 12
set_room = "room_x = (GPVAL_TERM_XMAX - GPVAL_TERM_XMIN) / (1.0 * GPVAL_TERM_HCHAR / GPVAL_TERM_SCALE); " . \
           "room_y = (GPVAL_TERM_YMAX - GPVAL_TERM_YMIN) / (1.0 * GPVAL_TERM_VCHAR / GPVAL_TERM_SCALE)"
# the room one label needs along axis a: k characters and 2 of gap (x), 2.2 lines (y)
need(a, k) = a eq 'x' ? k + 2 : 2.2
room(a) = a eq 'x' ? room_x : room_y
keep_range(a) = sprintf('set %srange [%.17g:%.17g]; ', a, ax_lo(a eq 'x' ? 'X' : 'Y'), ax_hi(a eq 'x' ? 'X' : 'Y'))
span(a) = abs(ax_hi(a eq 'x' ? 'X' : 'Y') - ax_lo(a eq 'x' ? 'X' : 'Y'))
lspan(a) = abs(log10(ax_hi(a eq 'x' ? 'X' : 'Y') / ax_lo(a eq 'x' ? 'X' : 'Y')))
ssub(s, c) = (ss_k = strstrt(s, c)) > 0 ? s[1:ss_k - 1] . ssub(s[ss_k + 1:], c) : s
# a log10 axis: labels at 1, 2 and 5 x 10^e (0.3 decades apart at the closest), or 1 and 3 (0.48),
# or 1 (a decade), whichever is the densest whose closest labels keep their room; else one label
# every 10^j, j the fewest decades that do
dec_one(e, ms, i, lo, hi) = i > words(ms) ? '' : ((dec_v = real(word(ms, i)) * 10.0**e) >= lo * 0.9999 && dec_v <= hi * 1.0001 ? \
                            sprintf(',%.17g', dec_v) : '') . dec_one(e, ms, i + 1, lo, hi)
dec_list(e, ehi, ms, lo, hi) = e > ehi ? '' : dec_one(e, ms, 1, lo, hi) . dec_list(e + 1, ehi, ms, lo, hi)
dec_tics(a, ms, lo, hi) = (dec_s = dec_list(floor(log10(lo)), ceil(log10(hi)), ms, lo, hi), sprintf('set %stics (%s)', a, dec_s[2:]))
log_tics(a, k) = (lg_lo = ax_lo(a eq 'x' ? 'X' : 'Y'), lg_hi = ax_hi(a eq 'x' ? 'X' : 'Y'), \
                  lg_lo > lg_hi ? (lg_t = lg_lo, lg_lo = lg_hi, lg_hi = lg_t) : 0, lg_r = room(a) / lspan(a), \
                  keep_range(a) . (0.301 * lg_r >= need(a, k) ? dec_tics(a, '1 2 5', lg_lo, lg_hi) : \
                  (0.477 * lg_r >= need(a, k) ? dec_tics(a, '1 3', lg_lo, lg_hi) : (lg_r >= need(a, k) ? dec_tics(a, '1', lg_lo, lg_hi) : \
                  sprintf('set %stics %.17g', a, 10.0 ** (lg_r * lspan(a) < need(a, k) ? ceil(lspan(a)) : ceil(need(a, k) / lg_r - 1e-9)))))))
# a linear axis: a label every 1, 2 or 5 x 10^j (at least every 'least')
nice(x) = (nice_e = 10.0 ** floor(log10(x)), nice_m = x / nice_e, (nice_m <= 1.0001 ? 1 : (nice_m <= 2.0001 ? 2 : (nice_m <= 5.0001 ? 5 : 10))) * nice_e)
lin_tics(a, k, least) = (li_s = nice(span(a) * need(a, k) / room(a)), keep_range(a) . sprintf('set %stics %.17g', a, li_s < least ? least : li_s))
# a log2 axis of counts: labels at powers of 2 every 2^(e0 m), m the fewest that keep their room ("1K" = 1024)
lab2(v) = v >= 2.0**30 ? sprintf('%gG', v / 2.0**30) : (v >= 2.0**20 ? sprintf('%gM', v / 2.0**20) : (v >= 1024 ? sprintf('%gK', v / 1024) : sprintf('%g', v)))
pow2_list(e, hi, st) = e > hi ? '' : sprintf('"%s" %.17g', p2_blank ? '' : lab2(2.0**e), 2.0**e) . (e + st <= hi ? ', ' : '') . pow2_list(e + st, hi, st)
p2_blank = 0   # 1: the ticks without labels (a panel above another)
pow2_tics(a, k, e0) = (p2_lo = ceil(log(ax_lo(a eq 'x' ? 'X' : 'Y')) / log(2) - 1e-9), p2_hi = floor(log(ax_hi(a eq 'x' ? 'X' : 'Y')) / log(2) + 1e-9), \
                       p2_r = room(a) / (lspan(a) / log10(2)), p2_m = ceil(need(a, k) / (p2_r * e0) - 1e-9), p2_s = e0 * (p2_m < 1 ? 1 : p2_m), \
                       keep_range(a) . sprintf('set %stics (%s)', a, pow2_list(ceil(1.0 * p2_lo / p2_s) * p2_s, p2_hi, p2_s)))
# how many of n labels of k characters fit along axis a: every 'every_fit'-th one
every_fit(a, k, n) = (ef_e = ceil(n * need(a, k) / room(a) - 1e-9), ef_e < 1 ? 1 : ef_e)
nlines(s) = 1 + strlen(s) - strlen(ssub(s, "\n"))
# a y label of at most frac of the height, wrapped, and moved left by its extra lines (gnuplot's
# margin counts one): eval set_ylab(text, frac); the second pass wraps it again to the graph's
# height as the first pass found it (a key below the graph leaves it less than frac)
set_ylab(s, frac) = (ylab_src = s, ylab_frac = frac, ylab_text = fit_h(s, frac), sprintf('set ylabel ylab_text offset %d, 0', 1 - nlines(ylab_text)))
ylab_room(frac) = (yr_n = int(0.85 * room_y * GPVAL_TERM_VCHAR / GPVAL_TERM_HCHAR), yr_n < fit_n(h_in * frac, 1) ? yr_n : fit_n(h_in * frac, 1))
refit_ylab = "if (exists('ylab_src')) { ylab_text = wrap(ylab_src, ylab_room(ylab_frac)); " . \
             "eval sprintf('set ylabel ylab_text offset %d, 0', 1 - nlines(ylab_text)) }"
graph_frac(x) = (GPVAL_TERM_YMAX - GPVAL_TERM_YMIN) * GPVAL_TERM_SCALE / GPVAL_TERM_YSIZE
grow_h = "if (h_grow) { gh_other = h_probe * (1 - graph_frac(0)); gh_new = h_in - gh_other < 0.45 * h_in ? gh_other / 0.55 : h_in; " . \
         "room_y = room_y * (gh_new - gh_other) / (h_probe - gh_other); term_final = term_at(gh_new) }"
draw = "eval cmd; eval set_room; eval grow_h; eval refit_ylab; eval tics; eval term_final; if (exists('out')) { set output out } else { set output }; eval cmd"
