/* On-demand paging's capabilities (odp.h). */
#include "verbs/odp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"

int odp_query(struct ibv_context *ctx, struct odp_caps *c)
{
	struct ibv_device_attr_ex a;
	int err;

	memset(c, 0, sizeof(*c));
	memset(&a, 0, sizeof(a));
	err = ibv_query_device_ex(ctx, NULL, &a);
	if (err)
		return -err;
	c->general = a.odp_caps.general_caps;
	c->rc = a.odp_caps.per_transport_caps.rc_odp_caps;
	c->uc = a.odp_caps.per_transport_caps.uc_odp_caps;
	c->ud = a.odp_caps.per_transport_caps.ud_odp_caps;
	return 0;
}

static uint32_t odp_needed(enum rb_verb verb)
{
	switch (verb) {
	case VERB_SEND: return IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;
	case VERB_WRITE: return IBV_ODP_SUPPORT_WRITE;
	case VERB_READ: return IBV_ODP_SUPPORT_READ;
	case VERB_ATOMIC: return IBV_ODP_SUPPORT_ATOMIC;
	}
	return 0;
}

uint32_t odp_missing(const struct odp_caps *c, enum rb_transport tr, enum rb_verb verb)
{
	uint32_t need = odp_needed(verb);
	uint32_t have = tr == TR_UD ? c->ud : tr == TR_UC ? c->uc : c->rc;

	if (!(c->general & IBV_ODP_SUPPORT))
		return need;
	if (have & IBV_ODP_SUPPORT_SRQ_RECV)    /* receives into an SRQ or not: either serves */
		have |= IBV_ODP_SUPPORT_RECV;
	return need & ~have;
}

static const struct { uint32_t bit; const char *name; } odp_names[] = {
	{ IBV_ODP_SUPPORT_SEND, "SEND" }, { IBV_ODP_SUPPORT_RECV, "RECV" },
	{ IBV_ODP_SUPPORT_WRITE, "WRITE" }, { IBV_ODP_SUPPORT_READ, "READ" },
	{ IBV_ODP_SUPPORT_ATOMIC, "ATOMIC" }, { IBV_ODP_SUPPORT_SRQ_RECV, "SRQ_RECV" },
};

void odp_bits_text(uint32_t bits, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(odp_names) / sizeof(odp_names[0]) && used < len; i++)
		if (bits & odp_names[i].bit)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 odp_names[i].name);
	if (!used)
		snprintf(buf, len, "none");
}

void odp_caps_text(const struct odp_caps *c, char *buf, size_t len)
{
	char rc[64], uc[64], ud[64];

	if (!(c->general & IBV_ODP_SUPPORT)) {
		snprintf(buf, len, "none");
		return;
	}
	odp_bits_text(c->rc, rc, sizeof(rc));
	odp_bits_text(c->uc, uc, sizeof(uc));
	odp_bits_text(c->ud, ud, sizeof(ud));
	snprintf(buf, len, "RC %s UC %s UD %s", rc, uc, ud);
}

static const char *odp_transport_name(enum rb_transport tr)
{
	return tr == TR_UD ? "UD" : tr == TR_UC ? "UC" : "RC";
}

int odp_check(struct ibv_context *ctx, enum rb_transport tr, enum rb_verb verb,
	      struct odp_caps *c)
{
	const char *dev = ibv_get_device_name(ctx->device);
	char lack[64], has[128];
	int err = odp_query(ctx, c);
	uint32_t missing;

	if (err) {
		log_err("--odp: cannot read %s's on-demand paging capabilities (ibv_query_device_ex): %s",
			dev, strerror(-err));
		return err;
	}
	if (!(c->general & IBV_ODP_SUPPORT)) {
		log_err("--odp: %s has no on-demand paging (its ODP capabilities are none; rxe has them from Linux 6.14): drop --odp",
			dev);
		return -EOPNOTSUPP;
	}
	missing = odp_missing(c, tr, verb);
	if (!missing)
		return 0;
	odp_bits_text(missing, lack, sizeof(lack));
	odp_caps_text(c, has, sizeof(has));
	log_err("--odp: %s's on-demand paging lacks %s on %s (its ODP capabilities: %s): drop --odp or choose another -c",
		dev, lack, odp_transport_name(tr), has);
	return -EOPNOTSUPP;
}
