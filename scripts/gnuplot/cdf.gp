# cdf.gp: cumulative distribution of the latency: the share of samples at
# or below x.  Columns: upper_us  cumulative_fraction.
set xlabel 'Latency [µs]'
set ylabel 'Share of samples at or below [%]'
set logscale x 10
set format x '%.7g'
set yrange [0:100]
set ytics 10
plot for [i=1:n] file[i] using 1:($2 * 100) with steps lw 2 lc rgb colour(i) title label[i]
