# ttft.gp - time to first token against context length (P + T tokens), one line per machine and
# context-parallel variant (pass-KV, pass-Q, Ulysses, USP), log-log (ringsim plan --inference --figure;
# model: docs/inference.md).
#
# Inputs: data   a `ringsim plan --inference --csv` CSV (series,context_tokens,ttft_pass_kv_s,...)
#         pser   space-separated series (PROFILE:nNODES) of the lines to draw, one per line
#         pcol   the TTFT column of each line (ttft_pass_kv_s, ttft_pass_q_s, ttft_ulysses_s, ttft_usp_s)
#         pname  the legend of each line (series/variant, no spaces)
#         pdash  the dash type of each line (1 pass-KV, 2 pass-Q, 3 Ulysses, 4 USP)
#         pcolor the colour (line type) of each line: one per series
#         xmin, xmax, ymin, ymax  the ranges (the data's with a margin)
#         title  figure title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Time to first token vs context length'
sel(s, c) = (strcol('series') eq s) ? column(c) : NaN
set title title
set logscale x 2
set logscale y 10
set xrange [xmin:xmax]
set yrange [ymin:ymax]
@tokens_xtics
set xlabel 'context length P + T (tokens)'
set ylabel 'time to first token (s)'
set format y '%g'
set key top left
plot for [k=1:words(pser)] data using (sel(word(pser, k), 'context_tokens')):(sel(word(pser, k), word(pcol, k))) \
     with linespoints lt int(word(pcolor, k)) dashtype int(word(pdash, k)) pt 7 ps 0.8 title word(pname, k)
