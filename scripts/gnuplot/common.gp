# common.gp: what every rb-plot chart shares.  rb-plot sets fmt ('png' or
# 'svg'), out (the file to write), chart_title, n (the series), key_below
# (1: the legend is too long to stand beside the chart: below it, in
# key_rows rows) and canvas_h (the height, grown by those rows) before
# loading it.
reset
if (fmt eq 'svg') {
	set terminal svg size 960,canvas_h dynamic noenhanced font 'Sans,12' background '#ffffff'
} else {
	set terminal pngcairo size 960,canvas_h noenhanced font 'Sans,11'
}
# One colour per series, never two alike in a chart: 12 picked ones, then
# hues spread evenly over the circle.
array pick[12] = [0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd, 0x17becf, \
	0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x000080, 0x00a000]
colour(i) = n <= 12 ? pick[i] : hsv2rgb((i - 1.0) / n, 0.85, 0.8)
set output out
set title chart_title
set grid xtics ytics mxtics mytics lc rgb '#dddddd' lt 1, lc rgb '#eeeeee' lt 1
if (key_below) {
	set key below left Left reverse samplen 2 spacing 1.1 maxrows key_rows
} else {
	set key outside right top Left reverse samplen 2 spacing 1.2
}
set border 3
set tics nomirror
set datafile missing 'NaN'
