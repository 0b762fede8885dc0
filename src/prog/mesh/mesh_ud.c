/* One UD endpoint per local NIC: see mesh_ud.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "prog/mesh/mesh_ud.h"

#define MUD_RECVS 256                   /* receive slots */
#define MUD_SENDS 128                   /* send slots (probes and replies) */
#define MUD_GRH 40
#define MUD_SLOT 128                    /* GRH + frame, rounded up */
#define MUD_BATCH 32

struct mud_ah {                         /* the reply cache: one entry a hash slot */
	uint8_t gid[16];
	uint32_t qpn;
	struct ibv_ah *ah;
};

struct mesh_ud {
	enum mesh_cm_kind kind;         /* first: what the listener's context says */
	struct mesh_nic nic;
	uint64_t epoch;
	struct rdma_cm_id *lid;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;    /* the CQ's events: the agent's poll() sleeps on it */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *buf;                   /* MUD_RECVS receive slots, then MUD_SENDS send slots */
	struct ibv_mr *mr;
	int free_send[MUD_SENDS], nfree;
	struct mud_ah *cache;
	int ncache;
	unsigned events;                /* CQ events got, not yet acked */
	bool broken;                    /* a receive failed (port down): reset the QP */
	struct mud_stats st;
};

static int fail(char *why, size_t len, const char *what, const struct mesh_nic *n, int err)
{
	snprintf(why, len, "%s (%s %s, %s): %s", what, n->nic, n->ip, n->host, strerror(err));
	return -err;
}

static int nic_addr(const struct mesh_nic *n, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, n->ip, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		return 0;
	}
	if (inet_pton(AF_INET6, n->ip, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		return 0;
	}
	return -EINVAL;
}

int mesh_nic_sockaddr(const struct mesh_nic *n, uint16_t port, struct sockaddr_storage *ss)
{
	return nic_addr(n, port, ss);
}

static uint8_t *recv_slot(struct mesh_ud *u, int i)
{
	return u->buf + (size_t)i * MUD_SLOT;
}

static uint8_t *send_slot(struct mesh_ud *u, int i)
{
	return u->buf + (size_t)(MUD_RECVS + i) * MUD_SLOT;
}

static int post_recv(struct mesh_ud *u, int i)
{
	struct ibv_sge sge = { (uintptr_t)recv_slot(u, i), MUD_SLOT, u->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(u->qp, &wr, &bad);
}

/* INIT (the port space's qkey), RTR, RTS: a UD QP needs no peer. */
static int qp_ready(struct mesh_ud *u)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
				 .port_num = u->lid->port_num, .qkey = RDMA_UDP_QKEY };

	if (ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return errno ? errno : EIO;
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if (ibv_modify_qp(u->qp, &a, IBV_QP_STATE))
		return errno ? errno : EIO;
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 0 };
	return ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? (errno ? errno : EIO) : 0;
}

static int make_qp(struct mesh_ud *u)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = u->cq, .recv_cq = u->cq, .qp_type = IBV_QPT_UD, .sq_sig_all = 1,
		.cap = { .max_send_wr = MUD_SENDS, .max_recv_wr = MUD_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	u->qp = ibv_create_qp(u->pd, &ia);
	return u->qp ? qp_ready(u) : (errno ? errno : ENOMEM);
}

static int make_verbs(struct mesh_ud *u)
{
	size_t bytes = (size_t)(MUD_RECVS + MUD_SENDS) * MUD_SLOT;

	u->pd = ibv_alloc_pd(u->lid->verbs);
	if (!u->pd)
		return errno ? errno : ENOMEM;
	u->cc = ibv_create_comp_channel(u->lid->verbs);
	if (!u->cc || fcntl(u->cc->fd, F_SETFL, fcntl(u->cc->fd, F_GETFL) | O_NONBLOCK))
		return errno ? errno : ENOMEM;
	u->cq = ibv_create_cq(u->lid->verbs, MUD_RECVS + MUD_SENDS, NULL, u->cc, 0);
	u->buf = calloc(1, bytes);
	if (!u->cq || !u->buf || ibv_req_notify_cq(u->cq, 0))
		return errno ? errno : ENOMEM;
	u->mr = ibv_reg_mr(u->pd, u->buf, bytes, IBV_ACCESS_LOCAL_WRITE);
	if (!u->mr)
		return errno ? errno : ENOMEM;
	return make_qp(u);
}

static int post_all_recvs(struct mesh_ud *u)
{
	for (int i = 0; i < MUD_RECVS; i++)
		if (post_recv(u, i))
			return errno ? errno : EIO;
	for (int i = 0; i < MUD_SENDS; i++)
		u->free_send[i] = i;
	u->nfree = MUD_SENDS;
	return 0;
}

static int listen_on(struct mesh_ud *u, struct rdma_event_channel *ch, uint16_t port,
		     char *why, size_t len)
{
	struct sockaddr_storage ss;

	if (nic_addr(&u->nic, port, &ss))
		return fail(why, len, "not an IP address", &u->nic, EINVAL);
	if (rdma_create_id(ch, &u->lid, u, RDMA_PS_UDP))
		return fail(why, len, "rdma_create_id", &u->nic, errno);
	if (rdma_bind_addr(u->lid, (struct sockaddr *)&ss))
		return fail(why, len, "rdma_bind_addr (is the address on an RDMA device?)", &u->nic, errno);
	if (!u->lid->verbs)
		return fail(why, len, "rdma_bind_addr gave no device", &u->nic, ENODEV);
	if (rdma_listen(u->lid, 64))
		return fail(why, len, "rdma_listen (is the port in use by another agent?)", &u->nic, errno);
	return 0;
}

int mud_open(struct mesh_ud **out, struct rdma_event_channel *ch, const struct mesh_nic *nic,
	     uint16_t port, uint64_t epoch, int ah_cache, char *why, size_t len)
{
	struct mesh_ud *u = calloc(1, sizeof(*u));
	int err;

	*out = NULL;
	if (!u)
		return -ENOMEM;
	*u = (struct mesh_ud){ .kind = MCM_LISTEN, .nic = *nic, .epoch = epoch, .ncache = ah_cache };
	u->cache = calloc((size_t)ah_cache, sizeof(*u->cache));
	err = u->cache ? listen_on(u, ch, port, why, len) : -ENOMEM;
	if (!err && (err = make_verbs(u)) == 0)
		err = post_all_recvs(u);
	if (err > 0)
		err = fail(why, len, "the UD QP, its CQ or its memory", nic, err);
	if (err) {
		mud_close(u);
		return err;
	}
	*out = u;
	return 0;
}

void mud_close(struct mesh_ud *u)
{
	if (!u)
		return;
	for (int i = 0; i < u->ncache; i++)
		if (u->cache[i].ah)
			ibv_destroy_ah(u->cache[i].ah);
	if (u->qp)
		ibv_destroy_qp(u->qp);
	if (u->mr)
		ibv_dereg_mr(u->mr);
	if (u->cq) {
		ibv_ack_cq_events(u->cq, u->events);
		ibv_destroy_cq(u->cq);
	}
	if (u->cc)
		ibv_destroy_comp_channel(u->cc);
	if (u->pd)
		ibv_dealloc_pd(u->pd);
	if (u->lid)
		rdma_destroy_id(u->lid);
	free(u->buf);
	free(u->cache);
	free(u);
}

int mud_fd(const struct mesh_ud *u) { return u->cc->fd; }
struct ibv_pd *mud_pd(const struct mesh_ud *u) { return u->pd; }
const struct mesh_nic *mud_nic(const struct mesh_ud *u) { return &u->nic; }
const struct mud_stats *mud_stats(const struct mesh_ud *u) { return &u->st; }

void mud_on_request(struct mesh_ud *u, struct rdma_cm_id *req)
{
	uint8_t pd[PW_EPOCH_LEN];
	struct rdma_conn_param p = { .private_data = pd, .private_data_len = sizeof(pd),
				     .qp_num = u->qp->qp_num };

	pw_epoch_put(u->epoch, pd);
	if (rdma_accept(req, &p))
		log_warn("%s: SIDR accept failed: %s", u->nic.nic, strerror(errno));
}

static int post_send(struct mesh_ud *u, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey,
		     const struct pw_frame *f)
{
	int slot;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (!u->nfree)
		return -EAGAIN;
	slot = u->free_send[--u->nfree];
	pw_encode(f, send_slot(u, slot));
	sge = (struct ibv_sge){ (uintptr_t)send_slot(u, slot), PW_LEN, u->mr->lkey };
	wr.wr_id = (uint64_t)(MUD_RECVS + slot);
	wr.sg_list = &sge;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	if (ibv_post_send(u->qp, &wr, &bad)) {
		u->free_send[u->nfree++] = slot;
		u->st.send_errors++;
		return -(errno ? errno : EIO);
	}
	return 0;
}

int mud_probe(struct mesh_ud *u, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey,
	      const struct pw_frame *f)
{
	return post_send(u, ah, qpn, qkey, f);
}

/* The cached AH back to (sender, qpn), made from the completion on a miss. */
static struct ibv_ah *reply_ah(struct mesh_ud *u, const struct ibv_wc *wc, const uint8_t *grh)
{
	uint8_t sgid[16];
	uint32_t h = wc->src_qp * 2654435761u;
	struct mud_ah *e;

	pw_sender_gid(grh, sgid);     /* keyed by the sender, not by bytes 8..23 (see there) */
	for (int i = 0; i < 16; i++)
		h = (h ^ sgid[i]) * 16777619u;
	e = &u->cache[h % (uint32_t)u->ncache];
	if (e->ah && e->qpn == wc->src_qp && !memcmp(e->gid, sgid, 16))
		return e->ah;
	if (e->ah)
		ibv_destroy_ah(e->ah);
	e->ah = ibv_create_ah_from_wc(u->pd, (struct ibv_wc *)wc, (struct ibv_grh *)grh,
				      u->lid->port_num);
	e->qpn = wc->src_qp;
	memcpy(e->gid, sgid, 16);
	if (getenv("RB_MESH_DEBUG"))
		log_info("%s/%s (qpn %u): reply AH to qpn %u gid ..%02x%02x: %p", u->nic.host, u->nic.nic,
			 u->qp->qp_num, wc->src_qp, sgid[14], sgid[15], (void *)e->ah);
	return e->ah;
}

static void answer(struct mesh_ud *u, const struct ibv_wc *wc, const uint8_t *grh,
		   const struct pw_frame *p, uint64_t t_rx)
{
	struct ibv_ah *ah = (wc->wc_flags & IBV_WC_GRH) ? reply_ah(u, wc, grh) : NULL;
	struct pw_frame r;

	u->st.probes_in++;
	if (!ah) {
		u->st.reply_drops++;
		return;
	}
	pw_reply(p, u->epoch, t_rx, clock_monotonic_ns(), &r);
	if (post_send(u, ah, wc->src_qp, RDMA_UDP_QKEY, &r))
		u->st.reply_drops++;
	else
		u->st.replies_out++;
}

static void on_recv(struct mesh_ud *u, const struct ibv_wc *wc, uint64_t now, mud_reply_fn fn,
		    void *ctx)
{
	int i = (int)wc->wr_id;
	const uint8_t *grh = recv_slot(u, i);
	struct pw_frame f;

	if (wc->byte_len < MUD_GRH || pw_decode(grh + MUD_GRH, wc->byte_len - MUD_GRH, &f))
		u->st.bad_frames++;
	else if (f.type == PW_PROBE)
		answer(u, wc, grh, &f, now);
	else {
		u->st.replies_in++;
		fn(ctx, &f, now);
	}
	if (post_recv(u, i))
		log_warn("%s: re-posting a receive failed: %s", u->nic.nic, strerror(errno));
}

static int on_wc(struct mesh_ud *u, const struct ibv_wc *wc, uint64_t now, mud_reply_fn fn, void *ctx)
{
	if (wc->wr_id >= MUD_RECVS) {
		u->free_send[u->nfree++] = (int)(wc->wr_id - MUD_RECVS);
		if (wc->status != IBV_WC_SUCCESS)
			u->st.send_errors++;
		return 0;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		if (!u->broken)
			log_warn("%s of %s: a receive completed with %s: the QP is reset", u->nic.nic,
				 u->nic.host, ibv_wc_status_str(wc->status));
		u->broken = true;
		u->st.recv_errors++;
		return 0;
	}
	on_recv(u, wc, now, fn, ctx);
	return 0;
}

int mud_poll(struct mesh_ud *u, mud_reply_fn fn, void *ctx)
{
	struct ibv_wc wc[MUD_BATCH];
	int n = ibv_poll_cq(u->cq, MUD_BATCH, wc);
	uint64_t now = clock_monotonic_ns();

	if (n < 0)
		return -EIO;
	for (int i = 0; i < n; i++)
		if (on_wc(u, &wc[i], now, fn, ctx))
			return -EIO;
	return n;
}

/* A CQ event, if one came: take it and re-arm (acks are batched). */
static int take_event(struct mesh_ud *u)
{
	struct ibv_cq *cq;
	void *ctx;

	if (ibv_get_cq_event(u->cc, &cq, &ctx))
		return errno == EAGAIN ? 0 : -EIO;
	if (++u->events >= 64) {
		ibv_ack_cq_events(u->cq, u->events);
		u->events = 0;
	}
	return ibv_req_notify_cq(u->cq, 0) ? -EIO : 0;
}

/* A QP whose receives failed (its port went down: rxe flushes them) back
 * to RTS with every slot free and every receive posted; tried again at the
 * next drain while the port is still down. */
static void reset(struct mesh_ud *u)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[MUD_BATCH];

	if (ibv_modify_qp(u->qp, &a, IBV_QP_STATE) || qp_ready(u))
		return;
	while (ibv_poll_cq(u->cq, MUD_BATCH, wc) > 0)
		;                       /* what completed before the reset is gone with it */
	if (post_all_recvs(u))
		return;
	u->broken = false;
	u->st.resets++;
	log_warn("%s of %s: its QP reset and its receives posted again", u->nic.nic, u->nic.host);
}

int mud_drain(struct mesh_ud *u, mud_reply_fn fn, void *ctx)
{
	int n, total = 0;

	if (take_event(u))
		return -EIO;
	while ((n = mud_poll(u, fn, ctx)) > 0)
		total += n;
	if (u->broken)
		reset(u);
	return n < 0 ? n : total;
}
