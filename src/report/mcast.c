/*
 * -g, bandwidth: the losses of multicast UD (report.h).  The sender knows
 * what it posted (m->wrs_posted: every QP, the whole loop), the receiving
 * side what each of its QPs got (q->mc->got, engine/mcast.c): each side
 * fills its part of the row, the rows are traded, and both work the
 * losses out alike.  A loss is reported, not an error: UD may drop.
 */
#include "report/internal.h"

#include "report/columns.h"
#include "lib/gid.h"
#include "lib/log.h"
#include "verbs/mcast.h"

static bool mc_receiving(const struct rb_session *s)
{
	return s->conn.q.mc && s->conn.q.mc->receiving;
}

void report_mcast(const struct report *r, const struct rb_session *s, const struct rb_measure *m,
		  union out_val *row)
{
	union out_val *c = row + r->mc_first;
	const uint64_t *got = mc_receiving(s) ? s->conn.q.mc->got : NULL;

	if (r->mc_first < 0)
		return;
	for (int i = 0; i < MC_NCOLS; i++)
		c[i].u = 0;
	if (!got) {
		c[MC_SENT].u = m->wrs_posted;
		return;
	}
	c[MC_RECV_MIN].u = UINT64_MAX;
	for (int i = 0; i < s->conn.q.n; i++) {
		c[MC_RECEIVED].u += got[i];
		c[MC_RECV_MIN].u = got[i] < c[MC_RECV_MIN].u ? got[i] : c[MC_RECV_MIN].u;
		c[MC_RECV_MAX].u = got[i] > c[MC_RECV_MAX].u ? got[i] : c[MC_RECV_MAX].u;
	}
}

/* The receiving side: each QP's count against the sender's, on stderr. */
static void mc_say(const struct rb_session *s, uint64_t sent, uint64_t lost)
{
	const uint64_t *got = s->conn.q.mc->got;
	int lossy = 0;

	for (int i = 0; i < s->conn.q.n; i++) {
		uint64_t miss = got[i] < sent ? sent - got[i] : 0;

		lossy += miss > 0;
		if (miss || s->opt->verbose)
			log_info("multicast at size %llu: QP %d (QPN 0x%06x) received %llu of %llu, lost %llu",
				 (unsigned long long)s->run.size, i, s->conn.q.qp[i]->qp_num,
				 (unsigned long long)got[i], (unsigned long long)sent, (unsigned long long)miss);
	}
	log_info("multicast at size %llu: %d receiving QP(s), each expected %llu (the sender's posted), %llu lost on %d QP(s)",
		 (unsigned long long)s->run.size, s->conn.q.n, (unsigned long long)sent,
		 (unsigned long long)lost, lossy);
}

void report_mcast_merge(const struct report *r, const struct rb_session *s, union out_val *row,
			const union out_val *peer)
{
	union out_val *c = row + r->mc_first;
	const union out_val *p = peer + r->mc_first;
	const union out_val *rx = mc_receiving(s) ? c : p;
	uint64_t sent, want;

	if (r->mc_first < 0)
		return;
	sent = mc_receiving(s) ? p[MC_SENT].u : c[MC_SENT].u;
	for (int i = MC_RECEIVED; i <= MC_RECV_MAX; i++)
		c[i] = rx[i];
	c[MC_SENT].u = c[MC_EXPECTED].u = sent;
	want = sent * (uint64_t)s->opt->qps;    /* -q: the same on both sides (HELLO) */
	c[MC_LOST].u = c[MC_RECEIVED].u < want ? want - c[MC_RECEIVED].u : 0;
	if (mc_receiving(s))
		mc_say(s, sent, c[MC_LOST].u);
}

/* What ran: the group the data go to (the server's: its own, or the one
 * the client sends to), the ping-pong's reply group (the client's), how
 * many QPs receive, and where this side joined at the IP level. */
void report_meta_mcast(struct report *r, const struct rb_session *s)
{
	const struct rb_mcast *mc = s->conn.q.mc;
	bool lat = s->bench->metric == METRIC_LAT;
	char g[64];

	if (!mc)
		return;
	gid_format(s->is_client ? mcast_send_group(&s->conn.q) : mc->mgid, g, sizeof(g));
	out_meta_str(r->out, "mgid", "Multicast group", g);
	if (lat) {
		gid_format(s->is_client ? mc->mgid : mcast_send_group(&s->conn.q), g, sizeof(g));
		out_meta_str(r->out, "mgid_reply", "Reply group", g);
	}
	out_meta_u64(r->out, "mc_recv_qps", "Receiving QPs", lat ? 1 : s->opt->qps);
	out_meta_str(r->out, "mc_ip_join", "IP join", mc->netdev[0] ? mc->netdev : "none");
}
