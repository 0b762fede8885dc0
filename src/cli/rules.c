/*
 * The combination rules: what no single row's range can catch, each a
 * usage error (exit 2) naming both options.  The one place they live;
 * tests/unit/test_rules.c holds a case for each.  Two values are derived
 * here too, where the rules need them: --warmup-time's default (from -D)
 * and the load's benchmark (from --load's text).
 */
#include "cli/options.h"

#include <errno.h>
#include <string.h>

#include "cli/rows.h"
#include "lib/log.h"

/* --interval, --run_infinitely and --min-bw together and with -D, -n, -a. */
static int interval_check(const struct rb_options *o)
{
	if (o->run_infinitely && o->duration_s > 0)
		return options_usage_error("--run_infinitely runs one size until SIGINT/SIGTERM: drop -D/--duration "
				   "(perftest's --run_infinitely -D N prints a line every N s: here --interval=%g)", o->duration_s);
	if (o->run_infinitely && (o->iters_given || o->all))
		return options_usage_error("--run_infinitely runs one size until SIGINT/SIGTERM: drop %s",
				   o->iters_given ? "-n/--iters" : "-a/--all");
	if (o->min_bw_text && o->interval_s <= 0)
		return options_usage_error("--min-bw %s applies to intervals: give --interval=SECONDS too",
				   o->min_bw_text);
	if (o->interval_s > 0 && o->duration_s > 0 && o->interval_s > o->duration_s - o->warmup_s)
		return options_usage_error("--interval: %g s is longer than the measured window (-D %g s less --warmup-time %g s)",
				   o->interval_s, o->duration_s, o->warmup_s);
	return 0;
}

/*
 * --validate: the send tests give each receive a buffer of its own (-r of
 * them per QP, each as large as the largest message), the bandwidth tests
 * each WR in flight (-t of them per QP); -j's rows carry no
 * check yet.  --bounce takes the same buffers.
 */
static int validate_check(const struct rb_bench *b, const struct rb_options *o)
{
	uint64_t max = o->all ? RB_SWEEP_MAX : o->size;
	const char *who = o->validate ? "--validate" : "--bounce";  /* the same buffers */

	if (!o->validate && !o->bounce)
		return 0;
	if (o->validate && o->threads > 1)
		return options_usage_error("--validate cannot be combined with -j/--threads %u yet (a thread's row carries no check)",
				   o->threads);
	if (b->verb == VERB_SEND && (uint64_t)o->rx_depth * max * o->qps > RB_VALIDATE_RX_MAX)
		return options_usage_error("%s: -r/--rx-depth %u receive buffers of %llu bytes on %u QP(s) exceed %llu MiB; lower -r or -s",
				   who, o->rx_depth, (unsigned long long)max, o->qps,
				   (unsigned long long)(RB_VALIDATE_RX_MAX >> 20));
	if (b->metric == METRIC_BW && (uint64_t)o->tx_depth * max * o->qps > RB_VALIDATE_RX_MAX)
		return options_usage_error("%s: -t/--tx-depth %u send buffers of %llu bytes on %u QP(s) exceed %llu MiB; lower -t or -s",
				   who, o->tx_depth, (unsigned long long)max, o->qps,
				   (unsigned long long)(RB_VALIDATE_RX_MAX >> 20));
	return 0;
}

/*
 * --write_with_imm, --use_srq, --recv_post_list (#36).  The target of
 * immediate writes receives a message per write: -b would need both sides
 * to post and receive (not yet).  The write ping-pong with immediate data
 * waits for its receives, not for the byte its --validate check needs.
 * A receive post list longer than the receive queue would hold receives
 * back that the sender needs.
 */
static int imm_srq_check(const struct rb_bench *b, struct rb_options *o)
{
	/* the write tests take no -r: their target's receives, perftest's
	 * DEF_RX_SEND (bandwidth), the send ping-pong's (latency) */
	if (b->verb == VERB_WRITE && o->imm)
		o->rx_depth = b->metric == METRIC_BW ? 512 : 2;
	if (b->verb == VERB_WRITE && o->imm && o->bidir)
		return options_usage_error("--write_with_imm cannot be combined with -b/--bidirectional yet (the target would send and receive at once): drop one");
	if (b->verb == VERB_WRITE && o->imm && o->validate && b->metric == METRIC_LAT)
		return options_usage_error("--write_with_imm cannot be combined with --validate on %s yet (the ping-pong waits for receives, not for the payload): drop one", b->name);
	if (b->verb == VERB_WRITE && o->recv_post_list && !o->imm)
		return options_usage_error("--recv_post_list posts receives, which %s's target has only with --write_with_imm: give it, or drop --recv_post_list", b->name);
	if (o->mcg && (o->use_srq || o->imm || o->recv_post_list))
		return options_usage_error("-g/--mcg cannot be combined with %s yet (the multicast receiver counts its QPs its own way)",
				   o->use_srq ? "--use_srq" : o->imm ? "--send_with_imm" : "--recv_post_list");
	if (o->recv_post_list > o->rx_depth)
		return options_usage_error("--recv_post_list %u is larger than -r/--rx-depth %u (%s): give -r %u or more",
				   o->recv_post_list, o->rx_depth, o->use_srq ? "the shared queue's depth" : "each QP's receive queue",
				   o->recv_post_list);
	return 0;
}

/* --gpu_touch (perftest's rules): CUDA memory registered on demand; the
 * GPU's writes (zeros) would overwrite --validate's patterns, and --bounce
 * registers a host buffer the GPU never touches. */
static int gpu_touch_check(const struct rb_options *o)
{
	if (o->gpu_touch == GPU_TOUCH_NONE)
		return 0;
	if (o->rocm_given)
		return options_usage_error("--gpu_touch: the touch is CUDA's (perftest's too: CUDA and OpenCL memory only); ROCm memory is never touched: drop --gpu_touch or give --use_cuda=ID");
	if (!o->cuda_given && !o->cuda_bus_id)
		return options_usage_error("--gpu_touch makes the GPU touch the buffers' pages: in host memory (no --use_cuda) there is no GPU to touch them, so it means nothing there; give --use_cuda=ID (and --odp), or drop --gpu_touch");
	if (!o->odp)
		return options_usage_error("--gpu_touch exercises on-demand paging: the GPU touches the pages of an ODP MR (perftest takes it only with --odp); give --odp too");
	if (o->validate)
		return options_usage_error("--gpu_touch writes zeros into the buffer while it is in use: --validate's patterns would be overwritten (perftest refuses --data_validation with it too); drop one");
	if (o->bounce)
		return options_usage_error("--gpu_touch touches the registered GPU memory, and --bounce registers a host buffer instead: drop one");
	return 0;
}

/* GPU memory (#37): one GPU kind, its dma-buf with it, not with huge pages. */
static int gpu_check(const struct rb_bench *b, const struct rb_options *o)
{
	bool cuda = o->cuda_given || o->cuda_bus_id, rocm = o->rocm_given;

	if (cuda && rocm)
		return options_usage_error("--use_cuda and --use_rocm cannot be combined: the buffers are in one GPU's memory; give one of them");
	if (o->cuda_given && o->cuda_bus_id)
		return options_usage_error("--use_cuda=%d and --use_cuda_bus_id=%s both name the GPU: give one of them",
				   o->cuda_dev, o->cuda_bus_id);
	if (o->cuda_dmabuf && !cuda)
		return options_usage_error("--use_cuda_dmabuf registers CUDA memory: give --use_cuda=ID (or --use_cuda_bus_id) too");
	if (o->rocm_dmabuf && !rocm)
		return options_usage_error("--use_rocm_dmabuf registers ROCm memory: give --use_rocm=ID too");
	if (o->bounce && (o->cuda_dmabuf || o->rocm_dmabuf))
		return options_usage_error("--bounce registers a host buffer of its own: --use_%s_dmabuf's dma-buf would never be registered; give one of them",
				   o->cuda_dmabuf ? "cuda" : "rocm");
	if (o->bounce && b->verb == VERB_ATOMIC)
		return options_usage_error("--bounce copies messages' payloads; %s's atomics carry none: drop --bounce", b->name);
	/* #36 --mr_per_qp: host memory only (a buffer per QP; GPU kinds and
	 * --bounce keep one buffer and its copies) */
	if (o->mr_per_qp && (cuda || rocm || o->bounce || o->odp || o->dmabuf))
		return options_usage_error("--mr_per_qp and %s cannot be combined: a buffer per QP is made of host memory (or huge pages), registered pinned; drop one of them",
				   o->bounce ? "--bounce" : cuda ? "--use_cuda" : rocm ? "--use_rocm" : o->odp ? "--odp" : "--use-dmabuf");
	if ((cuda || rocm) && o->hugepages)
		return options_usage_error("--use-hugepages and --use_%s cannot be combined: the buffers are in the GPU's memory",
				   cuda ? "cuda" : "rocm");
	if (gpu_touch_check(o))
		return -EINVAL;
	return 0;
}

/*
 * -g/--mcg: UD only, one direction (the server's QPs receive; send_lat:
 * each side's QP its own group), connected by hand, one measuring thread;
 * --validate's per-QP sequences do not hold where every receiving QP gets
 * every sending QP's messages and some may be lost.
 */
static int mcast_check(const struct rb_options *o)
{
	if (o->mgid_text && !o->mcg)
		return options_usage_error("-M/--MGID %s names a multicast group: give -g/--mcg too", o->mgid_text);
	if (!o->mcg)
		return 0;
	if (o->transport != TR_UD)
		return options_usage_error("-g/--mcg is multicast UD: -c/--connection %s cannot be combined with it (give -c UD)",
				   options_transport_name(o->transport));
	if (o->bidir || o->rdma_cm || o->validate)
		return options_usage_error("-g/--mcg cannot be combined with %s", o->bidir ? "-b/--bidirectional (one side sends, the other receives)" :
				   o->rdma_cm ? "-R/--rdma-cm (the QPs are connected by hand; perftest refuses it too)" :
				   "--validate (each receiving QP gets every sending QP's messages, some maybe lost)");
	if (o->threads > 1)
		return options_usage_error("-g/--mcg cannot be combined with -j/--threads %u (one group, one measuring thread)",
				   o->threads);
	return 0;
}

/* --load: its own rules (load.c), then what it does not run with yet. */
static int load_opts_check(const struct rb_bench *b, struct rb_options *o)
{
	char why[256];

	if (load_check(&o->load, b->metric == METRIC_LAT, RB_SWEEP_MAX, RB_MAX_QPS, why, sizeof(why)))
		return options_usage_error("%s", why);
	if (!o->load.bench_text)
		return 0;
	o->load_bench = (enum load_bench)load_bench_parse(o->load.bench_text);
	if (o->validate || o->loopback)
		return options_usage_error("--load cannot be combined with %s yet",
				   o->validate ? "--validate" : "--loopback (run the server and the client apart)");
	if (o->load.compare && o->run_infinitely)
		return options_usage_error("--load-compare runs each size %u times: drop --run_infinitely",
				   LOAD_COMPARE_REPS);
	return 0;
}

static bool pct_listed(const struct rb_options *o, double p)
{
	for (int i = 0; i < o->npct; i++)
		if (o->pcts[i] == p)
			return true;
	return false;
}

/* --output (perftest's one number): the test's own figure, alone on
 * stdout (its format, OUT_VALUE); --out_json_file alone writes nothing,
 * as perftest's. */
static int pt_output_check(const struct rb_bench *b, struct rb_options *o)
{
	bool lat = b->metric == METRIC_LAT;

	if (o->pt_json_file && !o->pt_json)
		log_warn("--out_json_file %s: written only with --out_json (as perftest); nothing is written",
			 o->pt_json_file);
	if (o->perftest_headers && b->metric == METRIC_LAT && o->duration_s <= 0 && !o->run_infinitely &&
	    !(pct_listed(o, 99) && pct_listed(o, 99.9)))
		return options_usage_error("--perftest-headers shows perftest's 99%% and 99.9%% percentile columns: --percentiles must list 99 and 99.9");
	if (!o->pt_output)
		return 0;
	if (lat != (o->pt_output == PT_OUT_LAT))
		return options_usage_error("--output=%s does not fit %s, a %s test: give --output=%s",
				   opt_enum_name(pt_output_names, o->pt_output), b->name,
				   lat ? "latency" : "bandwidth", lat ? "latency" : "bandwidth or --output=message_rate");
	if (o->format != OUT_HUMAN)
		return options_usage_error("--output prints one number on stdout; --csv/--json print the table: give one of them");
	o->format = OUT_VALUE;
	return 0;
}

/* The buffers' memory: --use-dmabuf is a kind of its own; --odp registers
 * ordinary (or huge) pages, and a dma-buf is registered its own way. */
static int memory_check(const struct rb_options *o)
{
	if (o->dmabuf && (o->hugepages || o->odp))
		return options_usage_error("--use-dmabuf cannot be combined with %s (a udmabuf is shared memory of ordinary pages, registered through its dma-buf): drop one",
				   o->odp ? "--odp" : "--use-hugepages");
	if (o->dmabuf && (o->cuda_given || o->cuda_bus_id || o->rocm_given || o->bounce))
		return options_usage_error("--use-dmabuf (host memory as a dma-buf) cannot be combined with %s: drop one",
				   o->bounce ? "--bounce (the dma-buf would never be registered)" : "a GPU's memory (--use_cuda, --use_rocm)");
	return 0;
}

/* Combinations that no single option's range can catch. */
static int options_check(const struct rb_bench *b, struct rb_options *o)
{
	if (!(b->transports & o->transport))
		return options_usage_error("-c/--connection: %s is not supported by %s",
				   options_transport_name(o->transport), b->name);
	if (o->rdma_cm && o->transport == TR_UD)
		return options_usage_error("-R/--rdma-cm supports RC and UC; UD is connected by hand (drop -R)");
	if (o->source_ip && (!o->rdma_cm || !o->server))
		return options_usage_error("--source-ip applies to a client with -R/--rdma-cm (%s)",
				   o->server ? "without -R the source is the GID: choose it with -d and -x"
					     : "a server listens on --bind ADDR");
	if (o->loopback && (o->server || o->persistent || o->source_ip))
		return options_usage_error("--loopback runs both sides here: give no %s", o->server ?
				   "HOST" : o->persistent ? "--persistent" : "--source-ip");
	if (o->all && o->duration_s > 0)
		return options_usage_error("-a/--all and -D/--duration cannot be combined");
	if (o->all && o->size_given)
		return options_usage_error("-a/--all sweeps the sizes and -s/--size sets one: give one of them");
	if (o->duration_s > 0 && o->iters_given)
		return options_usage_error("-n/--iters and -D/--duration cannot be combined (perftest measures for -D and ignores -n): drop -n");
	if (o->warmup_s < 0)
		o->warmup_s = o->duration_s >= 4 || o->run_infinitely ? 1 : o->duration_s / 4;
	if (o->duration_s > 0 && o->warmup_s >= o->duration_s)
		return options_usage_error("--warmup-time: %g s must be shorter than -D/--duration %g s",
				   o->warmup_s, o->duration_s);
	if (o->threads > 1 && (o->rdma_cm || o->cpu_list))
		return options_usage_error("-j/--threads %u cannot be combined with %s", o->threads,
				   o->rdma_cm ? "-R/--rdma_cm (it connects one thread's QPs)"
					      : "--cpu (each thread claims a CPU of its own)");
	if (o->threads > 1 && (o->interval_s > 0 || o->run_infinitely))
		return options_usage_error("-j/--threads %u cannot be combined with %s yet (one row of intervals per thread is not written)",
				   o->threads, o->interval_s > 0 ? "--interval" : "--run_infinitely");
	if (interval_check(o) || validate_check(b, o) || load_opts_check(b, o) || gpu_check(b, o) ||
	    mcast_check(o) || options_path_check(o) || imm_srq_check(b, o))
		return -EINVAL;
	if (pt_output_check(b, o) || memory_check(o))
		return -EINVAL;
	if (o->no_numa && (o->numa_node >= 0 || o->cpu_list))
		return options_usage_error("--no-numa cannot be combined with %s",
				   o->cpu_list ? "--cpu" : "--numa-node");
	if (o->post_list > o->tx_depth)
		return options_usage_error("-l/--post-list %u is larger than -t/--tx-depth %u",
				   o->post_list, o->tx_depth);
	if (o->transport == TR_UD && o->size > 4096 && !o->all)
		return options_usage_error("-s/--size: %llu is larger than any UD message can be (the MTU, at most 4096)",
				   (unsigned long long)o->size);
	if (o->format != OUT_HUMAN && o->out_file && (o->histogram_file || o->raw_file) &&
	    ((o->histogram_file && !strcmp(o->out_file, o->histogram_file)) ||
	     (o->raw_file && !strcmp(o->out_file, o->raw_file))))
		return options_usage_error("--csv/--json: the results file and -H/--raw must differ");
	return 0;
}

/* -Q given above -t is an error; the default is lowered to -t, and the
 * metadata's cq_mod says so. */
static int check_cq_mod(struct rb_options *o)
{
	if (o->cq_mod_given && o->cq_mod > o->tx_depth)
		return options_usage_error("-Q/--cq-mod %u is larger than -t/--tx-depth %u (a completion is requested at least every -t sends): give -Q %u or less, or a larger -t",
				   o->cq_mod, o->tx_depth, o->tx_depth);
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	return 0;
}

/* --rate_units, --rate_limit_type, --burst_size without --rate_limit. */
static const char *pace_orphan(const struct rb_options *o)
{
	if (o->rate_units_given)
		return "--rate_units";
	if (o->rate_type_given)
		return "--rate_limit_type";
	return o->burst_size_given ? "--burst_size" : NULL;
}

/* What the device paces (HW, PP) takes a bit rate, its own QPs' setup. */
static int pace_device_check(const struct rb_options *o)
{
	const char *t = o->rate_type == RT_HW ? "HW" : "PP";

	if (o->rate_units == PACE_PPS)
		return options_usage_error("--rate_limit_type=%s takes a bit rate, not --rate_units=pps: give Gbps, Mbps or MiBps (or --rate_limit_type=SW)", t);
	if (o->rate_limit * pace_pps(1, o->rate_units, 1) * 8 / 1000 < 1)
		return options_usage_error("--rate_limit_type=%s: %g %s is below the device's unit (1 kbit/s)", t,
				   o->rate_limit, pace_unit_name(o->rate_units));
	if (o->rdma_cm)
		return options_usage_error("--rate_limit_type=%s cannot be combined with -R/--rdma_cm yet (the rate is set on QPs this side connects)", t);
	if (o->burst_size_given)
		return options_usage_error("--burst_size applies to --rate_limit_type=SW (the device paces %s on its own)", t);
	return 0;
}

/*
 * Pacing (--rate_limit): its options need it; SW paces the posting loop
 * of one thread (not -j's, not -b's send loop yet) in bursts of whole -l
 * lists, -t messages unless --burst_size says.
 */
static int pace_check(const struct rb_bench *b, struct rb_options *o)
{
	unsigned burst;

	if (o->latency_gap_us && o->latency_gap_us / 1e6 > o->timeout_s / 2)
		return options_usage_error("--latency_gap %u us is over half of --timeout %g s (the peer would take the gap for a stall): raise --timeout",
				   o->latency_gap_us, o->timeout_s);
	if (!(o->rate_limit > 0))
		return pace_orphan(o) ? options_usage_error("%s applies to paced runs: give --rate_limit=RATE too",
						    pace_orphan(o)) : 0;
	if (o->threads > 1)
		return options_usage_error("--rate_limit cannot be combined with -j/--threads %u yet (one pace per run, not per thread)",
				   o->threads);
	if (o->rate_type != RT_SW)
		return pace_device_check(o);
	if (o->bidir && b->verb == VERB_SEND)
		return options_usage_error("--rate_limit cannot be combined with -b/--bidirectional on %s yet (its loop sends and receives in one pass)",
				   b->name);
	burst = o->burst_size_given ? o->burst_size : o->tx_depth;
	o->burst_size = (burst + o->post_list - 1) / o->post_list * o->post_list;
	if (o->burst_size_given && o->burst_size != burst)
		log_warn("--burst_size %u: %u, whole -l/--post-list %u lists", burst, o->burst_size, o->post_list);
	return 0;
}

int options_finish(const struct rb_bench *b, struct rb_options *o)
{
	if (options_check(b, o) || pace_check(b, o))
		return -EINVAL;
	return check_cq_mod(o);
}
