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
# one series: the percentiles take the colours and the legend; several: one
# colour per series (its legend once), one dash/point type per percentile,
# said once in black
if (n == 1) {
	plot for [j=1:4] file[1] using 1:(column(j + 1)) with linespoints \
		lw 2 lc rgb pick[j] dt j pt (j == 1 ? 7 : j + 3) ps 0.7 title pct[j]
} else {
	plot for [i=1:n] for [j=1:4] file[i] using 1:(column(j + 1)) with linespoints \
		lw 2 lc rgb colour(i) dt j pt (j == 1 ? 7 : j + 3) ps 0.7 \
		title (j == 1 ? label[i] : ''), \
	     for [j=1:4] NaN with linespoints lw 2 lc rgb 'black' dt j pt (j == 1 ? 7 : j + 3) \
		ps 0.7 title pct[j]
}
