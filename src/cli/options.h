/*
 * Command-line options, perftest's meanings kept.  Immutable after
 * options_parse(); every number is parsed with a bounded range and an error
 * that names the option and the value.
 */
#ifndef RB_OPTIONS_H
#define RB_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/bench.h"
#include "lib/clock.h"
#include "lib/counters.h"
#include "cli/load.h"
#include "cli/optrow.h"
#include "lib/output.h"
#include "lib/pace.h"
#include "lib/stats.h"
#include "lib/wire.h"

/* -q: the QP frame of the exchange carries at most WIRE_MAX_QPS a side (a
 * limit of the wire's version 1; the CQs, sized -t x -q, meet the device's
 * max_cqe first unless -t is small: verbs/qp.c says so). */
#define RB_MAX_QPS WIRE_MAX_QPS
#define RB_MAX_THREADS 64
#define RB_SWEEP_MIN 2
#define RB_SWEEP_MAX (8u << 20)
/* the GRH hop limit and RC's retry count when not given (-L, --retry_count) */
#define RB_HOP_LIMIT_DEFAULT 64
#define RB_RETRY_COUNT_DEFAULT 7
#define RB_FLOW_LABEL_MAX 0xFFFFFu
/* --validate with sends: the most receive buffer memory it may take */
#define RB_VALIDATE_RX_MAX (UINT64_C(1) << 30)

enum rb_atomic_op { ATOMIC_FETCH_ADD, ATOMIC_CMP_SWAP };
/* --output: perftest's one number (PT_OUT_NONE: the table) */
enum pt_output { PT_OUT_NONE, PT_OUT_BW, PT_OUT_MR, PT_OUT_LAT };
/* --out_json's file when --out_json_file is not given (perftest's) */
#define PT_JSON_DEFAULT_FILE "perftest_out.json"

/* --rate_limit_type: who paces (SW: the posting loop; HW, PP: the device). */
enum rate_type { RT_SW, RT_HW, RT_PP };
/* --gpu_touch (perftest's): the GPU writes a byte of each 4 KiB page of
 * the buffer, once before registration or again and again until it is
 * freed (verbs/mem_cuda.c). */
enum gpu_touch { GPU_TOUCH_NONE, GPU_TOUCH_ONCE, GPU_TOUCH_INFINITE };

struct rb_options {
	/* device */
	const char *ib_dev;         /* NULL: first device */
	int ib_port;
	int gid_index;              /* -1: choose */
	/* connection */
	const char *server;         /* NULL: this side is the server */
	uint16_t port;
	const char *bind_addr;
	enum rb_transport transport;
	bool rdma_cm;
	int mtu;                    /* bytes, 0: the smaller active MTU */
	unsigned qp_timeout, sl;
	bool sl_given;              /* -S: with -R, override rdma_cm's SL */
	int tclass;                 /* -1: not set */
	const char *source_ip;      /* --source-ip: numeric, checked; -R client only */
	bool persistent;
	bool loopback;              /* --loopback: both sides here (loopback.c) */
	double timeout_s;           /* peer loss / stall deadline */
	/* path control (cli/path.c) */
	uint32_t flow_label[RB_MAX_QPS]; /* --flow_label: QP i gets [i % flow_labels] */
	unsigned flow_labels;       /* how many given, 0: none (the label 0) */
	int hop_limit;              /* -L: the GRH hop limit (IPv4: TTL) */
	bool hop_limit_given;
	unsigned retry_count;       /* --retry_count: RC's transport retries */
	bool retry_count_given;
	double wait_destroy_s;      /* --wait_destroy: before the teardown, 0: none */
	bool reversed;              /* --reversed: the server (no HOST) takes the client's part */
	/* run control */
	uint64_t size;
	bool size_given;            /* -s given (-a and -s are one or the other) */
	bool all;
	uint64_t iters;
	bool iters_given;           /* -n given (-n and -D are one or the other) */
	double duration_s;          /* 0: iteration mode */
	double warmup_s;            /* duration mode warm-up */
	double interval_s;          /* --interval: report every SEC, 0: off */
	bool run_infinitely;        /* --run_infinitely: until SIGINT/SIGTERM */
	double min_bw_bps;          /* --min-bw: bytes/s an interval must reach, 0: none */
	const char *min_bw_text;    /* as given, for messages */
	uint64_t warmup_iters;      /* iteration mode warm-up */
	unsigned qps;
	unsigned threads;           /* -j: measuring threads, each with qps QPs */
	bool thread_rows;           /* --thread-rows: a row per thread too */
	bool bidir;
	unsigned tx_depth, rx_depth, post_list, cq_mod, outs;
	bool cq_mod_given;          /* -Q: keep it at every size */
	int inline_size;            /* -I, -1: the test's default */
	bool no_relaxed;            /* --disable-pcie-relaxed */
	bool events;
	bool poll_pause;            /* --poll-pause (RB_POLL_PAUSE=1): pause between empty polls */
	enum rb_atomic_op atomic_op;
	bool atomic_same_address;   /* --atomic-same-address: one word per QP */
	bool validate;              /* --validate: check every message's payload */
	/* --write_with_imm (write tests), --send_with_imm (send tests): the
	 * verb with immediate data, each QP's message sequence, checked by the
	 * receiver (engine/recv.c) */
	bool imm;
	bool use_srq;               /* --use_srq: one shared receive queue for a side's QPs (send tests) */
	unsigned recv_post_list;    /* --recv_post_list: receives posted N per call; 0: not given (1) */
	bool mr_per_qp;             /* --mr_per_qp: a buffer and an MR per QP */
	const char *payload_path;   /* --payload_file_path (NULL: none): its */
	uint64_t payload_len;       /* payload's bytes (lib/payload.h), */
	uint64_t payload_hash;      /* their FNV-1a 64, */
	uint64_t payload_file_bytes;        /* and the file's size */
	/* --load, --load-size, --load-qps, --load-compare (load.h) */
	struct load_ask load;
	enum load_bench load_bench; /* LOAD_NONE: no load */
	/* pacing (#36): --rate_limit, --rate_units, --rate_limit_type, --burst_size, --latency_gap */
	double rate_limit;          /* 0: unpaced */
	enum pace_unit rate_units;  /* --rate_units (default Gbps) */
	enum rate_type rate_type;   /* --rate_limit_type (default SW) */
	bool rate_units_given, rate_type_given;
	unsigned burst_size;        /* messages per burst (rules.c: -t's when not given, whole -l lists) */
	bool burst_size_given;
	unsigned latency_gap_us;    /* --latency_gap: microseconds between latency iterations */
	/* placement */
	int numa_node;              /* -1: the device's */
	bool no_numa;
	const char *cpu_list;
	bool hugepages;
	bool odp;                   /* --odp: explicit on-demand paging MRs */
	bool dmabuf;                /* --use-dmabuf: host memory as a udmabuf dma-buf */
	/* GPU memory (verbs/mem_cuda.c, mem_rocm.c) and --bounce */
	int cuda_dev;               /* --use_cuda=ID (cuda_given) */
	bool cuda_given;
	const char *cuda_bus_id;    /* --use_cuda_bus_id=BUS */
	bool cuda_dmabuf;           /* --use_cuda_dmabuf */
	int rocm_dev;               /* --use_rocm=ID (rocm_given) */
	bool rocm_given;
	bool rocm_dmabuf;           /* --use_rocm_dmabuf */
	bool bounce;                /* --bounce: staged through a host buffer */
	enum gpu_touch gpu_touch;   /* --gpu_touch=once|infinite (CUDA memory, --odp) */
	/* output */
	bool report_gbits;
	double pcts[STATS_MAX_PCT];
	int npct;
	struct rb_counter_list counters;    /* -W */
	enum out_format format;
	const char *out_file;       /* NULL: stdout */
	const char *histogram_file;
	const char *raw_file;
	enum pt_output pt_output;   /* --output=bandwidth|message_rate|latency */
	bool pt_json;               /* --out_json: perftest's JSON document */
	const char *pt_json_file;   /* --out_json_file (NULL: PT_JSON_DEFAULT_FILE) */
	bool cpu_util;              /* --cpu_util: CPU columns */
	bool no_peak;               /* -N/--noPeak: no peak bandwidth */
	bool perftest_headers;      /* --perftest-headers: perftest's human table */
	bool verbose;
	enum clock_policy clock;    /* --clock */
	/* multicast UD: -g/--mcg, -M/--MGID (verbs/mcast.h) */
	bool mcg;
	const char *mgid_text;      /* -M as given, NULL: the default group */
	uint8_t mgid[16];           /* -M parsed */
	char cmdline[1024];
};

/* Exit codes of the suite. */
enum { RB_EXIT_OK = 0, RB_EXIT_RUNTIME = 1, RB_EXIT_USAGE = 2 };

/*
 * The options of b as data: one row each in src/cli/rows.c (cli/optrow.h),
 * read by one typed parser (cli/optparse.c); the combination rules in
 * cli/rules.c; --help in cli/help.c; the metadata they give in cli/meta.c.
 *
 * Parse argv for benchmark b.  Returns 0 (run), 1 (--help or --version was
 * printed: exit 0) or -EINVAL (a message naming the option and a hint went
 * to stderr: exit 2).
 */
int options_parse(int argc, char **argv, const struct rb_bench *b, struct rb_options *o);
void options_usage(const struct rb_bench *b, FILE *f);

/*
 * Options set by code (a load, a probe): options_init_defaults(), then the
 * fields (options_set_* where a field has a "given" twin), then
 * options_finish(): the combination rules and the values derived from
 * them, as options_parse() ends.  0 or -EINVAL (a usage error printed).
 */
void options_init_defaults(const struct rb_bench *b, struct rb_options *o);
void options_set_cq_mod(struct rb_options *o, unsigned cq_mod);
int options_finish(const struct rb_bench *b, struct rb_options *o);
/* RB_POLL_PAUSE (0 or 1): --poll-pause's default.  0 or -EINVAL. */
int options_env(struct rb_options *o);
/* "RC", "uc", ...: 0, or -EINVAL. */
int options_transport_parse(const char *name, enum rb_transport *t);

/* Both sides run a posting loop at once (-b), or a ping-pong. */
bool options_both_post(const struct rb_options *o, const struct rb_bench *b);
/* Both sides stream (-b): their queues shape each other's traffic. */
bool options_both_stream(const struct rb_options *o, const struct rb_bench *b);

/*
 * The metadata the options give (the META rows, cli/rows.c), part by part:
 * the report writes keys of its own between them.
 *   OPTIONS_META_QUEUES   transport, qps, tx_depth, rx_depth, cq_mod
 *   OPTIONS_META_POSTING  post_list, bidirectional
 *   OPTIONS_META_ATOMIC   atomic_op
 *   OPTIONS_META_RUN      connect, completion, the run's length, interval_s,
 *                         min_bw, load...
 */
enum options_meta_part {
	OPTIONS_META_QUEUES = 1, OPTIONS_META_POSTING, OPTIONS_META_ATOMIC, OPTIONS_META_RUN,
};
struct out;
void options_meta(struct out *out, const struct rb_options *o, const struct rb_bench *b,
		  enum options_meta_part part);
/* A background load's options (--load, rb_mpi --background) take the
 * measuring test's device, path and placement settings and its --timeout,
 * --verbose and clock, with no warm-up. */
void options_inherit(struct rb_options *load, const struct rb_options *o);
/* ... the path control part of it (-L, --flow_label, --retry_count). */
void options_inherit_path(struct rb_options *load, const struct rb_options *o);
/* The flow label of QP i (--flow_label round-robin; 0: none given). */
uint32_t options_flow_label(const struct rb_options *o, int i);

/* perftest's inline default of b's sends/writes on tr (qp.c asks for it). */
uint32_t options_inline_default(const struct rb_bench *b, enum rb_transport tr);
/*
 * For tests: the i-th entry of the option table (NULL past the end), as
 * --help shows its long name; the other spelling ('-'/'_') is accepted too.
 * listed_for_all: every benchmark's --help lists it.
 */
const char *options_long_name(size_t i, int *code, int *has_arg, bool *listed_for_all);

/* The benchmarks' rows (the PEER rows make HELLO: session/hello.c). */
const struct opt_prog *options_table(void);

/* "RC", "UC", "UD" */
const char *options_transport_name(enum rb_transport t);
const char *options_atomic_name(enum rb_atomic_op op);

#endif
