# bw.gp: bandwidth vs message size.  One line per series (n of them; data
# file file[i], legend label[i]); the point is the median of the
# repetitions, the bar spans the slowest to the fastest.
# Columns: size_bytes  median  min  max.  y_label says the unit.
# size_tics (set by rb-plot) labels the sizes: ('2 B' 2, '1 KiB' 1024, ...)
set logscale x 2
set xtics @size_tics
set offsets graph 0.04, graph 0.04, 0, 0
set xlabel 'Message size'
set ylabel y_label
# log_y (rb-plot -y): small sizes would vanish at the bottom of a linear axis
if (log_y) {
	set logscale y 10
	set format y '%.7g'
} else {
	set yrange [0:*]
}
plot for [i=1:n] file[i] using 1:2:3:4 with yerrorlines lw 2 lc rgb colour(i) pt 7 ps 0.7 \
	title label[i]
