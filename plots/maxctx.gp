# maxctx.gp - the longest context that fits in memory against the device count N, one line per
# hardware profile (ringsim plan --maxctx-csv / --figure; model: docs/memory.md, docs/plan.md).
#
# Inputs: data      a `ringsim plan --maxctx-csv` CSV (profile,n_ranks,max_seq_tokens)
#         profiles  space-separated values of the 'profile' column
#         title     figure title (default from the model in the CSV header is not read: set it)
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Longest context that fits vs devices N (ring attention, ZeRO-3)'
sel(i, c) = (strcol('profile') eq word(profiles, i)) ? column(c) : NaN
pos(v) = v > 0 ? v : NaN
set title title
set logscale x 2
set logscale y 2
set xlabel 'devices in the ring N'
set ylabel 'longest context S (tokens)'
set format x '%.0f'
set ytics ("1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456, "1G" 1073741824, "4G" 4294967296, "16G" 17179869184, "64G" 68719476736)
set key top left
plot for [i=1:words(profiles)] data using (sel(i, 'n_ranks')):(pos(sel(i, 'max_seq_tokens'))) with linespoints lt i pt 7 ps 0.9 title word(profiles, i)
