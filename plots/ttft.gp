# ttft.gp - time to first token against context length (P + T tokens), one line per machine and
# context-parallel variant (pass-KV, pass-Q, Ulysses, USP), log-log (ringsim plan --inference --figure;
# model: docs/inference.md). Colour and marker: the series; dash: the variant. Each line's points are
# sorted by context (smooth unique: the rows of a line need not be adjacent).
#
# Inputs: data   a `ringsim plan --inference --csv` CSV (series,context_tokens,ttft_pass_kv_s,...)
#         pser   space-separated series (PROFILE:nNODES) of the lines to draw, one per line; with by_p = 1
#                PROFILE:nNODES|P (a line per cached P: the CSV has several)
#         pcol   the TTFT column of each line (ttft_pass_kv_s, ttft_pass_q_s, ttft_ulysses_s, ttft_usp_s)
#         pdash  the dash type of each line (1 pass-KV, 2 pass-Q, 3 Ulysses, 4 USP)
#         pcolor the colour (line type) of each line: one per series
#         snames the series' legends (PROFILE:nNODES, or PROFILE:nNODES/P=P), in colour order      vused  the variants drawn (their dash types)
#         xmin, xmax, ymin, ymax  the ranges (the data's with a margin)
#         title  figure title
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Time to first token vs context length'
variant(d) = word('pass-KV pass-Q Ulysses USP', d)
if (!exists("by_p")) by_p = 0
sel(s, c) = ((by_p ? strcol('series') . '|' . strcol('cached_tokens') : strcol('series')) eq s) ? column(c) : NaN
@set_title
set logscale x 2
set logscale y 10
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set xlabel fit_w('context length P + T (tokens)', 1)
eval set_ylab('time to first token (s)', 0.6)
set format y '%g'
cmd = "plot for [k=1:words(pser)] data using (sel(word(pser, k), 'context_tokens')):(sel(word(pser, k), word(pcol, k))) " . \
      "smooth unique with linespoints lt int(word(pcolor, k)) dashtype int(word(pdash, k)) notitle, " . \
      "for [i=1:words(snames)] keyentry with linespoints lt i title word(snames, i), " . \
      "for [j=1:words(vused)] keyentry with lines lw lw_line lc rgb c_mark dashtype int(word(vused, j)) title variant(int(word(vused, j)))"
tics = "eval pow2_tics('x', 4, 2); eval log_tics('y', 5)"
@draw
