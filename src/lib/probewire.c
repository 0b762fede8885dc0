/* rb_mesh's probe frame: see probewire.h for the layout. */
#include <errno.h>
#include <string.h>

#include "lib/probewire.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void pw_epoch_put(uint64_t epoch, uint8_t *buf)
{
	put64(buf, epoch);
}

uint64_t pw_epoch_get(const void *data, size_t len)
{
	return data && len >= PW_EPOCH_LEN ? get64(data) : 0;
}

void pw_encode(const struct pw_frame *f, uint8_t *buf)
{
	memset(buf, 0, PW_LEN);
	put32(buf, PW_MAGIC);
	buf[4] = PW_VERSION;
	buf[5] = (uint8_t)f->type;
	put64(buf + 8, f->seq);
	put64(buf + 16, f->src_epoch);
	put64(buf + 24, f->dst_epoch);
	put64(buf + 32, f->t_send);
	put32(buf + 40, f->cookie);
	put64(buf + 48, f->t_rx);
	put64(buf + 56, f->t_tx);
}

static int header_ok(const uint8_t *buf)
{
	return get32(buf) == PW_MAGIC && buf[4] == PW_VERSION &&
	       (buf[5] == PW_PROBE || buf[5] == PW_REPLY) && !buf[6] && !buf[7] && !get32(buf + 44);
}

int pw_decode(const uint8_t *buf, size_t len, struct pw_frame *f)
{
	if (len < PW_LEN || !header_ok(buf))
		return -EBADMSG;
	f->type = (enum pw_type)buf[5];
	f->seq = get64(buf + 8);
	f->src_epoch = get64(buf + 16);
	f->dst_epoch = get64(buf + 24);
	f->t_send = get64(buf + 32);
	f->cookie = get32(buf + 40);
	f->t_rx = get64(buf + 48);
	f->t_tx = get64(buf + 56);
	if (!f->seq || !f->src_epoch || (f->type == PW_REPLY && !f->dst_epoch))
		return -EBADMSG;
	return 0;
}

void pw_reply(const struct pw_frame *p, uint64_t dst_epoch, uint64_t t_rx, uint64_t t_tx,
	      struct pw_frame *r)
{
	*r = *p;
	r->type = PW_REPLY;
	r->dst_epoch = dst_epoch;
	r->t_rx = t_rx;
	r->t_tx = t_tx;
}

void pw_sender_gid(const uint8_t *grh, uint8_t gid[16])
{
	static const uint8_t zero[20];

	if ((grh[20] >> 4) == 4 && !memcmp(grh, zero, sizeof(zero))) {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, grh + 20 + 12, 4);     /* the IPv4 header's source address */
		return;
	}
	memcpy(gid, grh + 8, 16);                       /* the GRH's source GID */
}
