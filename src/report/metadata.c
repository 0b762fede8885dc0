/* The run's metadata (report.h): what ran, where, with what, and how. */
#include "report/internal.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "cli/load.h"
#include "engine/loops.h"
#include "engine/postsched.h"
#include "lib/clock.h"
#include "lib/commit.h"
#include "lib/gid.h"
#include "lib/log.h"
#include "session/cm.h"

void report_meta_time(struct out *o)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	out_meta_str(o, "timestamp_utc", "Date (UTC)", buf);
}

static void meta_device(struct report *r, const struct rb_session *s)
{
	const struct rb_device *d = &s->conn.dev;
	char gid[64];

	out_meta_str(r->out, "device", "Device", d->name);
	out_meta_u64(r->out, "port", "Port", (uint64_t)d->port);
	out_meta_u64(r->out, "gid_index", "GID index", (uint64_t)d->gid.index);
	out_meta_str(r->out, "gid_type", "GID type", gid_type_name(d->gid.type));
	gid_format(d->gid.raw, gid, sizeof(gid));
	out_meta_str(r->out, "gid", "GID", gid);
	out_meta_str(r->out, "link_layer", "Link type", d->ib_link ? "IB" : "Ethernet");
	out_meta_u64(r->out, "mtu_bytes", "MTU[B]", (uint64_t)device_mtu_bytes(s->conn.q.mtu));
}

/* What the QPs run with, read back after connection (qps_read_attrs);
 * MTU[B] above is the path MTU read back too.  The SL is the one given at
 * RTR: rxe, for one, does not report it back. */
static void meta_qp(struct report *r, const struct rb_session *s)
{
	const struct rb_qp_attrs *a = &s->conn.q.attrs;
	char addr[64];

	out_meta_u64(r->out, "service_level", "Service level", a->sl_given);
	out_meta_u64(r->out, "traffic_class", "Traffic class", a->traffic_class);
	if (s->opt->transport == TR_RC)
		out_meta_u64(r->out, "qp_timeout", "QP ack timeout", a->timeout);
	if (s->opt->rdma_cm)
		out_meta_str(r->out, "source_address", "Source address", cm_local_addr(s, addr, sizeof(addr)));
}

/* --odp: the device's ODP capabilities, and what of the buffer was in
 * memory once its ODP MR was registered (0: every page faulted in later). */
static void meta_odp(struct report *r, const struct rb_qps *q)
{
	char caps[160];

	odp_caps_text(&q->odp, caps, sizeof(caps));
	out_meta_str(r->out, "odp_caps", "ODP caps", caps);
	if (q->odp_resident == SIZE_MAX)        /* GPU memory, or mincore failed */
		out_meta_str(r->out, "odp_resident_bytes", "Resident at ODP registration[B]", "unknown");
	else
		out_meta_u64(r->out, "odp_resident_bytes", "Resident at ODP registration[B]", q->odp_resident);
}

static void meta_placement(struct report *r, const struct rb_session *s)
{
	const struct placement *p = &s->conn.place;

	if (p->node >= 0)
		out_meta_u64(r->out, "numa_node", "NUMA node", (uint64_t)p->node);
	else
		out_meta_str(r->out, "numa_node", "NUMA node", "none");
	if (s->conn.q.buf.node >= 0)
		out_meta_u64(r->out, "buffer_node", "Buffer node", (uint64_t)s->conn.q.buf.node);
	else
		out_meta_str(r->out, "buffer_node", "Buffer node", "unknown");
	out_meta_str(r->out, "memory_kind", "Memory", mem_kind_name(&s->conn.q.buf));
	out_meta_u64(r->out, "memory_page_bytes", "Memory page[B]", s->conn.q.buf.page);
	mem_meta(r->out, &s->conn.q.buf, &s->conn.q.bounce);
	if (s->opt->odp)
		meta_odp(r, &s->conn.q);
	if (p->cpu >= 0)
		out_meta_u64(r->out, "cpu", "CPU", (uint64_t)p->cpu);
	else
		out_meta_str(r->out, "cpu", "CPU", p->cpus);
	out_meta_str(r->out, "placement", "Placement", p->note);
}

/*
 * Without -Q, large messages run with fewer WRs per completion
 * (psched_cq_mod): the sizes of this run where that happens, as size:-Q
 * pairs (also each row's cq_mod column in CSV and JSON).
 */
static void meta_cq_mod(struct report *r, const struct rb_options *o)
{
	uint64_t first = o->all ? RB_SWEEP_MIN : o->size;
	uint64_t last = session_last_size(o, 0);
	char buf[320];
	size_t used = 0;

	for (uint64_t size = first; size <= last && used < sizeof(buf); size *= 2) {
		unsigned q = psched_cq_mod(o->cq_mod, o->cq_mod_given, size);

		if (q != o->cq_mod)
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%llu:%u",
						 used ? " " : "", (unsigned long long)size, q);
	}
	if (used)
		out_meta_str(r->out, "cq_mod_by_size", "CQ Moderation by size[B:WRs]", buf);
}

/* What the checks cover: --validate's method (src/engine/validate.c), the
 * atomics' result check (src/engine/wr.c). */
static void meta_checks(struct report *r, const struct rb_session *s)
{
	if (s->opt->validate)
		out_meta_str(r->out, "validate_method", "Validation method", validate_method(s->bench));
	if (s->bench->verb == VERB_ATOMIC)
		out_meta_str(r->out, "atomic_check", "Atomic results checked", atomic_check_method(s));
}

/* Where the operations land (src/engine/wr.c loop_addr_slots): atomics' slots, the
 * other bandwidth tests' cycling through RB_CYCLE_BYTES (sizes up to half
 * of it; one address above, and in latency tests). */
static void meta_addresses(struct report *r, const struct rb_session *s)
{
	const struct rb_options *o = s->opt;

	if (s->bench->verb == VERB_ATOMIC) {
		out_meta_u64(r->out, "atomic_slots", "Atomic slots",
			     o->atomic_same_address ? 1 : RB_CYCLE_BYTES / RB_LINE_BYTES);
		out_meta_u64(r->out, "atomic_stride_bytes", "Atomic slot stride[B]", RB_LINE_BYTES);
		return;
	}
	if (s->bench->metric == METRIC_LAT || (!o->all && o->size > RB_CYCLE_BYTES / 2)) {
		out_meta_str(r->out, "buffer_cycle_bytes", "Buffer cycle[B]", "fixed");
		return;
	}
	out_meta_u64(r->out, "buffer_cycle_bytes", "Buffer cycle[B]", RB_CYCLE_BYTES);
	out_meta_u64(r->out, "buffer_cycle_max_size_bytes", "Buffer cycle up to size[B]",
		     RB_CYCLE_BYTES / 2);
}

static void meta_test(struct report *r, const struct rb_session *s)
{
	const struct rb_options *o = s->opt;
	char text[32];

	options_meta(r->out, o, s->bench, OPTIONS_META_QUEUES);
	if (s->bench->metric == METRIC_BW)
		meta_cq_mod(r, o);
	options_meta(r->out, o, s->bench, OPTIONS_META_POSTING);
	if (s->bench->verb == VERB_READ || s->bench->verb == VERB_ATOMIC)
		out_meta_u64(r->out, "outstanding", "Outstand reads", s->conn.q.outs);
	options_meta(r->out, o, s->bench, OPTIONS_META_ATOMIC);
	meta_addresses(r, s);
	meta_checks(r, s);
	report_meta_mcast(r, s);
	out_meta_u64(r->out, "inline_bytes", "Max inline data[B]", s->conn.q.max_inline);
	out_meta_str(r->out, "inline", "Inline", qps_inline_text(&s->conn.q, text, sizeof(text)));
	out_meta_u64(r->out, "inline_granted", "Inline granted[B]", s->conn.q.inline_granted);
	out_meta_str(r->out, "relaxed_ordering", "PCIe relax order", qps_relaxed_text(&s->conn.q));
	options_meta(r->out, o, s->bench, OPTIONS_META_RUN);
	if (s->bench->metric == METRIC_LAT)
		out_meta_str(r->out, "latency", "Latency",
			     s->bench->lat_divisor == 2 ? "one-way = round trip / 2" : "round trip of one operation");
}

/* -j: how many threads, and each one's CPU. */
static void meta_threads(struct report *r, const struct rb_session *s)
{
	if (!s->team)
		return;
	out_meta_u64(r->out, "threads", "Threads", (uint64_t)s->team->n);
	out_meta_str(r->out, "thread_cpus", "Thread CPUs", s->team->cpus);
}

/* What ran where: also in a document that failed before it began. */
static void meta_identity(struct report *r, const struct rb_session *s)
{
	char host[128] = "";

	gethostname(host, sizeof(host) - 1);
	out_meta_str(r->out, "tool", "Tool", "rdmabench");
	out_meta_str(r->out, "version", "Version", PACKAGE_VERSION);
	out_meta_str(r->out, "commit", "Commit", rb_commit());
	out_meta_str(r->out, "test", "Test", s->bench->name);
	out_meta_str(r->out, "role", "Role", s->is_client ? "client" : "server");
	out_meta_str(r->out, "host", "Host", host);
	out_meta_str(r->out, "peer", "Peer", s->conn.peer);
}

void report_begin(struct report *r, const struct rb_session *s)
{
	/* -j: the threads' sessions hold the QPs; thread 0 speaks for all */
	const struct rb_session *q = s->team ? s->team->w[0].s : s;

	meta_identity(r, s);
	meta_device(r, q);
	meta_qp(r, q);
	meta_test(r, q);
	meta_placement(r, q);
	meta_threads(r, s);
	/* --mr_per_qp: the MRs of this side's buffers, every thread's */
	out_meta_u64(r->out, "memory_regions", "MRs", (uint64_t)qps_mr_count(&q->conn.q) * (s->team ? (unsigned)s->team->n : 1));
	out_meta_str(r->out, "clock", "Clock", clock_source());
	report_meta_time(r->out);
	out_meta_str(r->out, "command_line", "Command", s->opt->cmdline);
	out_begin(r->out, s->bench->title, r->cols, r->ncols);
	r->begun = true;
	if (ptjson_begin(r, q))
		log_err("--out_json: out of memory; the file is not written");
}

/* A document that never began (a failure before the peer was reached)
 * still says what ran. */
void report_meta_unbegun(struct report *r, const struct rb_session *s)
{
	meta_identity(r, s);
	report_meta_time(r->out);
	out_meta_str(r->out, "command_line", "Command", s->opt->cmdline);
}
