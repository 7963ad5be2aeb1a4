# maxctx.gp - the longest context that fits in memory against the device count N, one line per
# hardware profile (ringsim plan --maxctx-csv / --figure; model: docs/memory.md, docs/plan.md).
#
# Inputs: data      a `ringsim plan --maxctx-csv` CSV (profile,n_ranks,max_seq_tokens)
#         profiles  space-separated values of the 'profile' column    profiles_t  their legends
#         title     figure title (default from the model in the CSV header is not read: set it)
if (!exists("style")) style = 'style.gp'
load style
if (!exists("title")) title = 'Longest context that fits vs devices N (ring attention, ZeRO-3)'
if (!exists("profiles_t")) profiles_t = profiles
sel(i, c) = (strcol('profile') eq word(profiles, i)) ? column(c) : NaN
pos(v) = v > 0 ? v : NaN
@set_title
set logscale x 2
set logscale y 2
set xlabel 'devices in the ring N'
eval set_ylab('longest context S (tokens)', 0.6)
cmd = "plot for [i=1:words(profiles)] data using (sel(i, 'n_ranks')):(pos(sel(i, 'max_seq_tokens'))) with linespoints ls i title word(profiles_t, i)"
tics = "eval pow2_tics('x', 4, 1); eval pow2_tics('y', 4, 2)"
@draw
