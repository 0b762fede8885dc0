"""rbresults: the results rdmabench writes, read and written the same way by
every tool (rb-plot, rb-compare, rb-heatmap, rb-wire; rb-vs-perftest).

The formats (load.py holds them in full):
  result CSV   a header row, one row per size; title, metadata and status in
               the sidecar NAME.meta.json
  result JSON  {"schema_version":1,"title":...,"meta":{...},"results":[...]}
  histogram    lower_ns,upper_ns,count,cumulative_fraction
  the earlier format: the same CSV after "# rdmabench TITLE" and "# key=value"
  lines.  A file of another kind or schema version raises InputError.

Each file uses only those above it:
  units.py   sizes as the binaries print them, the median
  load.py    read(), scan(): Result and Histogram objects, rows with figures
  table.py   rows as written, "# key=value" metadata, sidecars written,
             rb-campaign's meta file
  plot/      rb-plot: what goes on which chart, gnuplot driven
  wire/      rb-wire: a RoCE v2 capture, summarised
"""

from .units import MIB, fmt_size, median  # noqa: F401
from .load import (SCHEMA, Histogram, InputError, Result, check_schema, number,  # noqa: F401
                   read, read_sidecar, rows_have, scan, sidecar_path)
from .table import campaign_meta, read_document, read_rows, read_table, write_result_sidecar, write_sidecar  # noqa: F401

__all__ = ['MIB', 'fmt_size', 'median', 'SCHEMA', 'Histogram', 'InputError', 'Result',
           'check_schema', 'number', 'read', 'read_sidecar', 'rows_have', 'scan', 'sidecar_path',
           'campaign_meta', 'read_document', 'read_rows', 'read_table', 'write_result_sidecar', 'write_sidecar']
