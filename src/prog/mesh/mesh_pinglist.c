/*
 * The pinglist (mesh_pinglist.h): every line is parsed into a table of
 * NICs (syntax errors first, in file order, then duplicates), then each
 * local NIC picks its peers from that table in file order, switch tier
 * first.  The table is freed before pl_parse returns: what is kept is
 * the local NICs and at most max_peers peers each.
 */
#include "prog/mesh/mesh_pinglist.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PL_FORMAT "HOST NIC RAIL ADDR [SWITCH]"
#define PL_MAX_FILE (256u << 20)        /* a list of ~2 million lines */

struct pl_row {                         /* a parsed line */
	struct mesh_nic nic;
	size_t line;
};

struct pl_table {
	struct pl_row *v;
	size_t n, cap;
};

static int say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* -EINVAL, with the message in why (when given). */
static int say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The next blank-separated word of *p (up to end) into w (NUL-ended,
 * at most wlen - 1 bytes kept); its full length, 0 at the end. */
static size_t next_word(const char **p, const char *end, char *w, size_t wlen)
{
	const char *s = *p, *e;

	while (s < end && isspace((unsigned char)*s))
		s++;
	for (e = s; e < end && !isspace((unsigned char)*e); e++)
		;
	snprintf(w, wlen, "%.*s", (int)(e - s), s);
	*p = e;
	return (size_t)(e - s);
}

static int parse_name(const char *w, size_t wl, char *dst, size_t line,
		      const char *field, char *why, size_t len)
{
	if (wl >= MESH_NAME_LEN)
		return say(why, len, "pinglist line %zu: %s '%.20s...' is longer than %d characters",
			   line, field, w, MESH_NAME_LEN - 1);
	memcpy(dst, w, wl + 1);
	return 0;
}

static int parse_rail(const char *w, int *rail, size_t line, char *why, size_t len)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(w, &end, 10);
	if (!isdigit((unsigned char)w[0]) || *end || errno || v > 255)
		return say(why, len, "pinglist line %zu: RAIL '%s' is not a number 0..255", line, w);
	*rail = (int)v;
	return 0;
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v < 1 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* An address's text (without brackets and port) into ip; 4 or 6, 0 not one. */
static int ip_text(const char *s, size_t sl, char ip[48])
{
	unsigned char bin[16];

	if (sl >= 48)
		return 0;
	snprintf(ip, 48, "%.*s", (int)sl, s);
	if (inet_pton(AF_INET, ip, bin) == 1)
		return 4;
	return inet_pton(AF_INET6, ip, bin) == 1 ? 6 : 0;
}

/* "[v6]:PORT" or "[v6]". */
static int parse_bracket(const char *w, struct mesh_nic *n)
{
	const char *close = strchr(w, ']');

	if (!close || ip_text(w + 1, (size_t)(close - w - 1), n->ip) != 6)
		return -1;
	if (!close[1])
		return 0;
	return close[1] == ':' ? parse_port(close + 2, &n->port) : -1;
}

/* IPv4[:PORT], [IPv6]:PORT or a bare IPv6. */
static int parse_addr(const char *w, struct mesh_nic *n, size_t line, char *why, size_t len)
{
	const char *colon = strchr(w, ':');
	int bad;

	n->port = 0;
	if (w[0] == '[')
		bad = parse_bracket(w, n);
	else if (colon && strchr(colon + 1, ':'))
		bad = ip_text(w, strlen(w), n->ip) != 6;
	else if (colon)
		bad = ip_text(w, (size_t)(colon - w), n->ip) != 4 || parse_port(colon + 1, &n->port);
	else
		bad = ip_text(w, strlen(w), n->ip) != 4;
	if (bad)
		return say(why, len, "pinglist line %zu: ADDR '%.60s' is not IPv4[:PORT], "
			   "[IPv6]:PORT or IPv6 (PORT 1..65535)", line, w);
	return 0;
}

/* One line's fields (comment already cut) into n; 1 a NIC, 0 blank. */
static int parse_fields(const char *p, const char *end, struct mesh_nic *n, size_t line,
			char *why, size_t len)
{
	static const char *const field[] = { "HOST", "NIC", "RAIL", "ADDR", "SWITCH" };
	char w[5][128], extra[64];
	size_t wl[5];
	int k, err;

	for (k = 0; k < 5 && (wl[k] = next_word(&p, end, w[k], sizeof(w[k]))); k++)
		;
	if (k == 0)
		return 0;
	if (k < 4)
		return say(why, len, "pinglist line %zu: %s missing (" PL_FORMAT ")", line, field[k]);
	if (k == 5 && next_word(&p, end, extra, sizeof(extra)))
		return say(why, len, "pinglist line %zu: '%s' after SWITCH (" PL_FORMAT ")", line, extra);
	memset(n, 0, sizeof(*n));
	if ((err = parse_name(w[0], wl[0], n->host, line, "HOST", why, len)) ||
	    (err = parse_name(w[1], wl[1], n->nic, line, "NIC", why, len)) ||
	    (err = parse_rail(w[2], &n->rail, line, why, len)) ||
	    (err = parse_addr(w[3], n, line, why, len)) ||
	    (k == 5 && (err = parse_name(w[4], wl[4], n->sw, line, "SWITCH", why, len))))
		return err;
	return 1;
}

static int table_add(struct pl_table *t, const struct mesh_nic *n, size_t line)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct pl_row *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n].nic = *n;
	t->v[t->n++].line = line;
	return 0;
}

/* Every line of text into t; 0, -EINVAL or -ENOMEM. */
static int read_rows(struct pl_table *t, const char *text, char *why, size_t len)
{
	struct mesh_nic n;
	size_t line = 0;

	for (const char *p = text; *p; ) {
		const char *eol = p + strcspn(p, "\n");
		const char *end = p + strcspn(p, "#\n");
		int k = parse_fields(p, end, &n, ++line, why, len);

		if (k < 0)
			return k;
		if (k > 0 && table_add(t, &n, line))
			return -ENOMEM;
		p = *eol ? eol + 1 : eol;
	}
	return 0;
}

static int nic_cmp(const struct mesh_nic *x, const struct mesh_nic *y)
{
	int c = strcmp(x->host, y->host);

	return c ? c : strcmp(x->nic, y->nic);
}

/* By HOST NIC, then by line. */
static int row_cmp(const void *a, const void *b)
{
	const struct pl_row *x = *(const struct pl_row *const *)a;
	const struct pl_row *y = *(const struct pl_row *const *)b;
	int c = nic_cmp(&x->nic, &y->nic);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The first line (in file order) that repeats an earlier line's HOST NIC. */
static int check_duplicates(const struct pl_table *t, char *why, size_t len)
{
	const struct pl_row **s = malloc((t->n ? t->n : 1) * sizeof(*s));
	const struct pl_row *dup = NULL, *first = NULL;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		s[i] = &t->v[i];
	qsort(s, t->n, sizeof(*s), row_cmp);
	for (size_t i = 1; i < t->n; i++)
		if (!nic_cmp(&s[i - 1]->nic, &s[i]->nic) && (!dup || s[i]->line < dup->line))
			dup = s[i], first = s[i - 1];
	free(s);
	if (dup)
		return say(why, len, "pinglist line %zu: host '%s' NIC '%s' already on line %zu",
			   dup->line, dup->nic.host, dup->nic.nic, first->line);
	return 0;
}

/* Row r as a peer of local NIC l (row li): 0 not one, else its tier + 1. */
static int peer_tier(const struct pl_table *t, size_t li, size_t r, const struct pl_opts *o)
{
	const struct mesh_nic *l = &t->v[li].nic, *n = &t->v[r].nic;

	if (r == li)
		return 0;
	if (!strcmp(l->host, n->host))
		return o->intra ? TIER_SWITCH + 1 : 0;
	if (l->rail != n->rail)
		return 0;
	return (l->sw[0] && !strcmp(l->sw, n->sw) ? TIER_SWITCH : TIER_CROSS) + 1;
}

/* Tier's peers of row li, in file order, into p (NULL: count only),
 * at most max; how many there are in all. */
static size_t collect(const struct pl_table *t, size_t li, const struct pl_opts *o,
		      enum mesh_tier tier, struct pl_peer *p, size_t max)
{
	size_t all = 0;

	for (size_t r = 0; r < t->n; r++) {
		if (peer_tier(t, li, r, o) != (int)tier + 1)
			continue;
		if (p && all < max)
			p[all] = (struct pl_peer){ .nic = t->v[r].nic, .tier = tier };
		all++;
	}
	return all;
}

/* Local NIC l (row li): its switch peers, then its cross peers, bounded. */
static int pick_peers(struct pl_local *l, const struct pl_table *t, size_t li,
		      const struct pl_opts *o)
{
	size_t max = (size_t)o->max_peers;
	size_t nsw = collect(t, li, o, TIER_SWITCH, NULL, 0);
	size_t ncr = collect(t, li, o, TIER_CROSS, NULL, 0);
	size_t ksw = nsw < max ? nsw : max;
	size_t kcr = ncr < max - ksw ? ncr : max - ksw;

	l->nic = t->v[li].nic;
	l->peers = calloc(ksw + kcr ? ksw + kcr : 1, sizeof(*l->peers));
	if (!l->peers)
		return -ENOMEM;
	collect(t, li, o, TIER_SWITCH, l->peers, ksw);
	collect(t, li, o, TIER_CROSS, l->peers + ksw, kcr);
	l->nswitch = (int)ksw;
	l->npeers = (int)(ksw + kcr);
	l->dropped_peers = nsw + ncr - ksw - kcr;
	return 0;
}

/* The local host's NICs, in file order, each with its peers. */
static int pick_locals(struct pinglist *pl, const struct pl_table *t, const struct pl_opts *o,
		       char *why, size_t len)
{
	size_t n = 0;

	for (size_t r = 0; r < t->n; r++)
		n += !strcmp(t->v[r].nic.host, o->host);
	if (!n)
		return say(why, len, "pinglist: no line names host '%s' (--host), among %zu lines",
			   o->host, t->n);
	pl->local = calloc(n, sizeof(*pl->local));
	if (!pl->local)
		return -ENOMEM;
	for (size_t r = 0; r < t->n; r++) {
		if (strcmp(t->v[r].nic.host, o->host))
			continue;
		if (pick_peers(&pl->local[pl->nlocal++], t, r, o))
			return -ENOMEM;
	}
	return 0;
}

static int check_opts(const struct pl_opts *o, char *why, size_t len)
{
	if (!o->host || !o->host[0])
		return say(why, len, "pinglist: no local host name");
	if (o->max_peers < 1)
		return say(why, len, "pinglist: max_peers %d is not at least 1", o->max_peers);
	if (o->cross_peers < 0)
		return say(why, len, "pinglist: cross_peers %d is negative", o->cross_peers);
	return 0;
}

int pl_parse(struct pinglist *pl, const char *text, const struct pl_opts *o,
	     char *why_buf, size_t why_len)
{
	struct pl_table t = { 0 };
	int err;

	*pl = (struct pinglist){ 0 };
	err = check_opts(o, why_buf, why_len);
	if (!err)
		err = read_rows(&t, text, why_buf, why_len);
	if (!err)
		err = check_duplicates(&t, why_buf, why_len);
	if (!err)
		err = pick_locals(pl, &t, o, why_buf, why_len);
	if (err == -ENOMEM)
		say(why_buf, why_len, "pinglist: out of memory");
	pl->lines = t.n;
	free(t.v);
	if (err)
		pl_free(pl);
	return err;
}

/* buf's room doubled (one more byte for the NUL); 0, -EFBIG or -ENOMEM. */
static int grow(char **buf, size_t *cap)
{
	size_t c = *cap ? 2 * *cap : 1 << 16;
	char *nb;

	if (c > PL_MAX_FILE)
		return -EFBIG;
	nb = realloc(*buf, c + 1);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = c;
	return 0;
}

/* The whole file into a NUL-ended buffer (*text, freed by the caller). */
static int read_file(const char *path, char **text, char *why, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0, cap = 0, got = 1;
	char *buf = NULL;
	int err = f ? 0 : -errno;

	while (!err && got) {
		if (n == cap)
			err = grow(&buf, &cap);
		if (!err)
			n += got = fread(buf + n, 1, cap - n, f);
	}
	if (!err && ferror(f))
		err = -EIO;
	if (f)
		fclose(f);
	if (err) {
		free(buf);
		say(why, len, "pinglist %s: %s", path, strerror(-err));
		return err;
	}
	buf[n] = '\0';
	*text = buf;
	return 0;
}

int pl_load(struct pinglist *pl, const char *path, const struct pl_opts *o,
	    char *why_buf, size_t why_len)
{
	char *text = NULL;
	int err;

	*pl = (struct pinglist){ 0 };
	err = read_file(path, &text, why_buf, why_len);
	if (err)
		return err;
	err = pl_parse(pl, text, o, why_buf, why_len);
	free(text);
	return err;
}

void pl_free(struct pinglist *pl)
{
	for (int i = 0; i < pl->nlocal; i++)
		free(pl->local[i].peers);
	free(pl->local);
	*pl = (struct pinglist){ 0 };
}

/* FNV-1a of the local NIC's names: where its sample starts, so that the
 * agents' samples spread over the cross peers rather than move together. */
static uint64_t nic_hash(const struct mesh_nic *n)
{
	uint64_t h = 14695981039346656037ull;

	for (const char *s = n->host; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h = (h ^ '/') * 1099511628211ull;
	for (const char *s = n->nic; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Window w's sample: cross_peers consecutive cross peers (modulo their
 * number), the start moving on by cross_peers each window; so any
 * ceil(ncross / cross_peers) consecutive windows visit every one. */
int pl_cross_sample(const struct pl_local *l, const struct pl_opts *o, uint64_t w, int *idx)
{
	uint64_t ncross = (uint64_t)(l->npeers - l->nswitch), start;
	uint64_t cp = o->cross_peers > 0 ? (uint64_t)o->cross_peers : 0;

	if (!ncross || !cp)
		return 0;
	if (ncross <= cp) {
		for (uint64_t i = 0; i < ncross; i++)
			idx[i] = l->nswitch + (int)i;
		return (int)ncross;
	}
	start = ((w % ncross) * cp + nic_hash(&l->nic) % ncross) % ncross;
	for (uint64_t i = 0; i < cp; i++)
		idx[i] = l->nswitch + (int)((start + i) % ncross);
	return (int)cp;
}
