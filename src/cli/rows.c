/*
 * The benchmarks' options: one row each (optrow.h says what a row holds).
 * The order is --help's within each group.  Adding an option: a row here
 * (code 0 if it has no letter: the parser numbers it), and the code that
 * reads it (the field in struct rb_options, its default in
 * options_init_defaults() if not 0, a rule in rules.c if it combines with
 * others).  Another name of an option is one row and nothing else (help
 * NULL).  --help, both spellings, unique prefixes, the defaults shown, the
 * completion, the man pages' lists (the row's help text, or its longer
 * text in man/option-texts.roff), HELLO (PEER: a new wire id, never a
 * reused one) and the metadata (META) follow from the row.  perftest's
 * names are classified in compat.c.
 *
 * META seq: the key's place in the metadata; seq / 100 is the part
 * (options_meta) that report.c writes between keys of its own.
 */
#include "cli/rows.h"

#include "cli/bench.h"

#define F(field) OPT_FIELD(struct rb_options, field)
#define GIVEN(field) .given = OPT_GIVEN(struct rb_options, field)
#define R(lo, hi) .min = (lo), .max = (hi)
#define PEER(id, label) .peer = { (id), (label), PK_VALUE, NULL, NULL }
#define PEER_T(id, label, text) .peer = { (id), (label), PK_VALUE, NULL, (text) }
#define PEER_FN(id, label, fn, text) .peer = { (id), (label), PK_FN, (fn), (text) }
#define META(seq, key, label, when, feat) .meta = { (seq), (key), (label), (when), (feat), NULL, NULL, NULL }
#define META_ON(seq, key, label, when, on, off) .meta = { (seq), (key), (label), (when), 0, (on), (off), NULL }
#define META_FN(seq, key, label, when, fn) .meta = { (seq), (key), (label), (when), 0, NULL, NULL, (fn) }

const struct opt_name transport_names[] = { { "RC", TR_RC }, { "UC", TR_UC }, { "UD", TR_UD }, { NULL, 0 } };
const struct opt_name atomic_names[] = { { "FETCH_AND_ADD", ATOMIC_FETCH_ADD }, { "CMP_AND_SWAP", ATOMIC_CMP_SWAP }, { NULL, 0 } };

const struct opt_name pt_output_names[] = { { "bandwidth", PT_OUT_BW }, { "message_rate", PT_OUT_MR }, { "latency", PT_OUT_LAT }, { NULL, 0 } };
static const struct opt_name rate_unit_names[] = { { "Gbps", PACE_GBPS }, { "Mbps", PACE_MBPS }, { "MiBps", PACE_MIBPS }, { "pps", PACE_PPS }, { "g", PACE_GBPS }, { "M", PACE_MIBPS }, { "p", PACE_PPS }, { NULL, 0 } };
static const struct opt_name rate_type_names[] = { { "SW", RT_SW }, { "HW", RT_HW }, { "PP", RT_PP }, { NULL, 0 } };
static const struct opt_name gpu_touch_names[] = { { "once", GPU_TOUCH_ONCE }, { "infinite", GPU_TOUCH_INFINITE }, { NULL, 0 } };
static const struct opt_name clock_names[] = { { "auto", CLK_AUTO }, { "tsc", CLK_TSC }, { "monotonic", CLK_MONOTONIC }, { NULL, 0 } };

/* clang-format off */
static const struct opt_row rows[] = {
	{ "ib-dev", 'd', OT_STR, "DEV", F(ib_dev), .group = G_CONN, .help = "RDMA device (default: the first one)" },
	{ "ib-port", 'i', OT_INT, "N", F(ib_port), R(1, 255), .group = G_CONN, .help = "device port, 1..255", .show_def = 1 },
	{ "gid-index", 'x', OT_INT, "N", F(gid_index), R(0, 1023), .group = G_CONN, .help = "GID index (default: RoCE v2 IPv4-mapped, then IPv6, then v1)" },
	{ "port", 'p', OT_U16, "N", F(port), R(1, 65535), .group = G_CONN, .help = "TCP port of the out-of-band exchange", .show_def = 1 },
	{ "bind", 0, OT_STR, "ADDR", F(bind_addr), .group = G_CONN, .help = "server: listen on ADDR only (default: all)" },
	{ "connection", 'c', OT_ENUM, "TR", F(transport), .names = transport_names, .group = G_CONN, .help = "transport", .show_def = 1, PEER_T(3, "transport (-c)", peer_text_transport), META(101, "transport", "Connection type", MW_ALWAYS, 0) },
	{ "rdma-cm", 'R', OT_FLAG, NULL, F(rdma_cm), .group = G_CONN, .help = "connect the QPs with librdmacm", PEER(12, "rdma_cm (-R)"), META_ON(401, "connect", "Connection setup", MW_ALWAYS, "rdma_cm", "manual (TCP exchange)") },
	{ "mtu", 'm', OT_INT, "BYTES", F(mtu), .parse = opt_parse_mtu, .group = G_CONN, .help = "path MTU 256..4096 (default: the smaller active MTU)" },
	{ "qp-timeout", 'u', OT_UINT, "N", F(qp_timeout), R(0, 31), .group = G_CONN, .help = "QP ack timeout 4.096us*2^N, 0..31", .show_def = 1 },
	{ "sl", 'S', OT_UINT, "N", F(sl), R(0, 15), GIVEN(sl_given), .group = G_CONN, .help = "service level 0..15", .show_def = 1 },
	{ "tclass", 0, OT_INT, "N", F(tclass), R(0, 255), .group = G_CONN, .help = "traffic class 0..255 (with -R: the rdma_cm ToS)" },
	{ "source-ip", 0, OT_STR, "ADDR", F(source_ip), .parse = opt_parse_ip, .group = G_CONN, .help = "client with -R: bind rdma_cm to this local address" },
	{ "bind-source-ip", 0, OT_STR, "ADDR", F(source_ip), .parse = opt_parse_ip, .group = G_CONN },
	/* path control (#36, cli/path.c) */
	{ "flow-label", 0, OT_CUSTOM, "LIST", F(flow_label), .parse = opt_parse_flow_label, .group = G_CONN, .help = "GRH flow label(s) 0..0xFFFFF, comma-separated: QP i gets the (i mod n)-th (RoCE v2: it picks the source port)", META_FN(470, "flow_labels", "Flow labels", MW_ALWAYS, meta_flow_labels) },
	{ "hop-limit", 'L', OT_INT, "N", F(hop_limit), R(0, 255), GIVEN(hop_limit_given), .group = G_CONN, .help = "GRH hop limit 0..255 (RoCE v2 over IPv4: the TTL)", .show_def = 1, META_FN(471, "hop_limit", "Hop limit", MW_ALWAYS, meta_hop_limit) },
	{ "retry-count", 0, OT_UINT, "N", F(retry_count), R(0, 7), GIVEN(retry_count_given), .group = G_CONN, .help = "RC: transport retries 0..7 before a QP fails (with -R: rdma_cm's retry_count)", .show_def = 1, PEER(70, "retry count (--retry_count)"), META_FN(472, "retry_count", "Retry count", MW_ALWAYS, meta_retry_count) },
	{ "reversed", 0, OT_FLAG, NULL, F(reversed), .group = G_CONN, .help = "swap the parts: the server (no HOST) sends and reports as the client, the client (HOST) receives", PEER(71, "reversed roles (--reversed)"), META_ON(474, "reversed", "Reversed", MW_SET, "yes: the side without HOST took the client's part", NULL) },
	{ "wait-destroy", 0, OT_SECONDS, "SECONDS", F(wait_destroy_s), R(0, 86400), .group = G_CONN, .help = "after the results, wait SECONDS before destroying the QPs, CQs, MRs and PD", META(473, "wait_destroy_s", "Wait before destroy[s]", MW_SET, 0) },
	{ "persistent", 0, OT_FLAG, NULL, F(persistent), .group = G_CONN, .help = "server: serve clients one after another" },
	{ "loopback", 0, OT_FLAG, NULL, F(loopback), .group = G_CONN, .help = "run the server and the client here, in one command" },
	{ "timeout", 0, OT_SECONDS, "SECONDS", F(timeout_s), R(0.1, 3600), .group = G_CONN, .help = "deadline for a silent peer or a stalled queue", .show_def = 1 },
	{ "size", 's', OT_SIZE, "BYTES", F(size), R(1, 1u << 30), GIVEN(size_given), .expect = "a size 1..1G, K/M/G suffixes", .feat = FEAT_SIZE, .group = G_TEST, .help = "message size, K/M suffixes", .show_def = 1, PEER(4, "size (-s)") },
	{ "all", 'a', OT_FLAG, NULL, F(all), .feat = FEAT_SIZE, .group = G_TEST, .help = "sweep sizes 2B..8MiB in powers of two", PEER(5, "sweep (-a)") },
	{ "iters", 'n', OT_U64, "N", F(iters), R(1, 1ULL << 40), GIVEN(iters_given), .group = G_TEST, .help = "iterations per size", .show_def = 1, PEER_FN(6, "iterations (-n)", peer_iters, NULL), META(406, "iterations", "Iterations", MW_ITERS, 0) },
	{ "duration", 'D', OT_SECONDS, "SECONDS", F(duration_s), R(0.1, 86400), .group = G_TEST, .help = "run for SECONDS instead of -n iterations", PEER_FN(7, "duration in ms (-D)", peer_duration_ms, NULL), META(404, "duration_s", "Duration[s]", MW_DURATION, 0) },
	{ "warmup", 0, OT_U64, "N", F(warmup_iters), R(0, 1ULL << 32), .feat = FEAT_LATENCY, .group = G_TEST, .help = "iterations run before measuring", .show_def = 1, PEER(9, "warm-up iterations (--warmup)"), META(407, "warmup_iterations", "Warm-up iterations", MW_ITERS, 0) },
	{ "warmup-time", 0, OT_SECONDS, "SECONDS", F(warmup_s), R(0, 3600), .group = G_TEST, .help = "with -D: warm-up excluded from the figures (default 1, or D/4 when D < 4)", PEER_FN(8, "warm-up in ms (--warmup-time)", peer_warmup_ms, NULL), META(405, "warmup_s", "Warm-up[s]", MW_TIMED, 0) },
	{ "interval", 0, OT_SECONDS, "SECONDS", F(interval_s), R(0.01, 86400), .group = G_TEST, .help = "report every SECONDS (fractions allowed) the interval just ended, then the summary", META(408, "interval_s", "Interval[s]", MW_SET, 0) },
	{ "run-infinitely", 0, OT_FLAG, NULL, F(run_infinitely), .group = G_TEST, .help = "run until SIGINT or SIGTERM (then the summary, status complete)", PEER(18, "run until stopped (--run_infinitely)"), META_ON(403, "run_infinitely", "Duration", MW_SET, "until stopped (--run_infinitely)", NULL) },
	{ "min-bw", 0, OT_CUSTOM, "RATE", F(min_bw_bps), .parse = opt_parse_rate, .feat = FEAT_BANDWIDTH, .group = G_TEST, .help = "with --interval: exit 1 naming every interval below RATE (e.g. 10Gb/s, 900MiB/s)", META_FN(409, "min_bw", "Min interval BW", MW_ALWAYS, meta_min_bw) },
	{ "qp", 'q', OT_UINT, "N", F(qps), R(1, RB_MAX_QPS), .expect = "1..1024: the QP exchange carries at most 1024 QPs a side", .feat = FEAT_QPS, .group = G_TEST, .help = "number of QPs", .show_def = 1, PEER(10, "QPs (-q)"), META(102, "qps", "Number of qps", MW_ALWAYS, 0) },
	{ "bidirectional", 'b', OT_FLAG, NULL, F(bidir), .feat = FEAT_BIDIR, .group = G_TEST, .help = "traffic in both directions", PEER(11, "bidirectional (-b)"), .meta = { 202, "bidirectional", "Bidirectional", MW_ALWAYS, FEAT_BANDWIDTH, "yes", "no", NULL } },
	{ "threads", 'j', OT_UINT, "N", F(threads), R(1, RB_MAX_THREADS), .feat = FEAT_THREADS, .group = G_TEST, .help = "N measuring threads, each with its own -q QPs, CQ, buffers and CPU", PEER(17, "threads (-j)") },
	{ "tx-depth", 't', OT_UINT, "N", F(tx_depth), R(1, 16384), .group = G_TEST, .help = "send queue depth", .show_def = 1, PEER_FN(24, "send queue depth (-t/--tx-depth)", peer_tx_depth, NULL), META(103, "tx_depth", "TX depth", MW_ALWAYS, 0) },
	{ "rx-depth", 'r', OT_UINT, "N", F(rx_depth), R(1, 16384), .feat = FEAT_RX_DEPTH, .group = G_TEST, .help = "receive queue depth", .show_def = 1, PEER_FN(26, "receive queue depth (-r/--rx-depth)", peer_rx_depth, NULL), META(104, "rx_depth", "RX depth", MW_ALWAYS, FEAT_RX_DEPTH) },
	{ "post-list", 'l', OT_UINT, "N", F(post_list), R(1, 1024), .feat = FEAT_POST_LIST, .group = G_TEST, .help = "post N work requests per ibv_post_send", .show_def = 1, PEER(14, "post list (-l)"), META(201, "post_list", "Post list", MW_ALWAYS, FEAT_BANDWIDTH) },
	{ "cq-mod", 'Q', OT_UINT, "N", F(cq_mod), R(1, 1024), GIVEN(cq_mod_given), .feat = FEAT_CQ_MOD, .group = G_TEST, .help = "request a completion every N sends, at most -t", .show_def = 1, PEER_FN(25, "completion moderation (-Q/--cq-mod)", peer_cq_mod, peer_text_given), META(105, "cq_mod", "CQ Moderation", MW_ALWAYS, FEAT_BANDWIDTH) },
	{ "outs", 'o', OT_UINT, "N", F(outs), R(1, 256), .feat = FEAT_OUTS, .group = G_TEST, .help = "outstanding RDMA reads/atomics per QP (default: the smaller device maximum of both sides)" },
	{ "inline-size", 'I', OT_INT, "BYTES", F(inline_size), R(0, 4096), .feat = FEAT_INLINE, .group = G_TEST, .help = "inline sends of up to BYTES, never above the device's grant", .show_def = 1, PEER_FN(27, "inline size (-I/--inline_size)", peer_inline, peer_text_inline) },
	{ "disable-pcie-relaxed", 0, OT_FLAG, NULL, F(no_relaxed), .group = G_TEST, .help = "register buffers without PCIe relaxed ordering" },
	{ "events", 'e', OT_FLAG, NULL, F(events), .feat = FEAT_EVENTS, .group = G_TEST, .help = "sleep on a completion channel instead of busy polling", PEER_FN(28, "completion events (-e/--use_event)", peer_events, peer_text_onoff), META_FN(402, "completion", "Completions", MW_ALWAYS, meta_completion) },
	{ "poll-pause", 0, OT_FLAG, NULL, F(poll_pause), .group = G_TEST, .help = "the CPU's pause instruction between empty polls, for VMs whose vCPUs share cores (also RB_POLL_PAUSE=1)" },
	{ "atomic-type", 'A', OT_ENUM, "OP", F(atomic_op), .names = atomic_names, .feat = FEAT_ATOMIC_OP, .group = G_TEST, .help = "FETCH_AND_ADD or CMP_AND_SWAP", .show_def = 1, PEER_T(13, "atomic operation (-A)", peer_text_atomic), META(301, "atomic_op", "Atomic op", MW_ALWAYS, FEAT_ATOMIC_OP) },
	{ "atomic-same-address", 0, OT_FLAG, NULL, F(atomic_same_address), .feat = FEAT_ATOMIC_OP, .group = G_TEST, .help = "every atomic of a QP on one 8-byte word (default: 64 slots, 64 B apart, as perftest)", PEER_FN(29, "one target word (--atomic-same-address)", peer_atomic_same, peer_text_onoff) },
	{ "validate", 0, OT_FLAG, NULL, F(validate), .feat = FEAT_VALIDATE, .group = G_TEST, .help = "check each message's payload (atomics: each result) where it lands; exit 1 on a mismatch", PEER(19, "payload validation (--validate)") },
	/* immediate data and shared receive queues (#36: helper immsrq, wire ids 40-49, META x40-x49) */
	{ "write-with-imm", 0, OT_FLAG, NULL, F(imm), .feat = FEAT_WRITE_IMM, .group = G_TEST, .help = "RDMA write with immediate data: each write carries its QP's sequence number, which the target receives (a receive per message) and checks", PEER_T(40, "immediate data (--write_with_imm/--send_with_imm)", peer_text_flag), .meta = { 240, "immediate_data", "Immediate data", MW_SET, FEAT_WRITE_IMM, "yes (each QP's sequence number, checked by the receiver)", NULL, NULL } },
	{ "send-with-imm", 0, OT_FLAG, NULL, F(imm), .feat = FEAT_SEND_VERB, .group = G_TEST, .help = "send with immediate data: each send carries its QP's sequence number, which the receiver checks", .meta = { 240, "immediate_data", "Immediate data", MW_SET, FEAT_SEND_VERB, "yes (each QP's sequence number, checked by the receiver)", NULL, NULL } },
	{ "use-srq", 0, OT_FLAG, NULL, F(use_srq), .feat = FEAT_SEND_VERB, .group = G_TEST, .help = "one shared receive queue (-r deep) for all of a side's QPs (-j: each thread's)", PEER_T(41, "shared receive queue (--use_srq)", peer_text_flag), META_ON(140, "srq", "Shared receive queue", MW_SET, "yes (one, -r deep, for the side's QPs)", NULL) },
	{ "recv-post-list", 0, OT_UINT, "N", F(recv_post_list), R(1, 1024), .feat = FEAT_RECV_LIST, .group = G_TEST, .help = "post receives N per ibv_post_recv (ibv_post_srq_recv) call", PEER(42, "receive post list (--recv_post_list)"), META(241, "recv_post_list", "Recv post list", MW_SET, 0) },
	{ "load", 0, OT_STR, "BENCH", F(load.bench_text), .feat = FEAT_LATENCY, .group = G_TEST, .help = "run BENCH (send_bw, write_bw, read_bw) on QPs of its own, in a thread on a CPU of its own, for the whole latency run", PEER_FN(20, "background load (--load)", peer_load, peer_text_load), META_FN(410, "load", "Load", MW_LOAD, meta_load) },
	{ "load-size", 0, OT_SIZE, "BYTES", F(load.size), GIVEN(load.size_given), .parse = opt_parse_load_size, .feat = FEAT_LATENCY, .group = G_TEST, .help = "with --load: the load's message size, K/M suffixes", .show_def = 1, PEER_FN(21, "load size (--load-size)", peer_load_size, NULL), META(411, "load_size", "Load size[B]", MW_LOAD, 0) },
	{ "load-qps", 0, OT_U64, "N", F(load.qps), R(1, RB_MAX_QPS), GIVEN(load.qps_given), .feat = FEAT_LATENCY, .group = G_TEST, .help = "with --load: the load's QPs", .show_def = 1, PEER_FN(22, "load QPs (--load-qps)", peer_load_qps, NULL), META(412, "load_qps", "Load QPs", MW_LOAD, 0) },
	{ "load-compare", 0, OT_FLAG, NULL, F(load.compare), .feat = FEAT_LATENCY, .group = G_TEST, .help = "with --load: each size idle then loaded, interleaved, with the loaded/idle ratio of each percentile", PEER(23, "idle vs loaded (--load-compare)"), META_FN(413, "load_placement", "Load CPU", MW_LOAD, meta_load_tail) },
	/* pacing (#36): --rate_limit, --rate_units, --rate_limit_type, --burst_size, --latency_gap */
	{ "rate-limit", 0, OT_NUMBER, "RATE", F(rate_limit), R(0.001, 1e12), .feat = FEAT_BANDWIDTH, .group = G_TEST, .help = "pace the posts to RATE (--rate_units; all QPs together, payload only): bursts of --burst_size messages, each due at its own deadline", PEER_FN(50, "rate limit (--rate_limit)", peer_rate_limit, peer_text_rate), META(250, "rate_limit", "Rate limit", MW_SET, FEAT_BANDWIDTH) },
	{ "rate-units", 0, OT_ENUM, "Gbps|Mbps|MiBps|pps", F(rate_units), GIVEN(rate_units_given), .names = rate_unit_names, .feat = FEAT_BANDWIDTH, .group = G_TEST, .help = "the rate's unit: payload Gb/s, Mb/s, MiB/s or messages/s (perftest's g, M (MiB/s), p)", .show_def = 1, PEER(51, "rate units (--rate_units)"), META_FN(251, "rate_units", "Rate units", MW_ALWAYS, meta_paced) },
	{ "rate-limit-type", 0, OT_ENUM, "SW|HW|PP", F(rate_type), GIVEN(rate_type_given), .names = rate_type_names, .feat = FEAT_BANDWIDTH, .group = G_TEST, .help = "SW: the posting loop paces; HW (ibv_modify_qp_rate_limit), PP (IBV_QP_RATE_LIMIT): the device, where it can", .show_def = 1, PEER(52, "rate limiter (--rate_limit_type)"), META_FN(252, "rate_limit_type", "Rate limiter", MW_ALWAYS, meta_paced) },
	{ "burst-size", 0, OT_UINT, "N", F(burst_size), R(1, 1u << 20), GIVEN(burst_size_given), .feat = FEAT_BANDWIDTH, .group = G_TEST, .help = "with --rate_limit: messages per burst, whole -l lists (default: -t)", PEER(53, "burst size (--burst_size)"), META_FN(253, "burst_size", "Burst size", MW_ALWAYS, meta_paced) },
	{ "latency-gap", 0, OT_UINT, "USEC", F(latency_gap_us), R(0, 60000000), .feat = FEAT_LATENCY, .group = G_TEST, .help = "microseconds from each iteration's end to the next one's post (not in the samples)", PEER(54, "latency gap (--latency_gap)"), META(454, "latency_gap_us", "Latency gap[usec]", MW_SET, 0) },
	{ "clock", 0, OT_ENUM, "auto|tsc|monotonic", F(clock), .names = clock_names, .parse = opt_parse_clock, .group = G_TEST, .help = "timestamps from the TSC, from clock_gettime, or auto: the TSC where clock_gettime is slow", .show_def = 1 },
	{ "CPU-freq", 'F', OT_NOP, NULL, 0, .group = G_TEST, .help = "accepted for perftest compatibility (no effect)" },
	{ "report-gbits", 0, OT_FLAG, NULL, F(report_gbits), .feat = FEAT_BANDWIDTH, .lax = 1, .group = G_OUTPUT, .help = "human table: bandwidth in Gb/s instead of MiB/s" },
	{ "percentiles", 0, OT_CUSTOM, "LIST", F(pcts), .parse = opt_parse_pcts, .feat = FEAT_LATENCY, .group = G_OUTPUT, .help = "latency percentiles", .show_def = 1, PEER_FN(15, "percentile list (--percentiles)", peer_pcts, peer_text_list) },
	{ "csv", 0, OT_STR, "FILE", F(out_file), .parse = opt_parse_output, .opt_arg = 1, .group = G_OUTPUT, .help = "results as CSV (to FILE, or stdout)" },
	{ "json", 0, OT_STR, "FILE", F(out_file), .parse = opt_parse_output, .opt_arg = 1, .group = G_OUTPUT, .help = "results as JSON (to FILE, or stdout)" },
	{ "report-counters", 'W', OT_CUSTOM, "LIST", F(counters), .parse = opt_parse_counters, .group = G_OUTPUT, .help = "report port counters' changes: counters/NAME, hw_counters/NAME or NAME, comma-separated", PEER_FN(16, "counter list (-W)", peer_counters, peer_text_list) },
	{ "histogram", 'H', OT_STR, "FILE", F(histogram_file), .feat = FEAT_LATENCY, .group = G_OUTPUT, .help = "latency histogram as CSV to FILE" },
	{ "raw", 0, OT_STR, "FILE", F(raw_file), .feat = FEAT_LATENCY, .group = G_OUTPUT, .help = "every latency sample, in order, to FILE" },
	{ "thread-rows", 0, OT_FLAG, NULL, F(thread_rows), .feat = FEAT_THREADS, .group = G_OUTPUT, .help = "human and CSV output: a row per thread after each size's total" },
	{ "output", 0, OT_ENUM, "bandwidth|message_rate|latency", F(pt_output), .names = pt_output_names, .group = G_OUTPUT, .help = "perftest's one number a size on stdout: BW average (MiB/s, Gb/s with --report_gbits; -b: the sum), MsgRate (Mpps) or t_avg (usec); nothing else", META(414, "output", "Output", MW_SET, 0) },
	{ "out-json", 0, OT_FLAG, NULL, F(pt_json), .group = G_OUTPUT, .help = "also write perftest's JSON document (its keys and units) to --out-json-file, rewritten each size", META_ON(415, "out_json", "perftest JSON", MW_SET, "yes", NULL) },
	{ "out-json-file", 0, OT_STR, "FILE", F(pt_json_file), .group = G_OUTPUT, .help = "perftest's JSON file name (default " PT_JSON_DEFAULT_FILE " here; without --out-json nothing is written, as perftest)", META(416, "out_json_file", "perftest JSON file", MW_SET, 0) },
	{ "cpu-util", 0, OT_FLAG, NULL, F(cpu_util), .group = G_OUTPUT, .help = "CPU over the measured window: perftest's CPU_Util[%] (the host's /proc/stat) and the measuring threads' user and system %", META_ON(417, "cpu_util", "CPU utilization", MW_SET, "yes", NULL) },
	{ "no-peak", 'N', OT_FLAG, NULL, F(no_peak), .group = G_OUTPUT, .help = "bandwidth tests: no peak bandwidth (its columns empty)", META_ON(418, "no_peak", "BW peak", MW_SET, "not measured (-N)", NULL) },
	{ "noPeak", 'N', OT_FLAG, NULL, F(no_peak), .group = G_OUTPUT },
	{ "perftest-headers", 0, OT_FLAG, NULL, F(perftest_headers), .group = G_OUTPUT, .help = "human table: perftest 6.29's columns and words only (-b: the sums; -D latency: t_avg, tps average)" },
	{ "report-both", 0, OT_NOP, NULL, 0, .group = G_OUTPUT, .help = "accepted for perftest compatibility: -b's rows always show this side's, the peer's and the sum" },
	{ "verbose", 'v', OT_FLAG, NULL, F(verbose), .group = G_OUTPUT, .help = "say more on stderr (clock, placement, QP attributes)" },
	{ "numa-node", 0, OT_INT, "N", F(numa_node), R(0, 1023), .group = G_PLACE, .help = "place buffers and thread on node N (default: the device's)" },
	{ "no-numa", 0, OT_FLAG, NULL, F(no_numa), .group = G_PLACE, .help = "leave NUMA placement alone" },
	{ "disable-numa", 0, OT_FLAG, NULL, F(no_numa), .group = G_PLACE },
	{ "cpu", 0, OT_STR, "LIST", F(cpu_list), .group = G_PLACE, .help = "pin the measuring thread to LIST (e.g. 2 or 0-3)" },
	{ "use-hugepages", 0, OT_FLAG, NULL, F(hugepages), .group = G_PLACE, .help = "allocate buffers on huge pages" },
	/* #36 many MRs, payload from a file (verbs/qp_buf.c, cli/optpayload.c, engine/payload.c) */
	{ "mr-per-qp", 0, OT_FLAG, NULL, F(mr_per_qp), .feat = FEAT_QPS, .lax = 1, .group = G_PLACE, .help = "a buffer and an MR of its own for each QP (default: one of each for all QPs)", PEER(80, "MR per QP (--mr_per_qp)"), META_ON(180, "mr_per_qp", "MR per QP", MW_ALWAYS, "yes", "no") },
	{ "payload-file-path", 0, OT_STR, "FILE", F(payload_path), .parse = opt_parse_payload, .feat = FEAT_SIZE, .group = G_TEST, .help = "every message's payload from FILE, perftest's format (0xaabbccdd,... little-endian DWORDs), repeated or cut to the size; --validate checks it", PEER_FN(81, "payload (--payload_file_path)", peer_payload, peer_text_payload), META_FN(181, "payload_file", "Payload file", MW_SET, meta_payload) },
	/* #37 memory: on-demand paging, host memory as a dma-buf (helper odp) */
	{ "odp", 0, OT_FLAG, NULL, F(odp), .group = G_PLACE, .help = "register the buffers as explicit on-demand paging MRs: nothing pinned, each page faulted in on first touch", META_ON(490, "odp", "On-demand paging", MW_SET, "explicit ODP MR", NULL) },
	{ "use-dmabuf", 0, OT_FLAG, NULL, F(dmabuf), .group = G_PLACE, .help = "buffers in host memory exported as a dma-buf (/dev/udmabuf), registered with ibv_reg_dmabuf_mr" },
	/* GPU memory (#37: verbs/mem_cuda.c, mem_rocm.c) */
	{ "use-cuda", 0, OT_INT, "ID", F(cuda_dev), R(0, 1023), GIVEN(cuda_given), .group = G_PLACE, .help = "buffers in the memory of CUDA GPU ID (libcuda.so.1 loaded at run time), registered as peer memory" },
	{ "use-cuda-bus-id", 0, OT_STR, "BUS", F(cuda_bus_id), .group = G_PLACE, .help = "as --use-cuda, the GPU named by its PCI bus id (e.g. 0000:3b:00.0)" },
	{ "use-cuda-dmabuf", 0, OT_FLAG, NULL, F(cuda_dmabuf), .group = G_PLACE, .help = "with --use-cuda: register the GPU memory through a dma-buf fd (ibv_reg_dmabuf_mr)" },
	{ "use-rocm", 0, OT_INT, "ID", F(rocm_dev), R(0, 1023), GIVEN(rocm_given), .group = G_PLACE, .help = "buffers in the memory of ROCm GPU ID (libamdhip64.so loaded at run time), registered as peer memory" },
	{ "use-rocm-dmabuf", 0, OT_FLAG, NULL, F(rocm_dmabuf), .group = G_PLACE, .help = "with --use-rocm: register the GPU memory through a dma-buf fd (libhsa-runtime64's export)" },
	{ "gpu-touch", 0, OT_ENUM, "once|infinite", F(gpu_touch), .names = gpu_touch_names, .group = G_PLACE, .help = "with --use-cuda and --odp: the GPU writes a byte of each 4 KiB page of the buffer (cuMemsetD2D8Async), once before the MR is registered, or pass after pass until the buffer is freed (infinite)", META(491, "gpu_touch", "GPU touch", MW_SET, 0) },
	{ "bounce", 0, OT_FLAG, NULL, F(bounce), .feat = FEAT_BANDWIDTH, .group = G_PLACE, .help = "register a host buffer and copy each message through it (to it before a send or write, from it after a receive or read): the cost of no GPUDirect" },
	/* multicast UD (-g, -M): verbs/mcast.h */
	{ "mcg", 'g', OT_FLAG, NULL, F(mcg), .feat = FEAT_MCG, .group = G_TEST, .help = "multicast (-c UD): the server's -q QPs join a group, the client's send to it; each receiving QP's messages and losses counted", PEER(60, "multicast (-g/--mcg)"), META_ON(160, "multicast", "Multicast", MW_SET, "yes", NULL) },
	{ "MGID", 'M', OT_STR, "GID", F(mgid_text), .parse = opt_parse_mgid, .feat = FEAT_MCG, .group = G_TEST, .help = "with -g: the group, an IPv6 or IPv4 multicast address or perftest's 16 bytes (default: ::ffff:239.2.201.133 on IPv4 GIDs, ff05:0:2:c985:: on IPv6)", PEER_FN(61, "multicast group (-M/--MGID)", peer_mgid, peer_text_mgid) },
	{ "version", 'V', OT_VERSION, NULL, 0, .group = G_INFO, .help = "print the version and exit" },
	{ "help", 'h', OT_HELP, NULL, 0, .group = G_INFO, .help = "print this help and exit" },
};
/* clang-format on */

const struct opt_prog options_prog = {
	.name = "rdmabench", .rows = rows, .n = sizeof(rows) / sizeof(rows[0]),
	.both_spellings = true, .error = options_error,
	.compat = options_compat, .compat_tool = "perftest",
};
