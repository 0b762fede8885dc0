/* Multicast UD (mcast.h): the group chosen, the QPs attached, the IP-level
 * join; all undone in reverse order. */
#include "verbs/mcast.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/options.h"
#include "lib/gid.h"
#include "lib/log.h"
#include "verbs/device.h"
#include "verbs/qp.h"

/* -M or the default of the GID's family; RoCE v2 sends to the group's IP
 * address, which must be of the source GID's family. */
static int mcast_group(struct rb_mcast *m, const struct rb_device *d, const struct rb_options *o,
		       bool second)
{
	bool v4 = gid_is_ipv4_mapped(d->gid.raw);
	char g[64];

	if (o->mgid_text)
		memcpy(m->mgid, o->mgid, sizeof(m->mgid));
	else
		gid_default_mgid(v4, m->mgid);
	if (second)
		gid_mgid_next(m->mgid);
	if (d->gid.type != GID_TYPE_ROCE_V2 || v4 == gid_is_ipv4_mapped(m->mgid))
		return 0;
	gid_format(m->mgid, g, sizeof(g));
	log_err("-g/--mcg: the group %s is %s, GID index %d is %s: RoCE v2 sends to the group's IP address in the GID's family; give -M an %s group, or -x another GID",
		g, v4 ? "IPv6" : "IPv4", d->gid.index, v4 ? "IPv4-mapped" : "IPv6", v4 ? "IPv4 (e.g. 239.1.2.3)" : "IPv6 (e.g. ff0e::1)");
	return -EINVAL;
}

static int join_socket(const struct rb_mcast *m, unsigned ifindex)
{
	bool v4 = gid_is_ipv4_mapped(m->mgid);
	int fd = socket(v4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return -errno;
	if (v4) {
		struct ip_mreqn r = { .imr_ifindex = (int)ifindex };

		memcpy(&r.imr_multiaddr, m->mgid + 12, 4);
		err = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &r, sizeof(r));
	} else {
		struct ipv6_mreq r = { .ipv6mr_interface = ifindex };

		memcpy(&r.ipv6mr_multiaddr, m->mgid, 16);
		err = setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &r, sizeof(r));
	}
	if (err) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* RoCE v2: the IP stack delivers a group's datagrams to rxe (and a switch
 * forwards them) only once the host has joined it (mcast.h). */
static int mcast_ip_join(struct rb_mcast *m, const struct rb_device *d)
{
	unsigned ifindex;
	char g[64];

	if (d->gid.type != GID_TYPE_ROCE_V2)
		return 0;
	gid_format(m->mgid, g, sizeof(g));
	ifindex = d->gid.netdev[0] ? if_nametoindex(d->gid.netdev) : 0;
	if (!ifindex) {
		log_err("-g/--mcg: GID index %d has no netdev to join the group %s on", d->gid.index, g);
		return -ENODEV;
	}
	m->join_fd = join_socket(m, ifindex);
	if (m->join_fd < 0) {
		log_err("-g/--mcg: joining the IP multicast group %s on %s failed: %s", g, d->gid.netdev,
			strerror(-m->join_fd));
		return m->join_fd;
	}
	snprintf(m->netdev, sizeof(m->netdev), "%s", d->gid.netdev);
	log_verbose("multicast: joined %s on %s", g, m->netdev);
	return 0;
}

static int mcast_attach(struct rb_qps *q, const struct rb_device *d)
{
	struct rb_mcast *m = q->mc;
	char g[64];

	gid_format(m->mgid, g, sizeof(g));
	if (q->n > d->attr.max_mcast_qp_attach) {
		log_err("-g/--mcg with -q %d: %s attaches at most %d QPs to a group (max_mcast_qp_attach): give -q %d or less",
			q->n, d->name, d->attr.max_mcast_qp_attach, d->attr.max_mcast_qp_attach);
		return -EINVAL;
	}
	for (int i = 0; i < q->n; i++) {
		int err = ibv_attach_mcast(q->qp[i], (const union ibv_gid *)m->mgid, m->mlid);

		if (err) {
			log_err("ibv_attach_mcast (QP %d, QPN 0x%06x) to the group %s failed: %s", i,
				q->qp[i]->qp_num, g, strerror(err));
			return -err;
		}
		m->attached++;
	}
	log_verbose("multicast: %d QP(s) attached to %s", m->attached, g);
	return 0;
}

static int mcast_receive(struct rb_qps *q, const struct rb_device *d, const struct rb_options *o,
			 bool second)
{
	int err = mcast_group(q->mc, d, o, second);

	q->mc->receiving = true;
	q->mc->got = calloc((size_t)q->n, sizeof(*q->mc->got));
	if (!err && !q->mc->got)
		err = -ENOMEM;
	if (!err)
		err = mcast_attach(q, d);
	return err ? err : mcast_ip_join(q->mc, d);
}

int mcast_open(struct rb_qps *q, const struct rb_device *d, const struct rb_options *o, bool receive,
	       bool second)
{
	int err = 0;

	if (d->ib_link) {
		log_err("-g/--mcg on InfiniBand (%s) needs a join at the subnet manager, which rdmabench does not make: multicast runs on RoCE",
			d->name);
		return -EOPNOTSUPP;
	}
	q->mc = calloc(1, sizeof(*q->mc));
	if (!q->mc)
		return -ENOMEM;
	q->mc->join_fd = -1;
	if (receive)
		err = mcast_receive(q, d, o, second);
	if (err)
		mcast_close(q);
	return err;
}

void mcast_close(struct rb_qps *q)
{
	struct rb_mcast *m = q->mc;

	if (!m)
		return;
	if (m->join_fd >= 0)
		close(m->join_fd);
	for (int i = m->attached - 1; i >= 0; i--)
		if (ibv_detach_mcast(q->qp[i], (const union ibv_gid *)m->mgid, m->mlid))
			log_warn("ibv_detach_mcast (QP %d) failed", i);
	free(m->got);
	free(m);
	q->mc = NULL;
}

const uint8_t *mcast_send_group(const struct rb_qps *q)
{
	return q->remote[0].gid;
}
