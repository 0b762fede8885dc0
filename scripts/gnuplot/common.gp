# common.gp: what every rb-plot chart shares.  rb-plot sets fmt ('png' or
# 'svg'), out (the file to write), chart_title and key_below (1: the legend
# is too long to stand beside the chart) before loading it.
reset
if (fmt eq 'svg') {
	set terminal svg size 960,600 dynamic noenhanced font 'Sans,12' background '#ffffff'
} else {
	set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
}
set output out
set title chart_title
set grid xtics ytics mxtics mytics lc rgb '#dddddd' lt 1, lc rgb '#eeeeee' lt 1
if (key_below) {
	set key below left Left reverse samplen 2 spacing 1.1 maxrows 6
} else {
	set key outside right top Left reverse samplen 2 spacing 1.2
}
set border 3
set tics nomirror
set datafile missing 'NaN'
