# layout_busy.gp - per-rank busy (compute) time of the three layouts under a causal mask.
#
# Inputs: data  CSV with columns rank,contiguous,striped,zigzag (seconds; '#' lines = notes)
#         title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Per-rank compute time by layout (causal)'
set title title
set xlabel 'rank'
set ylabel 'busy (compute) time per rank'
set format y fmt_time
set yrange [0 : *]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 noborder
set boxwidth 0.9
set key top left
set grid noxtics
set xtics scale 0
plot data using (column('contiguous')):xtic(1) lc rgb c_contiguous title 'contiguous', \
     data using (column('striped')) lc rgb c_striped title 'striped', \
     data using (column('zigzag')) lc rgb c_zigzag title 'zigzag'
