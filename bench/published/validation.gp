# validation.gp - ringsim's predictions against public measurements (bench/published/validate.py's
# results CSV): log-log, y = x with a +-10% band, one marker per source, a bar where the model gives
# a range. The fallback validate.py uses while `ringsim plot` has no 'validation' kind.
#
# Inputs: data     the results CSV (case,source,quantity,unit,published,predicted,predicted_low,
#                  predicted_high,error,role)
#         out      the figure file;  term  the gnuplot terminal (svg, pngcairo, pdfcairo + size)
#         sources  space-separated values of the 'source' column
set terminal @term
set output out
set datafile separator comma
set datafile missing ''
set datafile columnheaders
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set xlabel 'published (each case in its own unit: TFLOP/s, iter/s, s, tokens, efficiency)'
set ylabel 'predicted by ringsim'
set title 'ringsim against published GPU measurements (bench/published)'
set grid
set key top left box opaque
sel(i, c) = (strcol('source') eq word(sources, i)) ? column(c) : NaN
band(x, f) = x * f
stats data using 'published':'predicted' nooutput
lo = (STATS_min_x < STATS_min_y ? STATS_min_x : STATS_min_y) / 2
hi = (STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) * 2
set xrange [lo : hi]
set yrange [lo : hi]
set samples 200
plot '+' using 1:(band($1, 0.9)):(band($1, 1.1)) with filledcurves lc rgb '#dddddd' title '+-10%', \
     x with lines lc rgb '#555555' dt 2 title 'y = x', \
     for [i=1:words(sources)] data using (sel(i, 'published')):(sel(i, 'predicted')) with points lt i pt (4 + 2 * i) ps 1.0 \
         title word(sources, i), \
     for [i=1:words(sources)] data using (sel(i, 'published')):(sel(i, 'predicted')):(sel(i, 'predicted_low')):(sel(i, 'predicted_high')) \
         with yerrorbars lt i pt 0 notitle
