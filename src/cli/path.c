/*
 * Path control (#36): --flow_label's list, -L/--hop_limit, --retry_count,
 * their rules and their metadata.  Where each takes effect is verbs/
 * (qp_connect.c: the RTR address vector, UD's address handles, RTS's
 * retry count) and session/cm_qp.c (-R: the same on rdma_cm's attributes,
 * the retry count through rdma_conn_param).
 *
 * --flow_label as perftest 6.29 reads it (perftest_parameters.c,
 * parse_flow_label_from_str; perftest_resources.c, ctx_modify_qp_to_rtr):
 * comma-separated, each number as strtol(.., 0) reads it (0x.. hex, 0..
 * octal), and QP i gets the (i mod n)-th, round-robin.  Unlike perftest,
 * each must be a flow label, 0..0xFFFFF (20 bits), and the list is
 * refused when empty or malformed.
 */
#include "cli/options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rows.h"
#include "lib/log.h"
#include "lib/output.h"

#define FL_EXPECT "a flow label 0..0xFFFFF (20 bits; 0x.. hex, 0.. octal), or a comma-separated list of them"

/* One label of the list, [s, end): 0 or the row's error naming it. */
static int flow_label_one(const struct opt_row *r, const char *s, size_t n, uint32_t *v)
{
	char item[32], *end;
	unsigned long x;

	if (n == 0 || n >= sizeof(item))
		return options_bad_value(r, n ? s : "(an empty item)", -EINVAL, FL_EXPECT);
	memcpy(item, s, n);
	item[n] = '\0';
	errno = 0;
	x = strtoul(item, &end, 0);
	if (*end || item[0] == '-' || item[0] == '+' || item[0] == ' ')
		return options_bad_value(r, item, -EINVAL, FL_EXPECT);
	if (errno || x > RB_FLOW_LABEL_MAX)
		return options_bad_value(r, item, -ERANGE, FL_EXPECT);
	*v = (uint32_t)x;
	return 0;
}

int opt_parse_flow_label(const struct opt_row *r, const char *val, void *dst)
{
	struct rb_options *o = dst;
	const char *s = val;
	unsigned n = 0;

	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (n == RB_MAX_QPS)
			return options_bad_value(r, val, -ERANGE, "at most 1024 flow labels (one per QP)");
		if (flow_label_one(r, s, len, &o->flow_label[n]))
			return -EINVAL;
		n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	o->flow_labels = n;
	return 0;
}

uint32_t options_flow_label(const struct rb_options *o, int i)
{
	return o->flow_labels ? o->flow_label[(unsigned)i % o->flow_labels] : 0;
}

int options_path_check(const struct rb_options *o)
{
	if (o->retry_count_given && o->transport != TR_RC)
		return options_usage_error("--retry_count %u: %s QPs do not retransmit (the retry count is RC's); drop --retry_count or give -c RC",
				   o->retry_count, options_transport_name(o->transport));
	if (o->reversed && (o->rdma_cm || o->load.bench_text))
		return options_usage_error("--reversed cannot be combined with %s (its connection follows who was given HOST)",
				   o->rdma_cm ? "-R/--rdma_cm" : "--load");
	if (o->flow_labels > o->qps)
		log_warn("--flow_label: %u labels for %u QP(s) a thread: those after the first %u are not used",
			 o->flow_labels, o->qps, o->qps);
	return 0;
}

void options_inherit_path(struct rb_options *load, const struct rb_options *o)
{
	memcpy(load->flow_label, o->flow_label, sizeof(load->flow_label));
	load->flow_labels = o->flow_labels;
	load->hop_limit = o->hop_limit;
	load->hop_limit_given = o->hop_limit_given;
}

/* "0x12345,0xabc,0x12345,0xabc": the label of each QP, in QP order. */
void meta_flow_labels(struct out *out, const void *o, const struct opt_row *r)
{
	const struct rb_options *opt = o;
	size_t len = (size_t)opt->qps * 8 + 1, used = 0;
	char *text;

	if (!opt->flow_labels || !(text = malloc(len)))
		return;
	text[0] = '\0';
	for (unsigned i = 0; i < opt->qps && used < len; i++)
		used += (size_t)snprintf(text + used, len - used, "%s0x%x", i ? "," : "",
					 options_flow_label(opt, (int)i));
	out_meta_str(out, r->meta.key, r->meta.label, text);
	free(text);
}

void meta_hop_limit(struct out *out, const void *o, const struct opt_row *r)
{
	const struct rb_options *opt = o;

	if (opt->hop_limit_given)
		out_meta_u64(out, r->meta.key, r->meta.label, (uint64_t)opt->hop_limit);
}

void meta_retry_count(struct out *out, const void *o, const struct opt_row *r)
{
	const struct rb_options *opt = o;

	if (opt->retry_count_given)
		out_meta_u64(out, r->meta.key, r->meta.label, opt->retry_count);
}
