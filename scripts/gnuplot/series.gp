# series.gp: a figure over time, from --interval rows.  One line per series
# (n of them; data file file[i], legend label[i]); a red ring marks each
# interval under --min-bw.  Columns: t_mid_s  value  value-if-below (NaN).
# y_label says the unit; log_y 1 for latency.
set xlabel 'Time since the start of the measured window [s]'
set ylabel y_label
if (log_y) { set logscale y 10; set format y '%.7g' } else { set yrange [0:*] }
set offsets graph 0.02, graph 0.02, 0, 0
plot for [i=1:n] file[i] using 1:2 with linespoints lw 2 pt 7 ps 0.5 title label[i], \
	for [i=1:n] file[i] using 1:3 with points pt 6 ps 2 lw 2 lc rgb 'red' \
	title (i == 1 ? 'under --min-bw' : '')
