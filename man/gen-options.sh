#!/bin/bash
# man/gen-options.sh: regenerate the generated blocks of the man pages from
# one source, so the eight benchmark pages and rdmabench(7) never drift.
# Run it by hand (not at build time) from a built tree, then commit the pages:
#
#   man/gen-options.sh [BUILDDIR]        (BUILDDIR: where rb_* were built)
#
# What is listed, and in which order, comes from each program's --help (the
# option rows in src/cli/rows.c are the source of truth: --help is made from
# them); the text of each option from the table below; the per-test defaults
# from bench/NAME.c.
# A page holds blocks between the lines
#   .\" BEGIN gen-options.sh KIND
#   .\" END gen-options.sh KIND
# (KIND: options, output, exit in man/rb_*.1; common-options, defaults in
# man/rdmabench.7), and only those lines are replaced.  An option in --help
# without text here is an error: write its text, then run again.
# tests/docs.sh checks that the pages and --help agree.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top}" && pwd)
benches=$(sed -n 's/^BENCH(\([a-z0-9_]*\))$/\1/p' "$top/bench/list.h")   # the one list
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The text of each option, keyed by its long name.  A line "[WORDS] text"
# is kept only on the pages of the benchmarks that match one of WORDS (bw,
# lat, send, write, read, atomic); "[-WORDS] text" only on the others; the
# overview page rdmabench(7) (word: all) keeps every line that matches "all"
# or has no tag.  @SIZE@ @ITERS@ @TX@ @RX@ @TRANSPORTS@ @PROG@ are replaced
# with the benchmark's values ("per test" on the overview page).
option_texts() {
	cat <<'EOF'
@ib-dev
The RDMA device, by name as
.BR rb_devices (1)
or
.BR ibv_devices (1)
list it.
Default: the first device.
With
.B \-R
the device is the one rdma_cm resolves for the address (HOST on the client,
.B \-\-bind
on the server) and
.B \-d
is not used.
@ib-port
The device port, 1..255.
Default 1.
@gid-index
The GID table index, 0..1023.
Default: chosen from the port's GID table.
On RoCE: a RoCE v2 GID with an IPv4-mapped address first, then a RoCE v2
global IPv6 GID, then RoCE v1 (IPv4-mapped first), then any non-empty entry;
on InfiniBand: index 0.
.BR rb_devices (1)
shows the table, the default and why.
On the rxe test bed the IPv4 GID is index 1.
@port
TCP port of the out-of-band exchange (also the rdma_cm port with
.BR \-R ),
1..65535.
Default 18515, as perftest.
Both sides must use the same port.
@bind
Server: listen on ADDR only, an IPv4 or IPv6 address of this host.
Default: all addresses.
With
.BR \-R ,
the address rdma_cm binds to, which also selects the device.
@connection
Transport: RC (reliable connected), UC (unreliable connected) or UD
(unreliable datagram), in any case.
Default RC.
[all] Which a benchmark supports is in DEFAULTS below; the others are a usage error.
[-all] @PROG@ supports @TRANSPORTS@; the others are a usage error (exit 2).
[send,all] UD messages must fit in one path MTU.
@rdma-cm
Connect the QPs with librdmacm instead of exchanging their numbers over the
out-of-band channel; that channel still carries the parameter check and the
results.
HOST must then be an address of the server's RDMA interface.
Not with
.BR "\-c UD" .
.BR \-m ,
.BR \-u ,
.B \-S
and
.B \-\-tclass
apply as without
.BR \-R ;
[all] see RDMA_CM below.
[-all] see RDMA_CM in
[-all] .BR rdmabench (7).
@mtu
Path MTU in bytes: 256, 512, 1024, 2048 or 4096 (K suffix accepted).
Default: the smaller of the two sides' active MTUs; a larger value is lowered
to it, with a warning.
Each end of a QP applies its path MTU (the responder's sizes the packets
of reads and replies), so both sides use the smaller value either gives
(an offer in HELLO, as
.BR \-o ).
@qp-timeout
QP ack timeout, 4.096\ \(mcs\ \(mu\ 2^N, N in 0..31.
Default 14 (about 67\ ms).
@sl
Service level, 0..15.
Default 0.
@tclass
Traffic class of the GRH, 0..255 (on RoCE v2 the IP header's TOS byte: DSCP
and ECN).
Default 0.
With
.BR \-R ,
also the rdma_cm ToS (perftest's
.BR \-T ),
which the connect request carries to the server: a server without its own
.B \-\-tclass
takes the client's.
@source-ip
Client with
.BR \-R :
bind the rdma_cm ids to ADDR, a numeric IPv4 or IPv6 address of this host's
RDMA interface, before resolving HOST; that selects the source interface and
device.
perftest's spellings
.B \-\-source_ip
and
.B \-\-bind_source_ip
are accepted too.
A malformed address is a usage error (exit 2); an address that is not on
this host fails at once (exit 1).
Without
.B \-R
the source is the GID
.RB ( \-d ,
.BR \-x )
and the option is a usage error, as it is on a server (which listens on
.BR \-\-bind ).
@persistent
Server: after a client, wait for the next one, serving clients one after
another until SIGINT or SIGTERM.
Without it the server serves one client and exits with that run's status.
Either way a client that connects while another is served gets a BUSY message
at once and exits 1.
@loopback
Run the server and the client in one command on this host: the server side
is a child process of the same program with the same options (the measuring
threads on different CPUs, as two processes on one host always are), the
client connects to it over the same code paths as between two hosts
(localhost for the exchange; with
.B \-R
the address of the device's GID, or
.BR \-\-bind ).
The client's results go to stdout (or the
.B \-\-csv
or
.B \-\-json
file); the server's messages go to stderr prefixed
.RB \(dq PROG " (server):" \(dq.
The server side is stopped and reaped when the client ends (at most
.B \-\-timeout
later) and when this process dies.
The exit status is the client's, or 1 when the server side failed.
Not with HOST,
.B \-\-persistent
or
.BR \-\-source\-ip .
@timeout
Deadline in seconds, 0.1..3600, default 10, for anything that waits on the
peer: the client's connection attempts (retried with a backoff of 10\ ms to
1\ s until then), each out-of-band message, rdma_cm events, and a queue that
makes no progress during a measurement.
A server waits for its first client without a deadline.
@size
Message size in bytes, 1..1G, with an optional binary suffix K, M or G
(2^10, 2^20, 2^30; KiB, MiB, GiB also accepted).
Default @SIZE@.
[atomic] Atomic operations always move 8 bytes.
[send,all] With
[send,all] .B "\-c UD"
[send,all] at most the path MTU.
@all
Sweep message sizes from 2\ B to 8\ MiB in powers of two, one row per size.
[send,all] With
[send,all] .BR "\-c UD" ,
[send,all] up to the path MTU.
Not with
.BR \-D .
[lat,all] The
[lat,all] .B \-H
[lat,all] and
[lat,all] .B \-\-raw
[lat,all] files get the size before their extension: hist.csv becomes
[lat,all] hist\-64.csv.
Each finished size is said on stderr when stderr is a terminal and the rows
are not shown on it (results in a file or a pipe), or with
.BR \-\-verbose .
@iters
Measured iterations per size, 1..2^40.
Default @ITERS@.
[bw] Each QP posts N messages.
[lat] Each iteration is one round trip.
Not with
.BR \-D ,
nor with
.B \-s
(a usage error: give one of them).
@duration
Measure for SECONDS, 0.1..86400, instead of
.B \-n
iterations; the first
.B \-\-warmup\-time
seconds are left out.
[lat,all] Every sample is kept, as with
[lat,all] .BR \-n ,
[lat,all] up to 33554432 (2^25, 256\ MiB); past that the percentiles come from
[lat,all] the histogram, within 0.8\ %, and the row's lat_pct_method says
[lat,all] histogram
[lat] (see STATISTICS in
[lat] .BR rdmabench (7)).
[all] (see STATISTICS).
[bw,all] No peak bandwidth is reported.
Not with
.B \-a
or
.BR \-n .
@warmup
Iterations run before measuring and left out of the figures, 0..2^32.
[lat] Default 100.
[bw] Default 0: bandwidth benchmarks do not run warm-up iterations yet, the
[bw] value is only compared with the peer's.
[all] Default 100 for latency benchmarks; bandwidth benchmarks do not run
[all] warm-up iterations yet (default 0).
Not used with
.B \-D
(see
.BR \-\-warmup\-time ).
@warmup-time
With
.BR \-D :
seconds at the start left out of the figures, 0..3600, shorter than the run.
Default 1, or D/4 when D is under 4\ s.
@interval
Every SECONDS (0.01..86400, fractions allowed) report the interval just
ended, as a row of its own (\fBrow_kind\fR interval, \fBt_start_s\fR and
\fBt_end_s\fR its offsets from the start of the measured window), then the
whole-run row (\fBrow_kind\fR total) with what the intervals show.
[bw,all] Bandwidth: each side that counts messages (the posting side, the
[bw,all] receiver of sends) reports its messages, bytes, bandwidth and rate; the
[bw,all] whole-run row adds the lowest and highest interval bandwidth and when
[bw,all] (\fBivl_bw_min_mibps\fR, \fBivl_bw_min_at_s\fR, \fBivl_bw_max_mibps\fR,
[bw,all] \fBivl_bw_max_at_s\fR), their coefficient of variation
[bw,all] (\fBivl_bw_cv\fR) and \fBivl_below_min_bw\fR.
[lat,all] Latency: each interval's count and percentiles come from a histogram of
[lat,all] its own, reset at each boundary (no samples are kept).
The intervals tile the window: their messages and bytes add up to the
whole-run row's exactly.
The interval is the asked one rounded to the loop's looks at the clock:
boundaries are checked once per pass of the measuring loop (never per
message; a pass is a burst of posts, up to \fB\-t\fR per QP, then the
completions), so an interval ends at the first check past its boundary and
the next boundary stays on the SECONDS grid.
Where a pass lasts longer than SECONDS (large messages on a slow link)
the rows are wider than asked, by whole passes: each row's
\fBt_start_s\fR and \fBt_end_s\fR say what it covers, its figures are
over that width, and stderr says how wide they came out (a smaller
\fB\-t\fR or \fB\-Q\fR makes passes shorter).
An interval that the run's end (SIGINT, the end of \fB\-D\fR's window,
the peer stopping) cut short before its boundary is partial:
\fBivl_partial\fR 1 (column "partial" in human output), else 0; empty on
the whole-run row.
With \fB\-D\fR the window ends on the grid, so a window that is a whole
number of intervals has none partial.
[bw,all] The lowest, highest and CV are over the whole intervals.
Human: one line per interval as it ends, then the summary and a line
"Intervals: ..." (how many, how wide the whole ones were, whether the last
was partial).
CSV: interval rows among the rows, told apart by \fBrow_kind\fR.
JSON: an \fBintervals\fR array in each size's object.
With \fB\-W\fR each interval carries the counters' change over it.
With
.BR \-D ,
no longer than the measured window.
@run-infinitely
Run one size until SIGINT or SIGTERM (to either side), then print the
whole-run row with status complete and exit 0 (perftest's
\fB\-\-run_infinitely\fR, which is accepted as well; exit 1 when no
message completed after the warm-up, or with \fB\-\-min\-bw\fR when an
interval fell below it).
With \fB\-\-interval\fR the interval that the stop cuts short is
partial (see \fB\-\-interval\fR and \fB\-\-min\-bw\fR).
Both sides must give it.
The first \fB\-\-warmup\-time\fR seconds (default 1) are left out.
Memory stays flat: with \fB\-\-interval\fR rows stream out as they end.
Not with
.BR \-D ,
.B \-n
or
.BR \-a .
@min-bw
[bw,all] With \fB\-\-interval\fR: the bandwidth every interval must reach,
[bw,all] with its unit: b/s, Kb/s, Mb/s, Gb/s, Tb/s (bits, powers of 1000), B/s,
[bw,all] KB/s, MB/s, GB/s (bytes, powers of 1000), KiB/s, MiB/s, GiB/s (powers
[bw,all] of 1024), e.g. \fB10Gb/s\fR.
[bw,all] The intervals below it are named on stderr and counted in
[bw,all] \fBivl_below_min_bw\fR; the run then exits 1 (its results are
[bw,all] still printed, status complete).
[bw,all] A whole interval is below when its bandwidth is.
[bw,all] A partial one (see \fB\-\-interval\fR) is judged on what it can
[bw,all] show: completions arrive in batches (one per \fB\-Q\fR messages on
[bw,all] each QP), so a short tail may hold none on a healthy link.  It is
[bw,all] below only when its bytes plus one more batch on every QP
[bw,all] (QPs \(mu \-Q \(mu size), over its width, are still under the
[bw,all] floor: then the link surely ran slower than it.  A partial interval
[bw,all] under the floor by its own figure but not by that bound is not
[bw,all] judged (the human "Intervals:" line says so); one at or over the
[bw,all] floor passes.
[all] Bandwidth benchmarks only.
@qp
Number of QPs, 1..256, each posting
.B \-n
messages.
Default 1.
@bidirectional
Traffic in both directions at once.
Each side prints one row: its one-way columns count what this side
posted (tx: the messages it sent, the operations it performed);
.B rx_iterations
and the other
.B rx_
columns what the peer did towards it
[send,all] (sends: the messages received here, timed from the first arrival to
[send,all] the last;
[write,read,atomic,all] (RDMA operations: the peer's own row, received over the out-of-band
[write,read,atomic,all] channel;
[-all] see OUTPUT);
[all] see Columns under OUTPUT);
the
.B sum_
columns both, as perftest's bidirectional figure (this side's rate plus
the peer's).
No peak.
@threads
N measuring threads in one process, 1..64 (bandwidth tests), each with its
own
.B \-q
QPs, CQ, buffers and completion channel, each pinned to a CPU of its own
on the device's NUMA node (claimed as a single thread's CPU is; the
metadata item
.B thread_cpus
lists them in thread order).
The threads start together after one barrier with the peer and each runs
.B \-n
messages per QP, or all run for
.BR \-D .
The peer must run the same number: a difference is named on both sides,
which exit 1.
Each size's row is the total: its messages and bytes are the sums of the
threads' exactly, its window runs from the earliest thread's start to the
latest thread's end (so its rate is at most the sum of the threads'
rates), no peak; the
.B thread
column says
.BR all .
JSON carries each thread's row in the total's
.B threads
array (thread, the CPU it ran on, its own window, rate and peak; not the
.B \-W
counters, which are the port's);
.B \-\-thread\-rows
prints them as rows in human and CSV output too.
One thread failing stops all (exit 1, the thread named); SIGINT gives
every thread's partial figures.
Not with
.B \-R
or
.BR \-\-cpu .
Default 1 (no thread and CPU columns).
@thread-rows
With
.BR \-j :
human and CSV output print each thread's row (thread 0, 1, ...) after
the total's.
JSON always has them, in the total's
.B threads
array.
@tx-depth
Send queue depth, 1..16384.
Default @TX@.
Only the posting side's counts: compared with the peer's (HELLO) with
.BR \-b ,
where both sides post; otherwise one\-sided (see HELLO under OUT\-OF\-BAND PROTOCOL in
.BR rdmabench (7)).
@rx-depth
Receive queue depth, 1..16384.
Default @RX@.
Only the send tests post receives; the others refuse
.BR \-r .
Compared with the peer's with
.BR \-b ;
otherwise only the receiving side's counts.
@post-list
Post N work requests per
.BR ibv_post_send ()
call, as a linked list, 1..1024, at most
.BR \-t .
Default 1.
@cq-mod
Ask for a completion for every Nth work request, 1..1024, and for the last.
Default 100; without
.BR \-Q ,
a size at which 100 messages exceed 1\ MiB asks for one completion per
MiB instead (each row's cq_mod column says what ran).
A post also signals its last work request when it would otherwise leave
more than
.BR \-t " \- " \-l
unsignalled, so any
.B \-Q
works with any
.B \-l
and
.B \-t
(see Post lists and CQ moderation in
.BR rdmabench (7)).
A
.B \-Q
larger than
.B \-t
is a usage error (exit 2); the default is lowered to
.B \-t
when
.B \-t
is smaller, and the cq_mod metadata says so.
Compared with the peer's with
.BR \-b ;
otherwise only the posting side's counts.
@outs
Outstanding RDMA reads or atomics per QP, 1..256.
Default: the smallest device limit of both sides (max_qp_rd_atom and
max_qp_init_rd_atom of each, exchanged in HELLO; with
.B \-R
the client's connect request carries its side), so that a requester never
exceeds the responder's max_qp_rd_atom.
When the sides give different values the smaller wins; a value above what
both sides allow is lowered, with a warning on stderr.
The metadata's outstanding is the value that ran, the same on both sides.
@inline-size
Send messages of up to BYTES inline (IBV_SEND_INLINE), 0..4096.
[bw,all] Default for bandwidth tests: 0, as perftest (nothing inline unless
[bw,all] .B \-I
[bw,all] is given).
[lat,all] Default for latency tests, as perftest: 220 for writes, 236 for sends (188 on UD).
The QPs are created with that much inline data and what the device grants
is read back: messages go inline up to the smaller of the two (a smaller
grant is said on stderr).
A device that refuses a QP with the
.B \-I
size fails the run (exit 1), naming the largest size it accepts; a refused
default is lowered step by step, with a warning.
The metadata records inline_bytes (in use), inline (\(dqsizes <= 220 B\(dq or
\(dqoff\(dq) and inline_granted (what the device wrote back).
Compared with the peer's where both sides post (\-b, and the send and
write ping\-pongs); otherwise only the posting side's counts.
@disable-pcie-relaxed
Register the buffers without PCIe relaxed ordering.
Default: with IBV_ACCESS_RELAXED_ORDERING, as perftest; it is an optional
access flag that providers without it ignore (on rxe, a software device,
it changes nothing), and a registration refused with it is made again
without it.
The metadata's relaxed_ordering says requested, refused or off.
perftest's spelling
.B \-\-disable_pcie_relaxed
is accepted too.
@events
Sleep on a completion channel instead of busy polling the completion queue.
[lat,all] Latency then includes the wake-up.
Compared with the peer's where both sides post (\-b, and the send
ping\-pong, whose answering side's wake\-up is in the other side's
samples); otherwise one\-sided.
@poll-pause
Busy polling with the CPU's spin-wait hint (x86 PAUSE, arm64 YIELD) after
each empty poll.
For virtual machines whose vCPUs share host cores: the hypervisor can then
run another vCPU (KVM's pause-loop exiting), and qemu's software emulation
(TCG) moves to its next vCPU at once, where two polling processes would
otherwise see each other only at the guest kernel's tick (4\ ms).
Off by default, as perftest's loops have none: on a dedicated core it can
add up to one pause (tens of nanoseconds on recent x86) to each latency
sample.
Default: on when the environment variable
.B RB_POLL_PAUSE
is 1 (0 or empty: off; any other value is refused);
.BR rb\-testbed (1)
sets it in its guests.
The metadata's
.B completion
says whether the loops paused.
@atomic-type
FETCH_AND_ADD or CMP_AND_SWAP (in any case), on 8-byte words of the
server's buffer: operation k of a QP on slot k mod 64, the slots 64 bytes
apart (as perftest); see
.BR \-\-atomic\-same\-address .
Default FETCH_AND_ADD.
@atomic-same-address
Every atomic operation of a QP on one 8-byte word (operation k finds k
there): it measures how fast the device serialises operations on one
address (real NICs do), not atomic throughput.
The metadata says which ran (atomic_slots 1 or 64).
Compared with the peer's with
.BR \-b ;
otherwise only the posting side's counts.
@numa-node
Put the buffers on NUMA node N and pin the measuring thread to the first
allowed CPU of that node.
[-all] Default: the device's node; see NUMA PLACEMENT in
[-all] .BR rdmabench (7).
[all] Default: the device's node; see NUMA PLACEMENT.
@no-numa
Leave placement to the kernel: no pinning, no binding.
Not with
.B \-\-cpu
or
.BR \-\-numa\-node .
@cpu
Pin the measuring thread to LIST (e.g. 2, 0\-3 or 0,2\-3); the buffers go on
the node of the first CPU in LIST unless
.B \-\-numa\-node
is given.
A CPU that is not online or not allowed is a usage error.
@use-hugepages
Allocate the buffers on huge pages (MAP_HUGETLB); fails with a message when
none are reserved (/proc/sys/vm/nr_hugepages).
The metadata's memory_kind then says hugepages (else host), and
memory_page_bytes the page size the kernel backs the buffer with.
perftest's spelling
.B \-\-use_hugepages
is accepted too.
@report-gbits
Human table: bandwidth in Gb/s (10^9 bit/s) instead of MiB/s (2^20 B/s).
CSV and JSON always carry both.
Latency tests refuse it.
@percentiles
Comma-separated latency percentiles, each in (0,100], at most 15.
Default 50,90,99,99.9,99.99.
The 50th is always reported (t_typical, lat_p50_us); each other one adds a
column (99.9 gives lat_p99_9_us).
[lat,all] Both sides must give the same list.
[bw] Bandwidth benchmarks report no latency.
@csv
Results as CSV instead of the human table: to FILE, or to stdout when FILE is
not given (write
.BR \-\-csv=FILE ,
with the equals sign).
The CSV holds the header row and the rows only; to a FILE, the metadata and
the status go to its sidecar, FILE.meta.json (x.csv: x.meta.json).
Only one of
.B \-\-csv
and
.BR \-\-json .
@json
Results as one JSON document instead of the human table: to FILE, or to
stdout when FILE is not given (write
.BR \-\-json=FILE ).
Only one of
.B \-\-csv
and
.BR \-\-json .
@report-counters
Add to each size's row the change of port counters of the local device and
port over that size's measuring loop: one column per counter, after the
others, in every format (CSV and JSON
.BI ctr_ NAME\fR,\fP
the human table
.IR NAME ).
LIST: comma-separated, at most 8, each
.BI counters/ NAME\fR,\fP
.BI hw_counters/ NAME
or
.I NAME
(looked up in counters/ first, then hw_counters/), NAME of letters, digits
and _; the files are under /sys/class/infiniband/DEV/ports/P/.
A counter the device lacks is a usage error (exit 2).
The change includes the warm-up, which the other figures leave out: with
[lat,all] .B \-D
[lat,all] the
[lat,all] .B \-\-warmup\-time
[lat,all] seconds, otherwise the
[lat,all] .B \-\-warmup
[lat,all] iterations.
[bw] .B \-D
[bw] the
[bw] .B \-\-warmup\-time
[bw] seconds.
The counters are port-wide (other traffic counts too; over loopback both
sides' packets) and in the device's units: port_xmit_data counts 4-octet
words.
Both sides must give the same list.
[-all] See Port counters in
[-all] .BR rdmabench (7).
[all] See Port counters under OUTPUT.
@histogram
[lat,all] Write the latency histogram (its non-empty buckets) as CSV to FILE:
[lat,all] lower_ns, upper_ns, count, cumulative_fraction; in a sweep one file per size.
[lat,all] Its sidecar FILE.meta.json says the test, size, which latency and the unit (ns).
[lat,all] With
[lat,all] .BR \-\-load\-compare ,
[lat,all] one file per repetition (and for
[lat,all] .BR \-\-raw ),
[lat,all] its phase and number before the extension: hist\-idle\-1.csv,
[lat,all] hist\-loaded\-1.csv, hist\-idle\-2.csv and so on; the sidecar's
[lat,all] load_phase says which.
[bw] Bandwidth benchmarks record no latencies and write no histogram.
[all] Bandwidth benchmarks write none.
@raw
[lat,all] Write every measured latency sample, in order, as CSV to FILE: sample,
[lat,all] latency_ns; in a sweep one file per size, each with its sidecar
[lat,all] FILE.meta.json (test, size, which latency, unit).
[lat,all] With
[lat,all] .B \-D
[lat,all] the samples kept (all of them up to 2^25; the sidecar's
[lat,all] samples_not_kept counts the rest, and a warning says so).
[bw] Bandwidth benchmarks record no latencies and write no file.
[all] Bandwidth benchmarks write none.
@validate
Check each message's payload where it lands, with a pattern that differs
per message (off by default; what each test can check is below, and the
metadata's
.B validate_method
says which: per\-message or final\-slot\-content).
A payload starts with an 8\-byte header holding the QP and a tag, then
splitmix64 words derived from the header; the tag is the message's
sequence number on its QP (its work request count from 0, warm\-up
included) where the bandwidth loops write each message, the slot it comes
from where the payload is fixed.
[bw,all] The bandwidth tests' posting side gives each work request in flight a
[bw,all] buffer of its own (\-t per QP, each as large as the largest message: at
[bw,all] most 1 GiB in all, a usage error otherwise) and fills it just before
[bw,all] the post: message k's payload (sends, writes), zeros (reads) or all
[bw,all] ones (atomics); the remote addresses still cycle as perftest's.
[send,all] Sends (per\-message): every receive has a buffer of its own (\-r per
[send,all] QP, at most 1 GiB in all) and each message is checked whole at its
[send,all] completion: RC's k\-th receive must be message k; UC and UD may lose
[send,all] messages, so each must be a later one than the last.
[send,all] The send ping\-pong writes one fixed payload: each receive is checked
[send,all] against it in a buffer zeroed before the receive was posted, so a
[send,all] receive that brought nothing shows.
[write,all] Writes (final\-slot\-content): a plain RDMA write gives the target no
[write,all] event per message, so the target checks its slots after the run, each
[write,all] holding the last message written into it (its sequence number: every
[write,all] earlier message into the slot differs): with
[write,all] .BR \-n ,
[write,all] min(n, slots) messages per QP (64 slots up to 64 B, 4096 / size
[write,all] rounded to 64 B up to 2 KiB, one above); with
[write,all] .BR \-D ,
[write,all] the count is the latest sequence number found in a slot, plus one.
[write,all] Earlier messages are not checked.
[write,all] The write ping\-pong checks its one slot after the run, less its last
[write,all] byte (the sequence number).
[read,all] Reads (per\-message): each read lands in a buffer zeroed just before
[read,all] it was posted and is checked at its completion against the
[read,all] responder's slot it read (the responder's memory is fixed: its CPU
[read,all] takes no part), so a read that moved nothing, or part, shows.
[atomic] Atomics (per\-message): each operation in flight returns into a word of
[atomic] its own, checked at its completion (operation k finds k / slots in its
[atomic] target word), so every result is checked, not only the last one of
[atomic] each slot (see
[atomic] .BR \-\-atomic\-same\-address ).
[all] Atomics (rb_atomic_bw, per\-message): each operation in flight returns
[all] into a word of its own, checked at its completion.
[all] rb_atomic_lat checks every result without it and does not take it.
Each side checks what it received; the rows are traded and the columns
.BR validated_msgs ,
.BR validate_errors ,
.BR validate_first_msg ,
.B validate_first_qp
and
.B validate_first_offset
hold the sum and the first mismatch (message index on its QP, byte
offset), in every format.
Any mismatch: a message on stderr naming it, and exit 1.
Not with
.BR \-j .
Cost: nothing when off (the posting and checking loops are separate
copies, chosen once per pass); when on, writing each message's payload on
the sending side and a compare of every checked message on the receiving
or reading side (CPU and memory bandwidth, not the NIC's), and in the bandwidth tests \-t
buffers per QP instead of perftest's cycle (more cache misses).
At line rate on a hardware NIC the check can be the bottleneck: take
figures with it off.
@load
[lat,all] Latency under load: run the bandwidth benchmark BENCH
[lat,all] .RB ( send_bw ,
[lat,all] .BR write_bw " or"
[lat,all] .BR read_bw )
[lat,all] between the same two hosts for the whole latency run: on QPs of its own,
[lat,all] over a second TCP channel (the server listens on a port the kernel
[lat,all] picks and offers it in the parameter exchange), in a thread of its own
[lat,all] whose CPU is chosen apart from the latency loop's.
[lat,all] It starts before the first latency sample (the latency loop waits for
[lat,all] its window to open and, on the client, its first 10 ms interval to close, within
[lat,all] .BR \-\-timeout )
[lat,all] and is halted after the last one.
[lat,all] The row carries the latency figures as always and the load's:
[lat,all] .B load
[lat,all] (its name),
[lat,all] .BR load_size ,
[lat,all] .BR load_qps ,
[lat,all] .B load_bw_mibps
[lat,all] (its bytes completed within the latency window, from its 10 ms
[lat,all] intervals, over the window; load messages of 4 KiB and up are
[lat,all] counted as each completes, smaller ones per
[lat,all] .B \-Q
[lat,all] batch, which a window of a few ms rounds),
[lat,all] .BR load_bytes ,
[lat,all] .BR load_msgs ,
[lat,all] .B load_cpu
[lat,all] (this side's load thread), and the load's whole run:
[lat,all] .B load_run_s
[lat,all] (its first interval's start to its last one's end, its last
[lat,all] messages drained after the halt) and
[lat,all] .B load_run_bytes
[lat,all] (all it completed; at least the window's share); the metadata names the load.
[lat,all] Both sides must give the same load options (else both exit 1 naming them).
[lat,all] The load failing during the run fails the run (exit 1).
[lat,all] Not with
[lat,all] .BR \-\-validate " or " \-\-loopback .
[bw] Bandwidth benchmarks take no load (a usage error).
[all] Latency benchmarks only.
@load-size
[lat,all] With
[lat,all] .BR \-\-load :
[lat,all] the load's message size, 1 byte to 8 MiB, K/M suffixes.
[bw] Latency benchmarks only.
[all] Latency benchmarks only.
@load-qps
[lat,all] With
[lat,all] .BR \-\-load :
[lat,all] the load's number of QPs, 1..256.
[bw] Latency benchmarks only.
[all] Latency benchmarks only.
@load-compare
[lat,all] With
[lat,all] .BR \-\-load :
[lat,all] run each size 6 times, idle and loaded in turn (idle, loaded, idle
[lat,all] and so on), a row each, with a
[lat,all] .B phase
[lat,all] column
[lat,all] .RB ( idle " or " loaded )
[lat,all] and, in each loaded row, the ratio loaded / idle of each percentile to
[lat,all] the idle row before it
[lat,all] .RB ( ratio_p50 ,
[lat,all] .BR ratio_p99
[lat,all] and so on; empty in idle rows, and where either figure is missing).
[lat,all] The load's columns are empty in idle rows.
[bw] Latency benchmarks only.
[all] Latency benchmarks only.
@clock
Where timestamps come from.
.B auto
(the default) reads the CPU's cycle counter (x86\-64: TSC; aarch64:
CNTVCT_EL0) when the kernel's clocksource is not that counter
.RB ( clock_gettime (2)
is then slow: a system call, ~1.2 \(*ms under qemu on HPET), and
CLOCK_MONOTONIC otherwise.
.B tsc
reads the counter whatever the clocksource;
.B monotonic
always reads CLOCK_MONOTONIC.
The counter's rate is measured against CLOCK_MONOTONIC at start (about
10 ms): two 5 ms calibrations must agree within their error bound, and
every CPU's counter must tell the same time; otherwise CLOCK_MONOTONIC is
used (said with
.BR \-\-verbose ,
or as a warning with
.BR \-\-clock=tsc ).
The clock used is the report's
.B clock
field; see Clock under STATISTICS in
.BR rdmabench (7).
@CPU-freq
Accepted for perftest compatibility and ignored: the cycle counter's rate
is measured (see
.BR \-\-clock ),
never taken from the CPU frequency.
@verbose
More on stderr: the device, GID and NUMA choices, the clock and its
calibration, connection retries.
@version
Print \(dq@PROG@ (rdmabench) VERSION (commit COMMIT)\(dq and exit 0.
@help
Print the usage and the options this program accepts, and exit 0.
EOF
}

# One option's text for a page: keep the lines whose tags match.
# TAGS is the page's words ("bw send", "lat read", or "all").
option_text() { # LONGNAME TAGS
	awk -v want="$1" -v tags=" $2 " '
		/^@/ { on = (substr($0, 2) == want); if (on) found = 1; next }
		!on { next }
		/^\[/ {
			spec = substr($1, 2, length($1) - 2); neg = 0
			if (substr(spec, 1, 1) == "-") { neg = 1; spec = substr(spec, 2) }
			n = split(spec, w, ","); hit = 0
			for (i = 1; i <= n; i++) if (index(tags, " " w[i] " ")) hit = 1
			if (hit == neg) next
			sub(/^\[[^]]*\] /, "")
		}
		{ print }
		END { exit !found }' "$tmp/texts"
}
option_texts >"$tmp/texts"   # read by each option_text: one file, not a cat per option

# Each program's --help, read once (a failure stops everything).
for b in $benches; do
	"$build/rb_$b" --help >"$tmp/help.rb_$b" ||
		{ echo "gen-options.sh: $build/rb_$b --help failed (build first)" >&2; exit 1; }
done

# The option heads of PROG --help, one a line: "-d, --ib-dev=DEV".
help_heads() { # PROG
	sed -En 's/^ +((-[A-Za-z], )?--[^ ]+).*/\1/p' "$tmp/help.$1"
}
for b in $benches; do help_heads "rb_$b" >"$tmp/heads.rb_$b"; done   # for accepted_by

# "-d, --ib-dev=DEV" -> roff: bold names, italic argument, alternatives bold.
head_roff() {
	sed -E -e 's/-/\\-/g' \
		-e 's/^(\\-[A-Za-z]), /\\fB\1\\fR, /' \
		-e 's/(\\-\\-[A-Za-z0-9_\\-]+[A-Za-z0-9_])/\\fB\1\\fR/' \
		-e 's/=([A-Z]+\|[A-Z|]+)$/=\\fB\1\\fR/' \
		-e 's/\|/\\fR|\\fB/g' \
		-e 's/=([A-Z]+)(\]?)$/=\\fI\1\\fR\2/'
}

long_name() { sed -E 's/^(-[A-Za-z], )?--([^=[]+).*/\2/'; }

# "TR_RC | TR_UC | TR_UD" of bench/NAME.c -> "RC, UC and UD"
bench_field() { # NAME FIELD
	sed -En "s/.*\.$2 = ([^,}]*[^ ,}]).*/\1/p" "$top/bench/$1.c" | head -n1
}
transports_text() {
	bench_field "$1" transports | sed -E 's/TR_//g; s/ \| /, /g; s/, ([A-Z]+)$/ and \1/'
}

# The page's words: metric and verb.
page_tags() { # NAME
	local m=bw v
	[ "$(bench_field "$1" metric)" = METRIC_LAT ] && m=lat
	v=$(bench_field "$1" verb | sed 's/VERB_//' | tr '[:upper:]' '[:lower:]')
	echo "$m $v"
}

fill() { # NAME PROG: replace the placeholders
	sed -e "s/@SIZE@/$(bench_field "$1" size)/g" -e "s/@ITERS@/$(bench_field "$1" iters)/g" \
		-e "s/@TX@/$(bench_field "$1" tx_depth)/g" -e "s/@RX@/$(bench_field "$1" rx_depth)/g" \
		-e "s/@TRANSPORTS@/$(transports_text "$1")/g" -e "s/@PROG@/$2/g"
}

# The OPTIONS block of one program.  HEADS: file of --help heads.
# (the names and the roff of all the heads made by one sed each, not two
# processes per option)
options_block() { # HEADS TAGS
	local name roff
	long_name <"$1" >"$tmp/names.block"
	head_roff <"$1" >"$tmp/roff.block"
	while read -r name && read -r roff <&3; do
		echo ".TP"
		echo "$roff"
		option_text "$name" "$2" ||
			{ echo "gen-options.sh: no text for --$name: add it to option_texts" >&2; return 1; }
	done <"$tmp/names.block" 3<"$tmp/roff.block"
}

output_block() { # TAGS
	case " $1 " in
	*" lat "*) cat <<'EOF'
One row per message size.
The human table shows
.BR #bytes ,
.BR #iterations ,
.BR t_min ,
.BR t_max ,
.B t_typical
(the median),
.BR t_avg ,
.B t_stdev
and one column per
.B \-\-percentiles
entry, all in microseconds.
CSV and JSON carry
.BR size_bytes ,
.BR iterations ,
.B window_s
(the measured window),
.BR lat_min_us ,
.BR lat_max_us ,
.BR lat_p50_us ,
.BR lat_avg_us ,
.B lat_stdev_us
and
.B lat_p\fIP\fB_us
per percentile, to the nanosecond.
Both sides print the same row: the client measures, the server answers or
serves the memory and prints the client's figures.
EOF
		;;
	*) cat <<'EOF'
One row per message size.
The human table shows
.BR #bytes ,
.BR #iterations ,
.BR "BW peak" ,
.B "BW average"
(MiB/s, or Gb/s with
.BR \-\-report-gbits )
and
.B MsgRate
(millions of messages per second).
CSV and JSON carry
.BR size_bytes ,
.BR iterations ,
.BR bytes ,
.B window_s
(the measured window),
.BR bw_peak_mibps ,
.BR bw_avg_mibps ,
.BR bw_peak_gbps ,
.B bw_avg_gbps
and
.BR msg_rate_mpps .
With
.BR \-b ,
those count this side's operations (tx) and nine more follow:
.BR rx_iterations ,
.BR rx_window_s ,
.BR bw_rx_avg_mibps ,
.BR bw_rx_avg_gbps ,
.B msg_rate_rx_mpps
(the peer's operations towards this side),
.BR sum_iterations ,
.BR bw_sum_avg_mibps ,
.B bw_sum_avg_gbps
and
.B msg_rate_sum_mpps
(both, perftest's bidirectional figure); the human table adds
.BR "BW rx average" ,
.B "BW sum average"
and
.BR "MsgRate sum" .
A figure that was not measured (the peak with
.BR \-D ,
on a receiving side, or with
.BR \-b )
is "\-" in the table, empty in CSV, null in JSON.
EOF
		;;
	esac
	cat <<'EOF'
With
.BR \-W ,
one more column per port counter, last: its change over the size's loop
.RB ( ctr_ \fINAME\fR).
Results go to stdout (or the
.B \-\-csv
or
.B \-\-json
file), in exactly one format; messages go to stderr.
A CSV file holds the header row and the rows, nothing else (Python's csv,
pandas.read_csv and gnuplot read it as it is); with
.BR \-\-csv=FILE ,
the metadata and the status
.RB ( complete ,
.B partial
or
.BR failed )
go to the sidecar FILE.meta.json (FILE without .csv).
.BR rdmabench (7)
describes the formats, every column and metadata key, and the statistics.
EOF
}

exit_block() {
	cat <<'EOF'
.TP
.B 0
Every size was measured.
.TP
.B 1
Runtime failure: no device, the peer could not be reached, refused (busy) or
gone, parameters differ between the sides, a work completion failed, a
deadline passed; or the run was cut short by SIGINT or SIGTERM (the rows
measured so far are printed, status partial).
.TP
.B 2
Usage error: an unknown option, a value out of range, options that do not
combine, an option this benchmark does not support.
EOF
}

# rdmabench(7): every option any benchmark accepts, in the order of the rows
# of src/cli/rows.c (the order of every --help).
union_heads() {
	local b name
	for b in $benches; do help_heads "rb_$b"; done >"$tmp/all-heads"
	sed -En 's/^[[:space:]]*\{ "([^"]+)", .*/\1/p' "$top/src/cli/rows.c" |
		while read -r name; do
			grep -E -m1 -- "(^| )--$name([=[]|$)" "$tmp/all-heads" || true
		done
}

# Which benchmarks accept an option, for rdmabench(7), when not all do.
accepted_by() { # HEAD
	local b list="" n=0
	for b in $benches; do
		if grep -qxF -- "$1" "$tmp/heads.rb_$b"; then
			list="$list${list:+, }rb_$b"
		else
			n=$((n + 1))
		fi
	done
	[ "$n" -gt 0 ] && printf '.br\nOnly %s.\n' "$list" | sed -E 's/, ([^,]*)\.$/ and \1./'
	return 0
}

common_block() {
	local head
	union_heads >"$tmp/heads"
	while read -r head; do
		echo "$head" >"$tmp/one"
		options_block "$tmp/one" all
		accepted_by "$head"
	done <"$tmp/heads"
}

defaults_block() {
	local b lat
	cat <<'EOF'
.TS
l l r r r r l.
Program	Transports	\-s	\-n	\-t	\-r	Latency
EOF
	for b in $benches; do
		lat=-
		[ "$(bench_field "$b" metric)" = METRIC_LAT ] && lat="one-way (RTT/2)"
		[ "$(bench_field "$b" lat_divisor)" = 1 ] && lat="round trip"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "rb_$b" \
			"$(bench_field "$b" transports | sed -E 's/TR_//g; s/ \| /,/g')" \
			"$(bench_field "$b" size)" "$(bench_field "$b" iters)" \
			"$(bench_field "$b" tx_depth)" "$(bench_field "$b" rx_depth)" "$lat"
	done
	echo ".TE"
}

# rb_mpi(1)'s --bench: the list's names, four a line, rb_mpi's default said.
mpi_names_block() {
	local def
	def=$(sed -n 's/^#define DEFAULT_BENCH "\(.*\)"$/\1/p' "$top/src/prog/mpi/mpi_main.c")
	echo "$benches" | awk -v def="$def" '
		function q(s) { return s ~ / / ? "\"" s "\"" : s }
		{ n[++k] = $0 }
		END {
			line = ".BR"
			for (i = 1; i <= k; i++) {
				line = line " " n[i]
				if (i == k) { print line; break }
				sep = i == k - 1 ? " or " : ", "
				if (n[i] == def) sep = " (the default)" sep
				if (i % 4) { line = line " " q(sep); continue }
				sub(/ $/, "", sep); print line " " q(sep); line = ".BR"
			}
		}'
}

# rb_mpi(1)'s --background: the list's bandwidth benchmarks, on one line.
mpi_bw_names_block() {
	local b bw=""
	for b in $benches; do
		[ "$(bench_field "$b" metric)" = METRIC_BW ] && bw="$bw $b"
	done
	echo "$bw" | awk '{
		line = ".BR"
		for (i = 1; i <= NF; i++)
			line = line " " $i (i == NF ? " ;" : i == NF - 1 ? " \" or \"" : " \", \"")
		print line
	}'
}

# Replace the block KIND of PAGE with the file BODY.
splice() { # PAGE KIND BODY
	awk -v kind="$2" -v body="$3" '
		$0 == ".\\\" BEGIN gen-options.sh " kind {
			print; while ((getline l < body) > 0) print l; skip = 1; n++; next }
		$0 == ".\\\" END gen-options.sh " kind { skip = 0 }
		!skip { print }
		END { if (!n) { print "gen-options.sh: no " kind " block" > "/dev/stderr"; exit 1 } }
	' "$1" >"$tmp/page" && cat "$tmp/page" >"$1"
}

# A benchmark without a page yet (a new line in bench/list.h): start one
# from its table (title, summary), with the blocks filled below; its
# DESCRIPTION is then written by hand.
new_page() { # NAME PAGE
	local str='s/^"//; s/"$//'
	cat >"$2" <<EOF
.\" rb_$1.1: hand-written, except the blocks that man/gen-options.sh fills
.TH $(echo "RB_$1" | tr '[:lower:]' '[:upper:]') 1 $(date +%Y-%m-%d) rdmabench "rdmabench manual"
.SH NAME
rb_$1 \\- $(bench_field "$1" summary | sed "$str")
.SH SYNOPSIS
.B rb_$1
.RI [ OPTIONS ]
.br
.B rb_$1
.RI [ OPTIONS ] " HOST"
.SH DESCRIPTION
.B rb_$1
measures $(bench_field "$1" title | sed "$str") between two RDMA hosts
(the server without
.IR HOST ,
the client with it).
.SH OPTIONS
.\" BEGIN gen-options.sh options
.\" END gen-options.sh options
.SH OUTPUT
.\" BEGIN gen-options.sh output
.\" END gen-options.sh output
.SH EXIT STATUS
.\" BEGIN gen-options.sh exit
.\" END gen-options.sh exit
.SH SEE ALSO
.BR rb_devices (1),
.BR rdmabench (7)
EOF
	echo "gen-options.sh: wrote man/rb_$1.1: write its DESCRIPTION" >&2
}

for b in $benches; do
	page=$top/man/rb_$b.1
	[ -f "$page" ] || new_page "$b" "$page"
	tags=$(page_tags "$b")
	help_heads "rb_$b" >"$tmp/heads"
	[ -s "$tmp/heads" ] || { echo "gen-options.sh: $build/rb_$b --help lists no option" >&2; exit 1; }
	options_block "$tmp/heads" "$tags" | fill "$b" "rb_$b" >"$tmp/options"
	output_block "$tags" >"$tmp/output"
	exit_block >"$tmp/exit"
	splice "$page" options "$tmp/options"
	splice "$page" output "$tmp/output"
	splice "$page" exit "$tmp/exit"
done
common_block | sed -e 's/@SIZE@/per test/g; s/@ITERS@/per test/g; s/@TX@/per test/g' \
	-e 's/@RX@/per test/g; s/@PROG@/PROG/g' \
	>"$tmp/common"
defaults_block >"$tmp/defaults"
splice "$top/man/rdmabench.7" common-options "$tmp/common"
splice "$top/man/rdmabench.7" defaults "$tmp/defaults"
mpi_names_block >"$tmp/mpi-names"
splice "$top/man/rb_mpi.1" bench-names "$tmp/mpi-names"
mpi_bw_names_block >"$tmp/mpi-bw-names"
splice "$top/man/rb_mpi.1" background-names "$tmp/mpi-bw-names"
echo "gen-options.sh: updated man/rb_*.1, man/rdmabench.7 and rb_mpi(1)'s --bench and --background from $build" >&2
