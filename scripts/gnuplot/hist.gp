# hist.gp: latency distribution.  The buckets are regrouped into bins of
# equal width on the log axis (bins_per_decade of them), so that heights
# compare across the axis.  Columns: bin_low_us  bin_high_us  percent.
set xlabel 'Latency [µs]'
set ylabel sprintf('Share of samples [%%] per 1/%d decade', bins_per_decade)
set logscale x 10
set format x '%.7g'
set yrange [0:*]
plot for [i=1:n] file[i] using 1:3 with steps lw 2 lc rgb colour(i) title label[i]
