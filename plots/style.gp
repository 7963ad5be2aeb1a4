# style.gp - the one look of every ringsim figure; every script in plots/ loads it first.
#
# Inputs (set with gnuplot -e "..."; ringsim plot does this for you):
#   fmt   'png' (screens) | 'pdf' | 'svg' (papers)          default 'png'
#   out   output file                                       default: the terminal's stdout
#   w_px, h_px  size in pixels (PNG/SVG); PDF uses w_px/150 x h_px/150 inches   default 1200 x 750
# Colours: Okabe-Ito (colour-blind safe). Fonts: DejaVu Sans.
if (!exists("fmt")) fmt = 'png'
if (!exists("w_px")) w_px = 1200
if (!exists("h_px")) h_px = 750
set encoding utf8
set micro
if (fmt eq 'png') {
    set terminal pngcairo size w_px, h_px enhanced font 'DejaVu Sans,13' linewidth 1.4 background '#ffffff'
} else {
    if (fmt eq 'pdf') {
        set terminal pdfcairo size (w_px / 150.0), (h_px / 150.0) enhanced font 'DejaVu Sans,8' linewidth 1.0
    } else {
        set terminal svg size w_px, h_px dynamic enhanced font 'DejaVu Sans,13' linewidth 1.4 background '#ffffff'
    }
}
if (exists("out")) set output out

# Line types: 1 blue, 2 vermillion, 3 green, 4 purple, 5 orange, 6 sky, 7 black, 8 grey
set linetype 1 lc rgb '#0072B2' lw 2 pt 7 ps 1.1 dt 1
set linetype 2 lc rgb '#D55E00' lw 2 pt 5 ps 1.0 dt 1
set linetype 3 lc rgb '#009E73' lw 2 pt 9 ps 1.3 dt 1
set linetype 4 lc rgb '#CC79A7' lw 2 pt 11 ps 1.3 dt 1
set linetype 5 lc rgb '#E69F00' lw 2 pt 13 ps 1.2 dt 1
set linetype 6 lc rgb '#56B4E9' lw 2 pt 15 ps 1.1 dt 1
set linetype 7 lc rgb '#000000' lw 2 pt 1 ps 1.2 dt 1
set linetype 8 lc rgb '#999999' lw 2 pt 2 ps 1.2 dt 1
set linetype cycle 8
# Lane colours (timeline) and layout colours (busy time)
c_compute = '#0072B2'; c_send = '#E69F00'; c_recv = '#009E73'; c_step = '#BBBBBB'
c_contiguous = '#D55E00'; c_striped = '#56B4E9'; c_zigzag = '#009E73'
c_mark = '#444444'; c_band = '#E4E4E4'

set style line 100 lc rgb '#DDDDDD' lw 0.8 dt 1
set grid back ls 100
set border 3 back lw 1.0 lc rgb '#333333'
set tics nomirror out scale 0.6 textcolor rgb '#222222'
set key noopaque nobox samplen 2.5 spacing 1.15 textcolor rgb '#222222'
set title font ',15'
set datafile separator comma
set datafile columnheaders
set datafile missing 'nan'
set mxtics default
set mytics default
# Seconds with SI prefixes on a time axis: "100 µs", "2 ms"
fmt_time = '%.0s %cs'
# Token counts on a log2 axis
tokens_xtics = 'set xtics ("64" 64, "256" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304)'
# The identity figures (pred-vs-meas, validation): log-log over [lo:hi] on both axes, square, 1-2-5
# ticks when the range spans less than two decades (a log axis would show one tick), the +-10% band
# and y = x; identity_keys are their two key entries. Use: @identity_frame ... plot @identity_keys, ...
identity_frame = "set logscale xy; set xrange [lo : hi]; set yrange [lo : hi]; set size ratio -1; " . \
    "if (hi / lo < 100) { set xtics (); set ytics (); d = 10**floor(log10(lo)); " . \
    "do for [e=0:3] { do for [m in '1 2 5'] { v = real(m) * d * 10**e; if (v >= lo && v <= hi) { set xtics add (v); set ytics add (v) } } } }; " . \
    "set object 1 polygon from lo, 0.9 * lo to hi, 0.9 * hi to hi, 1.1 * hi to lo, 1.1 * lo to lo, 0.9 * lo fc rgb c_band fs solid 1.0 noborder behind; " . \
    "set arrow 1 from lo, lo to hi, hi nohead lw 1.2 lc rgb c_mark"
identity_keys = "keyentry with boxes fc rgb c_band fs solid 1.0 title '±10%', keyentry with lines lc rgb c_mark lw 1.2 title 'y = x'"
