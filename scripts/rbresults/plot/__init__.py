"""rbresults.plot: rb-plot, charts (PNG and SVG) from rdmabench result files.

Each file uses only those above it:
  __init__.py  what every chart shares: the label keys, units, the templates
  items.py     the files given: results and histograms, their labels and where measured
  tables.py    series (the median of the repetitions at each size) and data tables
  gnuplot.py   the gnuplot job: one section per chart and format, the legend's layout
  charts.py    the charts: bandwidth, latency, under load, histograms, over time
  cli.py       options, exit statuses, what is plotted from what
"""


LABEL_KEYS = ['test', 'tool', 'version', 'role', 'device', 'host', 'transport',
              'mtu_bytes', 'qps', 'connect', 'completion']
BW_UNITS = {'gbps': ('bw_avg_gbps', 'Bandwidth [Gb/s = 10^9 bit/s]'),
            'mibps': ('bw_avg_mibps', 'Bandwidth [MiB/s = 2^20 byte/s]')}
LAT_COLUMNS = ['lat_p50_us', 'lat_p99_us', 'lat_p99_9_us', 'lat_max_us']
BINS_PER_DECADE = 20
SIZE_TEMPLATES = ('bw.gp', 'msgrate.gp', 'lat.gp')
KEY_BESIDE_MAX = 24  # characters of the longest legend that still fit beside
LOG_Y_RANGE = 50     # -y auto: a log y axis when the largest median is this many times the least
