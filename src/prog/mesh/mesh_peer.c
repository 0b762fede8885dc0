/* One peer NIC as the agent probes it: see mesh_peer.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "prog/mesh/mesh_peer.h"

#define RESOLVE_MS 1000                 /* rdma_resolve_addr/route's own timeouts */
#define RESOLVE_NS 3000000000ull        /* a whole resolution's deadline (SIDR's
					 * own retries run far longer) */
#define RETRY_NS 1000000000ull          /* between two resolutions of one peer */

static void give_up(struct mesh_peer *p, uint64_t now, const char *what, int status)
{
	if (p->state == MP_FIRST) {
		p->state = MP_DOWN;
		log_warn("%s of %s -> %s of %s (%s:%u): %s (%d); counted as loss until it answers",
			 mud_nic(p->ud)->nic, mud_nic(p->ud)->host, p->pp->nic.nic, p->pp->nic.host,
			 p->pp->nic.ip, p->port, what, status);
	}
	p->rid_done = true;
	p->next_resolve = now + RETRY_NS;
}

int mp_resolve(struct mesh_peer *p, struct rdma_event_channel *ch, uint64_t now)
{
	struct sockaddr_storage src, dst;

	p->next_resolve = now + RETRY_NS;
	if (mesh_nic_sockaddr(mud_nic(p->ud), 0, &src) || mesh_nic_sockaddr(&p->pp->nic, p->port, &dst))
		return -EINVAL;
	if (rdma_create_id(ch, &p->rid, p, RDMA_PS_UDP))
		return -errno;
	p->rid_done = false;
	p->resolve_deadline = now + RESOLVE_NS;
	if (rdma_resolve_addr(p->rid, (struct sockaddr *)&src, (struct sockaddr *)&dst, RESOLVE_MS)) {
		int err = -errno;

		rdma_destroy_id(p->rid);
		p->rid = NULL;
		return err;
	}
	return 0;
}

/* SIDR answered: an AH to the peer's QP, its epoch. */
static void resolved(struct mesh_peer *p, const struct rdma_ud_param *ud, uint64_t now)
{
	struct ibv_ah_attr a = ud->ah_attr;
	struct ibv_ah *ah = ibv_create_ah(mud_pd(p->ud), &a);
	uint64_t epoch = pw_epoch_get(ud->private_data, ud->private_data_len);

	p->rid_done = true;
	if (!ah || !epoch) {
		give_up(p, now, ah ? "the SIDR reply carried no epoch" : "ibv_create_ah failed", errno);
		if (ah)
			ibv_destroy_ah(ah);
		return;
	}
	if (p->ah)
		ibv_destroy_ah(p->ah);
	p->ah = ah;
	p->qpn = ud->qp_num;
	p->qkey = ud->qkey;
	mw_epoch(&p->w, epoch);
	if (p->state != MP_UP)
		p->next_send = now;
	p->state = MP_UP;
	if (getenv("RB_MESH_DEBUG"))
		log_info("%s/%s -> %s/%s: qpn %u qkey %x epoch %016llx, dgid ..%02x%02x sgid_index %u port %u",
			 mud_nic(p->ud)->host, mud_nic(p->ud)->nic, p->pp->nic.host, p->pp->nic.nic, p->qpn,
			 p->qkey, (unsigned long long)epoch, a.grh.dgid.raw[14], a.grh.dgid.raw[15],
			 a.grh.sgid_index, a.port_num);
}

void mp_on_event(struct mesh_peer *p, const struct rdma_cm_event *ev, uint64_t now)
{
	uint8_t pd[PW_EPOCH_LEN];
	struct rdma_conn_param cp = { .private_data = pd, .private_data_len = sizeof(pd) };

	pw_epoch_put(p->my_epoch, pd);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(p->rid, RESOLVE_MS))
			give_up(p, now, "rdma_resolve_route", errno);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rdma_connect(p->rid, &cp))
			give_up(p, now, "rdma_connect (SIDR)", errno);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		resolved(p, &ev->param.ud, now);
		break;
	default:
		give_up(p, now, rdma_event_str(ev->event), ev->status);
	}
}

static void send_due(struct mesh_peer *p, uint64_t now)
{
	struct pw_frame f = { .type = PW_PROBE, .src_epoch = p->my_epoch, .cookie = p->cookie };

	while (p->next_send <= now) {
		p->next_send += p->period_ns;
		if (p->next_send <= now)        /* a stall: skip the missed slots, never burst */
			p->next_send = now + p->period_ns;
		f.t_send = now;
		if (p->state == MP_UP) {
			f.seq = p->w.next_seq;
			if (mud_probe(p->ud, p->ah, p->qpn, p->qkey, &f))
				continue;       /* not sent: a full send queue is not the peer's fault */
		}
		mw_send(&p->w, now);
	}
}

/* Silent for half a timeout (and two periods): resolve again, keep
 * probing.  Before the timeout, so that a peer agent that restarted (a new
 * QP, a new epoch) is found while the probes sent to the old one are
 * still out: they become restarted, not lost. */
static bool silent(const struct mesh_peer *p, uint64_t now)
{
	uint64_t quiet = p->w.timeout_ns / 2 > 2 * p->period_ns ? p->w.timeout_ns / 2 : 2 * p->period_ns;

	return p->state == MP_UP && mw_silent_ns(&p->w, now) > quiet;
}

void mp_tick(struct mesh_peer *p, struct rdma_event_channel *ch, uint64_t now)
{
	if (p->rid && p->rid_done) {    /* every event of it acked: the loop acks at once */
		rdma_destroy_id(p->rid);
		p->rid = NULL;
	}
	if (p->rid && !p->rid_done && now > p->resolve_deadline)
		give_up(p, now, "no SIDR answer within 3 s (is its agent running?)", ETIMEDOUT);
	if (!p->rid && now >= p->next_resolve && (p->state != MP_UP || silent(p, now)))
		if (mp_resolve(p, ch, now))
			give_up(p, now, "rdma_create_id/rdma_resolve_addr", errno);
	mw_expire(&p->w, now);
	if (p->active && p->state != MP_FIRST)
		send_due(p, now);
}

void mp_on_reply(struct mesh_peer *p, const struct pw_frame *f, uint64_t now)
{
	uint64_t turn = f->t_tx >= f->t_rx ? f->t_tx - f->t_rx : 0;

	if (turn > now - f->t_send)
		turn = 0;
	mw_answer(&p->w, f->seq, f->dst_epoch, now - turn);
}

void mp_free(struct mesh_peer *p)
{
	if (p->rid)
		rdma_destroy_id(p->rid);
	if (p->ah)
		ibv_destroy_ah(p->ah);
	mw_free(&p->w);
}
