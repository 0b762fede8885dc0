/*
 * The combination rules (src/cli/rules.c): each rule refused with its own
 * message, a usage error (options_parse's -EINVAL: exit 2), and a line
 * that keeps to the rules accepted.  The messages were taken from the
 * programs before the rules moved to rules.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "bench/registry.h"
#include "lib/log.h"
#include "tap.h"

struct rule_case {
	const char *bench;
	const char *args;           /* split at spaces */
	const char *message;        /* the whole error line */
};

static const struct rule_case refused[] = {
	{ "rb_send_bw", "-g -s 64",
	  "-g/--mcg is multicast UD: -c/--connection RC cannot be combined with it (give -c UD)" },
	{ "rb_send_lat", "-c UC -g",
	  "-g/--mcg is multicast UD: -c/--connection UC cannot be combined with it (give -c UD)" },
	{ "rb_send_bw", "-c UD -s 64 -M 239.1.1.1",
	  "-M/--MGID 239.1.1.1 names a multicast group: give -g/--mcg too" },
	{ "rb_send_bw", "-c UD -s 64 -g -b",
	  "-g/--mcg cannot be combined with -b/--bidirectional (one side sends, the other receives)" },
	{ "rb_send_bw", "-c UD -s 64 -g --validate",
	  "-g/--mcg cannot be combined with --validate (each receiving QP gets every sending QP's messages, some maybe lost)" },
	{ "rb_send_bw", "-c UD -s 64 -g -j 2",
	  "-g/--mcg cannot be combined with -j/--threads 2 (one group, one measuring thread)" },
	{ "rb_send_bw", "--run_infinitely -D 3",
	  "--run_infinitely runs one size until SIGINT/SIGTERM: drop -D/--duration (perftest's --run_infinitely -D N prints a line every N s: here --interval=3)" },
	{ "rb_send_bw", "--run_infinitely -n 10",
	  "--run_infinitely runs one size until SIGINT/SIGTERM: drop -n/--iters" },
	{ "rb_send_bw", "--run_infinitely -a",
	  "--run_infinitely runs one size until SIGINT/SIGTERM: drop -a/--all" },
	{ "rb_send_bw", "--min-bw 10Gb/s",
	  "--min-bw 10Gb/s applies to intervals: give --interval=SECONDS too" },
	{ "rb_send_bw", "-D 3 --interval 2.5",
	  "--interval: 2.5 s is longer than the measured window (-D 3 s less --warmup-time 0.75 s)" },
	{ "rb_send_bw", "--validate -j 2",
	  "--validate cannot be combined with -j/--threads 2 yet (a thread's row carries no check)" },
	{ "rb_send_bw", "--validate -r 8192 -s 1M",
	  "--validate: -r/--rx-depth 8192 receive buffers of 1048576 bytes on 1 QP(s) exceed 1024 MiB; lower -r or -s" },
	{ "rb_write_bw", "--validate -t 256 -s 8M",
	  "--validate: -t/--tx-depth 256 send buffers of 8388608 bytes on 1 QP(s) exceed 1024 MiB; lower -t or -s" },
	{ "rb_write_bw", "--write_with_imm -b",
	  "--write_with_imm cannot be combined with -b/--bidirectional yet (the target would send and receive at once): drop one" },
	{ "rb_write_lat", "--write_with_imm --validate",
	  "--write_with_imm cannot be combined with --validate on rb_write_lat yet (the ping-pong waits for receives, not for the payload): drop one" },
	{ "rb_write_bw", "--recv_post_list 4",
	  "--recv_post_list posts receives, which rb_write_bw's target has only with --write_with_imm: give it, or drop --recv_post_list" },
	{ "rb_send_bw", "--use_srq -r 4 --recv_post_list 8",
	  "--recv_post_list 8 is larger than -r/--rx-depth 4 (the shared queue's depth): give -r 8 or more" },
	{ "rb_send_bw", "-r 2 --recv_post_list 3",
	  "--recv_post_list 3 is larger than -r/--rx-depth 2 (each QP's receive queue): give -r 3 or more" },
	{ "rb_read_bw", "--use_srq", "--use-srq is not supported by rb_read_bw" },
	{ "rb_atomic_bw", "--use-srq", "--use-srq is not supported by rb_atomic_bw" },
	{ "rb_write_bw", "--use_srq", "--use-srq is not supported by rb_write_bw" },
	{ "rb_send_bw", "--write_with_imm", "--write-with-imm is not supported by rb_send_bw" },
	{ "rb_write_lat", "--send_with_imm", "--send-with-imm is not supported by rb_write_lat" },
	{ "rb_send_lat", "--recv_post_list 2", "--recv-post-list is not supported by rb_send_lat" },
	{ "rb_send_lat", "--load-size 4K",
	  "--load-size needs --load (e.g. --load=write_bw)" },
	{ "rb_send_lat", "--load foo",
	  "--load: unknown load benchmark 'foo' (one of send_bw, write_bw, read_bw)" },
	{ "rb_send_lat", "--load write_bw --validate",
	  "--load cannot be combined with --validate yet" },
	{ "rb_send_lat", "--load write_bw --loopback",
	  "--load cannot be combined with --loopback (run the server and the client apart) yet" },
	{ "rb_send_lat", "--load write_bw --load-compare --run_infinitely",
	  "--load-compare runs each size 6 times: drop --run_infinitely" },
	{ "rb_read_bw", "-c UD",
	  "-c/--connection: UD is not supported by rb_read_bw" },
	{ "rb_send_bw", "-R -c UD",
	  "-R/--rdma-cm supports RC and UC; UD is connected by hand (drop -R)" },
	{ "rb_send_bw", "--source-ip 10.0.0.1 host",
	  "--source-ip applies to a client with -R/--rdma-cm (without -R the source is the GID: choose it with -d and -x)" },
	{ "rb_send_bw", "--source-ip 10.0.0.1 -R",
	  "--source-ip applies to a client with -R/--rdma-cm (a server listens on --bind ADDR)" },
	{ "rb_send_bw", "--loopback host",
	  "--loopback runs both sides here: give no HOST" },
	{ "rb_send_bw", "--loopback --persistent",
	  "--loopback runs both sides here: give no --persistent" },
	{ "rb_send_bw", "-a -D 2",
	  "-a/--all and -D/--duration cannot be combined" },
	{ "rb_send_bw", "-a -s 64",
	  "-a/--all sweeps the sizes and -s/--size sets one: give one of them" },
	{ "rb_send_bw", "-n 10 -D 2",
	  "-n/--iters and -D/--duration cannot be combined (perftest measures for -D and ignores -n): drop -n" },
	{ "rb_send_bw", "-D 2 --warmup-time 2",
	  "--warmup-time: 2 s must be shorter than -D/--duration 2 s" },
	{ "rb_send_bw", "-j 2 -R",
	  "-j/--threads 2 cannot be combined with -R/--rdma_cm (it connects one thread's QPs)" },
	{ "rb_send_bw", "-j 2 --cpu 1",
	  "-j/--threads 2 cannot be combined with --cpu (each thread claims a CPU of its own)" },
	{ "rb_send_bw", "-j 2 --interval 1",
	  "-j/--threads 2 cannot be combined with --interval yet (one row of intervals per thread is not written)" },
	{ "rb_send_bw", "-j 2 --run_infinitely",
	  "-j/--threads 2 cannot be combined with --run_infinitely yet (one row of intervals per thread is not written)" },
	{ "rb_send_bw", "--use_cuda=0 --use_rocm=0",
	  "--use_cuda and --use_rocm cannot be combined: the buffers are in one GPU's memory; give one of them" },
	{ "rb_send_bw", "--use_cuda=1 --use_cuda_bus_id=0000:3b:00.0",
	  "--use_cuda=1 and --use_cuda_bus_id=0000:3b:00.0 both name the GPU: give one of them" },
	{ "rb_send_bw", "--use_cuda_dmabuf",
	  "--use_cuda_dmabuf registers CUDA memory: give --use_cuda=ID (or --use_cuda_bus_id) too" },
	{ "rb_send_bw", "--use_rocm_dmabuf --use_cuda=0",
	  "--use_rocm_dmabuf registers ROCm memory: give --use_rocm=ID too" },
	{ "rb_send_bw", "--use_cuda=0 --use-hugepages",
	  "--use-hugepages and --use_cuda cannot be combined: the buffers are in the GPU's memory" },
	{ "rb_write_bw", "--bounce --use_cuda=0 --use_cuda_dmabuf",
	  "--bounce registers a host buffer of its own: --use_cuda_dmabuf's dma-buf would never be registered; give one of them" },
	{ "rb_write_bw", "--gpu_touch=once",
	  "--gpu_touch makes the GPU touch the buffers' pages: in host memory (no --use_cuda) there is no GPU to touch them, so it means nothing there; give --use_cuda=ID (and --odp), or drop --gpu_touch" },
	{ "rb_send_bw", "--use_rocm=0 --odp --gpu_touch=infinite",
	  "--gpu_touch: the touch is CUDA's (perftest's too: CUDA and OpenCL memory only); ROCm memory is never touched: drop --gpu_touch or give --use_cuda=ID" },
	{ "rb_write_bw", "--use_cuda=0 --gpu_touch=once",
	  "--gpu_touch exercises on-demand paging: the GPU touches the pages of an ODP MR (perftest takes it only with --odp); give --odp too" },
	{ "rb_read_bw", "--use_cuda=0 --odp --gpu_touch=once --validate",
	  "--gpu_touch writes zeros into the buffer while it is in use: --validate's patterns would be overwritten (perftest refuses --data_validation with it too); drop one" },
	{ "rb_write_bw", "--use_cuda=0 --odp --gpu_touch=infinite --bounce",
	  "--gpu_touch touches the registered GPU memory, and --bounce registers a host buffer instead: drop one" },
	{ "rb_write_bw", "--use_cuda=0 --odp --gpu_touch=sometimes",
	  "--gpu-touch: 'sometimes' is not a valid value (expected once or infinite)" },
	{ "rb_atomic_bw", "--bounce",
	  "--bounce copies messages' payloads; rb_atomic_bw's atomics carry none: drop --bounce" },
	{ "rb_write_bw", "--bounce -t 256 -s 8M",
	  "--bounce: -t/--tx-depth 256 send buffers of 8388608 bytes on 1 QP(s) exceed 1024 MiB; lower -t or -s" },
	{ "rb_send_bw", "--no-numa --numa-node 0",
	  "--no-numa cannot be combined with --numa-node" },
	{ "rb_send_bw", "--no-numa --cpu 1",
	  "--no-numa cannot be combined with --cpu" },
	{ "rb_send_bw", "-l 64 -t 32",
	  "-l/--post-list 64 is larger than -t/--tx-depth 32" },
	{ "rb_send_bw", "-c UD -s 8192",
	  "-s/--size: 8192 is larger than any UD message can be (the MTU, at most 4096)" },
	{ "rb_send_lat", "--json=x.out -H x.out",
	  "--csv/--json: the results file and -H/--raw must differ" },
	{ "rb_send_lat", "--csv=x.out --raw x.out",
	  "--csv/--json: the results file and -H/--raw must differ" },
	{ "rb_write_bw", "--use_dmabuf --odp",
	  "--use-dmabuf cannot be combined with --odp (a udmabuf is shared memory of ordinary pages, registered through its dma-buf): drop one" },
	{ "rb_write_bw", "--use-dmabuf --bounce",
	  "--use-dmabuf (host memory as a dma-buf) cannot be combined with --bounce (the dma-buf would never be registered): drop one" },
	{ "rb_write_bw", "--use-dmabuf --use_hugepages",
	  "--use-dmabuf cannot be combined with --use-hugepages (a udmabuf is shared memory of ordinary pages, registered through its dma-buf): drop one" },
	{ "rb_write_bw", "--output=latency",
	  "--output=latency does not fit rb_write_bw, a bandwidth test: give --output=bandwidth or --output=message_rate" },
	{ "rb_read_lat", "--output bandwidth",
	  "--output=bandwidth does not fit rb_read_lat, a latency test: give --output=latency" },
	{ "rb_send_lat", "--output=message_rate",
	  "--output=message_rate does not fit rb_send_lat, a latency test: give --output=latency" },
	{ "rb_send_bw", "--output=bandwidth --csv",
	  "--output prints one number on stdout; --csv/--json print the table: give one of them" },
	{ "rb_write_bw", "-Q 64 -t 32",
	  "-Q/--cq-mod 64 is larger than -t/--tx-depth 32 (a completion is requested at least every -t sends): give -Q 32 or less, or a larger -t" }
};

/* Path control (cli/path.c): the rule and --flow_label's list. */
static const struct rule_case path_refused[] = {
	{ "rb_write_bw", "-c UC --retry_count 3",
	  "--retry_count 3: UC QPs do not retransmit (the retry count is RC's); drop --retry_count or give -c RC" },
	{ "rb_send_bw", "-c UD --retry_count=0",
	  "--retry_count 0: UD QPs do not retransmit (the retry count is RC's); drop --retry_count or give -c RC" },
	{ "rb_write_bw", "--flow_label=1,0x100000",
	  "--flow-label: 0x100000 is out of range (a flow label 0..0xFFFFF (20 bits; 0x.. hex, 0.. octal), or a comma-separated list of them)" },
	{ "rb_write_bw", "--flow_label=1,,2",
	  "--flow-label: '(an empty item)' is not a valid value (expected a flow label 0..0xFFFFF (20 bits; 0x.. hex, 0.. octal), or a comma-separated list of them)" },
	{ "rb_write_bw", "--flow_label=-1",
	  "--flow-label: '-1' is not a valid value (expected a flow label 0..0xFFFFF (20 bits; 0x.. hex, 0.. octal), or a comma-separated list of them)" },
	{ "rb_write_bw", "--flow_label=0x1g",
	  "--flow-label: '0x1g' is not a valid value (expected a flow label 0..0xFFFFF (20 bits; 0x.. hex, 0.. octal), or a comma-separated list of them)" },
	{ "rb_write_bw", "-L 256",
	  "-L/--hop-limit: 256 is out of range (an integer 0..255)" },
	{ "rb_write_bw", "--reversed -R",
	  "--reversed cannot be combined with -R/--rdma_cm (its connection follows who was given HOST)" },
	{ "rb_send_lat", "--reversed --load write_bw",
	  "--reversed cannot be combined with --load (its connection follows who was given HOST)" },
	{ "rb_write_bw", "--retry_count 8",
	  "--retry-count: 8 is out of range (an integer 0..7)" },
};

static const struct rule_case accepted[] = {
	{ "rb_write_bw", "-q 4 --flow_label=0x12345,0xabc -L 7 --retry_count 3 -R host", NULL },
	{ "rb_send_bw", "-c UD -s 1K --flow_label 5 --hop_limit 0 --wait_destroy 0.5 --reversed", NULL },
	{ "rb_send_bw", "-a", NULL },
	{ "rb_send_bw", "-D 3 --interval 1", NULL },
	{ "rb_send_bw", "--interval 1 --min-bw 10Gb/s", NULL },
	{ "rb_send_lat", "--load write_bw --load-compare", NULL },
	{ "rb_send_bw", "--source-ip 10.0.0.1 -R host", NULL },
	{ "rb_send_bw", "-j 2 -q 2", NULL },
	{ "rb_send_bw", "--use_srq -q 4 -c UD -s 1K --validate --send_with_imm --recv_post_list 8", NULL },
	{ "rb_send_bw", "--use-srq -j 2 -b", NULL },
	{ "rb_send_lat", "--use_srq --send-with-imm --validate", NULL },
	{ "rb_write_bw", "--write_with_imm --recv_post_list 16 --validate -q 4", NULL },
	{ "rb_write_lat", "--write-with-imm", NULL },
	{ "rb_send_bw", "-c UD -s 64 -g -q 4 -M 239.1.2.3", NULL },
	{ "rb_send_lat", "-c UD -g -M 255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0", NULL },
	{ "rb_send_bw", "-l 32 -t 32 -Q 32", NULL },
	{ "rb_send_bw", "-c UD -s 4096", NULL },
	{ "rb_send_lat", "--json=x.out -H y.out", NULL },
	{ "rb_write_bw", "--odp --use_hugepages --validate", NULL },
	{ "rb_write_bw", "--odp --gpu_touch=infinite --use_cuda=0", NULL },
	{ "rb_send_lat", "--use_cuda_bus_id=0000:3b:00.0 --gpu_touch ONCE --odp --use_cuda_dmabuf", NULL },
	{ "rb_write_bw", "-F --report_gbits -b -q 2 --output=bandwidth --out_json --out_json_file=x.json", NULL },
	{ "rb_send_bw", "--output message_rate -N --noPeak --report-both --cpu_util", NULL },
	{ "rb_read_lat", "--output=latency --out_json", NULL },
};

static int parse_line(const struct rule_case *k, struct rb_options *o)
{
	const struct rb_bench *b = bench_find(k->bench);
	char buf[256], *argv[32] = { (char *)k->bench }, *save = NULL;
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", k->args);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	log_clear_last_err();
	return b ? options_parse(argc, argv, b, o) : -ENOENT;
}

static void test_refused(const struct rule_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rule_case *k = &cases[i];
		struct rb_options o;
		int rc = parse_line(k, &o);

		ok(rc == -EINVAL && !strcmp(log_last_err(), k->message), "%s %s: exit 2, \"%s\"", k->bench,
		   k->args, k->message);
		if (rc != -EINVAL || strcmp(log_last_err(), k->message))
			printf("#   rc %d, message: %s\n", rc, log_last_err());
	}
}

static void test_accepted(void)
{
	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		struct rb_options o;

		is_int(parse_line(&accepted[i], &o), 0, accepted[i].args);
	}
}

/* --flow_label: perftest's strtol(.., 0) numbers, round-robin over the QPs. */
static void test_flow_labels(void)
{
	const struct rule_case k = { "rb_write_bw", "-q 5 --flow_label=0x12345,017,9", NULL };
	struct rb_options o;

	is_int(parse_line(&k, &o), 0, k.args);
	ok(o.flow_labels == 3 && options_flow_label(&o, 0) == 0x12345 && options_flow_label(&o, 1) == 15 &&
	   options_flow_label(&o, 2) == 9 && options_flow_label(&o, 3) == 0x12345 && options_flow_label(&o, 4) == 15,
	   "--flow_label=0x12345,017,9 on 5 QPs: 0x12345, 15, 9, 0x12345, 15 (hex, octal, decimal; round-robin)");
	ok(o.hop_limit == 64 && !o.hop_limit_given && o.retry_count == 7 && !o.retry_count_given,
	   "-L and --retry_count not given: 64 and 7");
	parse_line(&(struct rule_case){ "rb_write_bw", "-q 2", NULL }, &o);
	ok(o.flow_labels == 0 && options_flow_label(&o, 1) == 0, "no --flow_label: the label 0");
}

/* The rules hold for options set by code too (a load, a probe). */
static void test_set_by_code(void)
{
	const struct rb_bench *b = bench_find("rb_write_bw");
	struct rb_options o;

	options_init_defaults(b, &o);
	o.size = 64;
	o.size_given = true;
	o.all = true;
	log_clear_last_err();
	is_int(options_finish(b, &o), -EINVAL, "set by code: -a and -s refused");
	is_str(log_last_err(), "-a/--all sweeps the sizes and -s/--size sets one: give one of them",
	       "... with the same message");
	options_init_defaults(b, &o);
	o.tx_depth = 16;
	is_int(options_finish(b, &o), 0, "set by code: -t 16 with the default -Q");
	is_int((int)o.cq_mod, 16, "... the default -Q lowered to -t");
	options_init_defaults(b, &o);
	o.run_infinitely = true;
	is_int(options_finish(b, &o), 0, "set by code: --run_infinitely");
	ok(o.warmup_s == 1, "... its warm-up derived, 1 s");
	options_init_defaults(b, &o);
	options_set_cq_mod(&o, 200);
	o.tx_depth = 100;
	is_int(options_finish(b, &o), -EINVAL, "set by code: a given -Q above -t refused");
}

/* --output sets the format (one number); the others set their fields. */
static void test_output_format(void)
{
	struct rb_options o;

	is_int(parse_line(&accepted[sizeof(accepted) / sizeof(accepted[0]) - 3], &o), 0,
	       "the cluster script's line");
	ok(o.format == OUT_VALUE && o.pt_output == PT_OUT_BW && o.report_gbits && o.bidir,
	   "... --output=bandwidth: format OUT_VALUE, -b, --report_gbits");
	ok(o.pt_json && o.pt_json_file, "... --out_json, its file given (the words are parse_line's, gone)");
	is_int(parse_line(&accepted[sizeof(accepted) / sizeof(accepted[0]) - 2], &o), 0, "-N, --cpu_util");
	ok(o.no_peak && o.cpu_util && o.pt_output == PT_OUT_MR && !o.pt_json,
	   "... -N, --cpu_util, --output message_rate (two words), no --out_json");
}

int main(void)
{
	log_set_prog("test_rules");
	test_output_format();
	test_refused(refused, sizeof(refused) / sizeof(refused[0]));
	test_refused(path_refused, sizeof(path_refused) / sizeof(path_refused[0]));
	test_accepted();
	test_flow_labels();
	test_set_by_code();
	return tap_done();
}
