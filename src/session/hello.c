/* HELLO's compared test parameters (hello.h), generated from the PEER rows
 * of the option table (cli/rows.c): each row's wire id, value and label. */
#include "session/hello.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"

bool hello_both_stream(const struct rb_options *o, const struct rb_bench *b)
{
	return options_both_stream(o, b);
}

bool hello_both_post(const struct rb_options *o, const struct rb_bench *b)
{
	return options_both_post(o, b);
}

/* The PEER row of wire id id (NULL: P_VERB, P_METRIC, or none). */
static const struct opt_row *peer_row(unsigned id)
{
	const struct opt_prog *t = options_table();

	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].peer.id == id)
			return &t->rows[i];
	return NULL;
}

static uint64_t peer_value(const struct opt_row *r, const struct rb_options *o, const struct rb_bench *b)
{
	return r->peer.kind == PK_FN ? r->peer.fn(o, b) : opt_value_u64(r, o);
}

void hello_params(const struct rb_options *o, const struct rb_bench *b, struct wire_hello *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", b->name);
	h->params[h->nparams++] = (struct wire_param){ P_VERB, b->verb };
	h->params[h->nparams++] = (struct wire_param){ P_METRIC, b->metric };
	for (unsigned id = P_METRIC + 1; id < P_COUNT; id++) {
		const struct opt_row *r = peer_row(id);

		if (r)  /* the gaps between the blocks of ids (hello.h) are not sent */
			h->params[h->nparams++] = (struct wire_param){ (uint16_t)id, peer_value(r, o, b) };
	}
}

const char *hello_param_label(unsigned id)
{
	const struct opt_row *r = peer_row(id);

	if (id == P_VERB || id == P_METRIC)
		return id == P_VERB ? "verb" : "metric";
	return r ? r->peer.label : NULL;
}

/* A peer's value that is no MTU (256..4096, a power of two) is none. */
unsigned hello_mtu(uint64_t mine, uint64_t peer)
{
	if (peer < 256 || peer > 4096 || (peer & (peer - 1)))
		peer = 0;
	return (unsigned)(!mine || (peer && peer < mine) ? peer : mine);
}

static const struct wire_param *param_find(const struct wire_hello *h, uint16_t id)
{
	for (int i = 0; i < h->nparams; i++)
		if (h->params[i].id == id)
			return &h->params[i];
	return NULL;
}

/* A value as the user wrote it: "UC", not 2. */
static const char *param_text(uint16_t id, uint64_t v, char *buf, size_t len)
{
	const struct opt_row *r = peer_row(id);

	if (r && r->peer.text)
		return r->peer.text(v, buf, len);
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void param_differs(uint16_t id, uint64_t mine, uint64_t peer, const char *me, const char *them)
{
	char mv[24], pv[24];

	log_err("%s differs: %s %s, %s %s", hello_param_label(id), me, param_text(id, mine, mv, sizeof(mv)),
		them, param_text(id, peer, pv, sizeof(pv)));
}

/* Name every difference; both sides run this and fail alike. */
int hello_compare(const struct wire_hello *mine, const struct wire_hello *peer, bool is_client)
{
	const char *me = is_client ? "client" : "server", *them = is_client ? "server" : "client";
	int diffs = 0;

	if (strcmp(mine->name, peer->name)) {
		log_err("test differs: %s runs %s, %s runs %s", me, mine->name, them, peer->name);
		return -EPROTO;
	}
	for (int i = 0; i < peer->nparams; i++) {
		const struct wire_param *p = &peer->params[i], *m = param_find(mine, p->id);

		if (!m) {
			log_err("the %s sent parameter %u that this version does not know (upgrade)", them, p->id);
			diffs++;
		} else if (p->id < WIRE_P_FIRST_OFFER && m->value != p->value) {
			param_differs(p->id, m->value, p->value, me, them);
			diffs++;
		}
	}
	if (peer->nparams < mine->nparams && !diffs) {
		log_err("the %s sent fewer parameters than this version expects (upgrade it)", them);
		diffs++;
	}
	if (diffs)
		log_info("both sides must run the same test with the same parameters");
	return diffs ? -EPROTO : 0;
}
