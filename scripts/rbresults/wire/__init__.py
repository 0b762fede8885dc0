"""rbresults.wire: rb-wire, what a run put on the wire, RoCE v2 packet by packet.

Each file uses only those above it:
  ib.py       the InfiniBand transport headers: opcodes, extended headers, NAK syndromes
  pcap.py     frames out of pcap and pcapng files, and from a frame to the BTH
  analyse.py  packets into flows, messages, ACKs, resends, NAKs; a flow's figures
  report.py   the summary document, the --result check (rbresults.read), CSV and text
  cli.py      the commands capture and analyse, their options and exit statuses
"""

PROG = 'rb-wire'
