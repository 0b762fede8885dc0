# load.gp: latency under load: each percentile of the latency pair, idle
# and under each load, on one chart (log y).  One colour per series (idle
# first).  Columns: index  latency_us; pct_tics (set by rb-plot) names the
# percentiles: ('p50' 0, 'p99' 1, ...)
set xtics @pct_tics
set offsets graph 0.04, graph 0.04, 0, 0
set xlabel 'Percentile'
set ylabel 'Latency [µs]'
set logscale y 10
set format y '%.7g'
plot for [i=1:n] file[i] using 1:2 with linespoints lw 2 lc rgb colour(i) pt 7 ps 0.8 title label[i]
