# layout_busy.gp - per-rank busy (compute) time of the three layouts under a causal mask.
#
# Inputs: data  CSV with columns rank,contiguous,striped,zigzag (seconds; '#' lines = notes)
#         title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Per-rank compute time by layout (causal)'
@set_title
set xlabel 'rank'
eval set_ylab('busy (compute) time per rank', 0.6)
set format y fmt_time
set yrange [0 : *]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 noborder
set boxwidth 0.9
set grid noxtics
set xtics scale 0
# a rank's label every rank_every ranks (as many as fit side by side)
rank_every = 1
cmd = "plot data using (column('contiguous')):xtic(int(column('rank')) % rank_every == 0 ? strcol('rank') : '') lc rgb c_contiguous title 'contiguous', " . \
      "data using (column('striped')) lc rgb c_striped title 'striped', data using (column('zigzag')) lc rgb c_zigzag title 'zigzag'"
tics = "rank_every = every_fit('x', 3, span('x')); eval lin_tics('y', 1, 0)"
@draw
