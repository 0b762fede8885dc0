# lat.gp: latency percentiles vs message size, log scale.  One colour per
# series, one dash/point type per percentile (the median of the
# repetitions of each).  Columns: size_bytes  p50  p99  p99.9  max.
# size_tics (set by rb-plot) labels the sizes: ('2 B' 2, '1 KiB' 1024, ...)
set logscale x 2
set xtics @size_tics
set offsets graph 0.04, graph 0.04, 0, 0
set xlabel 'Message size'
set ylabel 'Latency [µs]'
set logscale y 10
set format y '%.7g'
array pct[4] = ['p50', 'p99', 'p99.9', 'max']
# with one series the percentiles take the colours
colour(i, j) = n == 1 ? j : i
plot for [i=1:n] for [j=1:4] file[i] using 1:(column(j + 1)) with linespoints \
	lw 2 lc colour(i, j) dt j pt (j == 1 ? 7 : j + 3) ps 0.7 \
	title (n == 1 ? pct[j] : label[i] . ' ' . pct[j])
