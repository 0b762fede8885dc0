# msgrate.gp: message rate vs message size, as bw.gp (same columns), on a
# log scale: the rate falls by orders of magnitude across a sweep.
# size_tics (set by rb-plot) labels the sizes: ('2 B' 2, '1 KiB' 1024, ...)
set logscale x 2
set xtics @size_tics
set offsets graph 0.04, graph 0.04, 0, 0
set xlabel 'Message size'
set ylabel 'Message rate [Mpps = 10^6 messages/s]'
set logscale y 10
set format y '%.7g'
plot for [i=1:n] file[i] using 1:2:3:4 with yerrorlines lw 2 lc rgb colour(i) pt 7 ps 0.7 \
	title label[i]
