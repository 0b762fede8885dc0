/*
 * rb_mesh's pinglist (src/prog/mesh/mesh_pinglist.c): every field's
 * error names its line and field; addresses with and without ports,
 * IPv4 and IPv6; tiers and their order; intra; the max_peers bound and
 * its dropped count; the cross sample, checked against a plain set union
 * for every ncross 0..40 and cross_peers 1..20 (every cross peer within
 * ceil(ncross / cross_peers) consecutive windows, from any window); and a
 * generated list of 1000 hosts x 8 NICs whose local host keeps at most
 * max_peers per NIC, in memory the options fix (malloc_usable_size).
 */
#include "prog/mesh/mesh_pinglist.h"
#include "tap.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLAN 71

static struct pl_opts opts(const char *host)
{
	return (struct pl_opts){ .host = host, .rate_switch = 10, .rate_cross = 1,
				 .cross_peers = 16, .max_peers = 256 };
}

/* Parse text as host a: the error and its message. */
static int parse_a(const char *text, char *why, size_t len)
{
	struct pl_opts o = opts("a");
	struct pinglist pl;
	int err;

	why[0] = '\0';
	err = pl_parse(&pl, text, &o, why, len);
	pl_free(&pl);
	return err;
}

/* text fails with -EINVAL and a message holding want. */
static void bad(const char *text, const char *want)
{
	char why[256];
	int err = parse_a(text, why, sizeof(why));

	ok(err == -EINVAL && strstr(why, want), "refused, saying \"%s\"", want);
	if (err != -EINVAL || !strstr(why, want))
		printf("#   err %d, why \"%s\"\n", err, why);
}

#define A0 "a rxe0 0 10.0.0.1 L1\n"

static void test_errors(void)
{
	char host[80], text[512], why[256];

	bad(A0 "b\n", "line 2: NIC missing");
	bad(A0 "b rxe0\n", "line 2: RAIL missing");
	bad(A0 "# c\n\nb rxe0 3\n", "line 4: ADDR missing");
	bad(A0 "b rxe0 x 10.0.0.2\n", "line 2: RAIL 'x' is not a number 0..255");
	bad(A0 "b rxe0 256 10.0.0.2\n", "line 2: RAIL '256' is not a number 0..255");
	bad(A0 "b rxe0 -1 10.0.0.2\n", "line 2: RAIL '-1'");
	bad(A0 "b rxe0 +1 10.0.0.2\n", "line 2: RAIL '+1'");
	bad(A0 "b rxe0 1x 10.0.0.2\n", "line 2: RAIL '1x'");
	bad(A0 "b rxe0 0 10.0.0\n", "line 2: ADDR '10.0.0' is not");
	bad(A0 "b rxe0 0 10.0.0.2:0\n", "line 2: ADDR '10.0.0.2:0'");
	bad(A0 "b rxe0 0 10.0.0.2:65536\n", "line 2: ADDR '10.0.0.2:65536'");
	bad(A0 "b rxe0 0 10.0.0.2:\n", "line 2: ADDR '10.0.0.2:'");
	bad(A0 "b rxe0 0 10.0.0.2:8x\n", "line 2: ADDR '10.0.0.2:8x'");
	bad(A0 "b rxe0 0 [fd00::2\n", "line 2: ADDR '[fd00::2'");
	bad(A0 "b rxe0 0 [fd00::2]:\n", "line 2: ADDR '[fd00::2]:'");
	bad(A0 "b rxe0 0 [fd00::2]x\n", "line 2: ADDR '[fd00::2]x'");
	bad(A0 "b rxe0 0 [10.0.0.2]:5\n", "line 2: ADDR '[10.0.0.2]:5'");
	bad(A0 "b rxe0 0 fd00::2::3\n", "line 2: ADDR 'fd00::2::3'");
	bad(A0 "b rxe0 0 host.example\n", "line 2: ADDR 'host.example'");
	bad(A0 "b rxe0 0 10.0.0.2 L1 extra\n", "line 2: 'extra' after SWITCH");
	memset(host, 'h', 64);
	host[64] = '\0';
	snprintf(text, sizeof(text), A0 "%s rxe0 0 10.0.0.2\n", host);
	bad(text, "line 2: HOST 'hhhhhhhhhhhhhhhhhhhh...' is longer than 63 characters");
	snprintf(text, sizeof(text), A0 "b %s 0 10.0.0.2\n", host);
	bad(text, "line 2: NIC 'hhhh");
	snprintf(text, sizeof(text), A0 "b rxe0 0 10.0.0.2 %s\n", host);
	bad(text, "line 2: SWITCH 'hhhh");
	host[63] = '\0';
	snprintf(text, sizeof(text), A0 "%s rxe0 0 10.0.0.2\n", host);
	ok(parse_a(text, why, sizeof(why)) == 0, "a HOST of 63 characters is one");
	bad(A0 "b rxe0 0 10.0.0.2\nc rxe0 0 10.0.0.3\n#\nb rxe0 0 10.0.0.9\nb rxe0 1 10.0.0.9\n",
	    "line 5: host 'b' NIC 'rxe0' already on line 2");
	bad(A0 "b rxe1 0 10.0.0.2\na rxe0 1 10.0.0.4\n", "line 3: host 'a' NIC 'rxe0' already on line 1");
	bad("b rxe0 0 10.0.0.2\n", "no line names host 'a'");
	bad("", "no line names host 'a'");
	bad(A0 "b rxe0 9 10.0.0.2 L1\nb rxe0 7 nope\n", "line 3: ADDR 'nope'");
}

/* Host a's first NIC's peer named b_nic (host b). */
static const struct pl_peer *peer_of(const struct pinglist *pl, int l, const char *host, const char *nic)
{
	for (int i = 0; i < pl->local[l].npeers; i++)
		if (!strcmp(pl->local[l].peers[i].nic.host, host) && !strcmp(pl->local[l].peers[i].nic.nic, nic))
			return &pl->local[l].peers[i];
	return NULL;
}

static void test_addresses(void)
{
	const char *text =
		"a rxe0 0 10.0.0.1 # the local one, no port\n"
		"b rxe0 0 10.0.0.2:18600\n"
		"c rxe0 0 [fe80::1]:7000 L9\n"
		"d rxe0 0 fd00::2\n"
		"e rxe0 0 [fd00::3]\n"
		"f rxe0 0 ::ffff:10.0.0.6\r\n"
		"\t g  rxe0\t0   10.0.0.7:65535   L2   # comment\n"
		"h rxe0 0 10.0.0.8#no blank before the comment";
	struct pl_opts o = opts("a");
	const struct pl_peer *p;
	struct pinglist pl;
	char why[256] = "";
	int err = pl_parse(&pl, text, &o, why, sizeof(why));

	ok(err == 0 && pl.nlocal == 1 && pl.lines == 8, "addresses: parsed (%d: %s), 1 local NIC, 8 lines",
	   err, why);
	if (err)
		return;
	ok(!strcmp(pl.local[0].nic.ip, "10.0.0.1") && pl.local[0].nic.port == 0 && !pl.local[0].nic.sw[0],
	   "IPv4 without a port: port 0, no switch (the comment cut)");
	p = peer_of(&pl, 0, "b", "rxe0");
	ok(p && !strcmp(p->nic.ip, "10.0.0.2") && p->nic.port == 18600, "IPv4:PORT");
	p = peer_of(&pl, 0, "c", "rxe0");
	ok(p && !strcmp(p->nic.ip, "fe80::1") && p->nic.port == 7000 && !strcmp(p->nic.sw, "L9"),
	   "[IPv6]:PORT, then SWITCH");
	p = peer_of(&pl, 0, "d", "rxe0");
	ok(p && !strcmp(p->nic.ip, "fd00::2") && p->nic.port == 0, "a bare IPv6: port 0");
	p = peer_of(&pl, 0, "e", "rxe0");
	ok(p && !strcmp(p->nic.ip, "fd00::3") && p->nic.port == 0, "[IPv6] without a port");
	p = peer_of(&pl, 0, "f", "rxe0");
	ok(p && !strcmp(p->nic.ip, "::ffff:10.0.0.6"), "IPv4-mapped IPv6, a CR before the newline");
	p = peer_of(&pl, 0, "g", "rxe0");
	ok(p && p->nic.port == 65535 && !strcmp(p->nic.sw, "L2") && p->nic.rail == 0,
	   "tabs and runs of blanks, port 65535");
	p = peer_of(&pl, 0, "h", "rxe0");
	ok(p && !strcmp(p->nic.ip, "10.0.0.8"), "a comment right after ADDR, no final newline");
	pl_free(&pl);
	ok(pl.local == NULL && pl.nlocal == 0, "pl_free leaves an empty list");
}

/* The peers of local NIC l as "host/nic:tier" words, in order. */
static const char *peers_text(const struct pl_local *l)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < l->npeers && n < sizeof(buf) - 80; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s/%s:%c", i ? " " : "",
				      l->peers[i].nic.host, l->peers[i].nic.nic,
				      l->peers[i].tier == TIER_SWITCH ? 's' : 'x');
	return buf;
}

static const char tier_text[] =
	"x  rxe0 0 10.0.1.1 L2\n"       /* cross, before any switch peer */
	"a  rxe0 0 10.0.0.1 L1\n"
	"a  rxe1 1 10.0.0.2 L1\n"
	"a  rxe2 0 10.0.0.3\n"          /* no switch: its own */
	"b  rxe0 0 10.0.2.1 L1\n"
	"b  rxe1 1 10.0.2.2 L1\n"
	"c  rxe0 0 10.0.3.1 L1\n"
	"d  rxe0 0 10.0.4.1\n"          /* no switch: cross to everyone */
	"e  rxe5 0 10.0.5.1 L3\n"
	"f  rxe0 1 10.0.6.1 L2\n";

static void test_tiers(void)
{
	struct pl_opts o = opts("a");
	struct pinglist pl;
	char why[256] = "";
	int err = pl_parse(&pl, tier_text, &o, why, sizeof(why));

	ok(err == 0 && pl.nlocal == 3 && pl.lines == 10, "tiers: 3 local NICs of 10 lines (%s)", why);
	if (err)
		return;
	is_str(peers_text(&pl.local[0]), "b/rxe0:s c/rxe0:s x/rxe0:x d/rxe0:x e/rxe5:x",
	       "rxe0 (rail 0, L1): switch peers first, then cross, each in file order");
	ok(pl.local[0].nswitch == 2 && pl.local[0].dropped_peers == 0, "...2 of them on its switch");
	is_str(peers_text(&pl.local[1]), "b/rxe1:s f/rxe0:x", "rxe1 (rail 1): rail 1's NICs only");
	is_str(peers_text(&pl.local[2]), "x/rxe0:x b/rxe0:x c/rxe0:x d/rxe0:x e/rxe5:x",
	       "rxe2 (no switch): everyone is cross, even d (also without)");
	ok(pl.local[2].nswitch == 0, "...none on its switch");
	pl_free(&pl);
	o.intra = true;
	err = pl_parse(&pl, tier_text, &o, why, sizeof(why));
	ok(err == 0, "intra: parsed");
	if (err)
		return;
	is_str(peers_text(&pl.local[0]), "a/rxe1:s a/rxe2:s b/rxe0:s c/rxe0:s x/rxe0:x d/rxe0:x e/rxe5:x",
	       "intra: the host's other NICs, any rail, on the switch tier, never itself");
	is_str(peers_text(&pl.local[2]), "a/rxe0:s a/rxe1:s x/rxe0:x b/rxe0:x c/rxe0:x d/rxe0:x e/rxe5:x",
	       "intra: also for a NIC without a switch");
	ok(pl.local[0].nswitch == 4 && pl.local[1].nswitch == 3, "...counted in nswitch");
	pl_free(&pl);
}

static void test_bound(void)
{
	const char *text =
		"a rxe0 0 10.0.0.1 L1\n"
		"c1 rxe0 0 10.0.1.1 L2\nc2 rxe0 0 10.0.1.2 L2\nc3 rxe0 0 10.0.1.3 L2\n"
		"s1 rxe0 0 10.0.2.1 L1\ns2 rxe0 0 10.0.2.2 L1\ns3 rxe0 0 10.0.2.3 L1\n"
		"c4 rxe0 0 10.0.1.4 L2\ns4 rxe0 0 10.0.2.4 L1\nc5 rxe0 0 10.0.1.5\ns5 rxe0 0 10.0.2.5 L1\n";
	struct pl_opts o = opts("a");
	struct pinglist pl;
	char why[256];

	o.max_peers = 3;
	ok(pl_parse(&pl, text, &o, why, sizeof(why)) == 0, "max_peers 3: parsed");
	is_str(peers_text(&pl.local[0]), "s1/rxe0:s s2/rxe0:s s3/rxe0:s", "...the first 3 switch peers");
	ok(pl.local[0].npeers == 3 && pl.local[0].nswitch == 3 && pl.local[0].dropped_peers == 7,
	   "...7 dropped (2 switch, 5 cross): %zu", pl.local[0].dropped_peers);
	pl_free(&pl);
	o.max_peers = 7;
	ok(pl_parse(&pl, text, &o, why, sizeof(why)) == 0, "max_peers 7: parsed");
	is_str(peers_text(&pl.local[0]), "s1/rxe0:s s2/rxe0:s s3/rxe0:s s4/rxe0:s s5/rxe0:s c1/rxe0:x c2/rxe0:x",
	       "...all 5 switch peers, then 2 cross");
	ok(pl.local[0].npeers == 7 && pl.local[0].dropped_peers == 3, "...3 dropped: %zu",
	   pl.local[0].dropped_peers);
	pl_free(&pl);
	o.max_peers = 10;
	ok(pl_parse(&pl, text, &o, why, sizeof(why)) == 0 && pl.local[0].npeers == 10 &&
	   pl.local[0].dropped_peers == 0, "max_peers 10: all 10, none dropped");
	pl_free(&pl);
	o.max_peers = 0;
	ok(pl_parse(&pl, text, &o, why, sizeof(why)) == -EINVAL && strstr(why, "max_peers 0"),
	   "max_peers 0: refused (%s)", why);
	o.max_peers = 5;
	o.cross_peers = -1;
	ok(pl_parse(&pl, text, &o, why, sizeof(why)) == -EINVAL && strstr(why, "cross_peers -1"),
	   "cross_peers -1: refused (%s)", why);
}

/* One (ncross, cp) pair from window w0: each window's sample is
 * min(cp, ncross) distinct cross peers, and the ceil(ncross / cp)
 * windows from w0 visit every one.  0 or a complaint in why. */
static int sample_case(struct pl_local *l, int nswitch, int ncross, int cp, uint64_t w0, char *why)
{
	struct pl_opts o = opts("a");
	int k = ncross ? (ncross + cp - 1) / cp : 1, want = ncross < cp ? ncross : cp;
	unsigned char seen[64] = { 0 };
	int idx[32], n;

	o.cross_peers = cp;
	l->nswitch = nswitch;
	l->npeers = nswitch + ncross;
	for (int w = 0; w < k; w++) {
		unsigned char here[64] = { 0 };

		n = pl_cross_sample(l, &o, w0 + (uint64_t)w, idx);
		if (n != want)
			return sprintf(why, "window %d: %d peers, want %d", w, n, want);
		for (int i = 0; i < n; i++) {
			if (idx[i] < nswitch || idx[i] >= l->npeers || here[idx[i]]++)
				return sprintf(why, "window %d: index %d out of range or twice", w, idx[i]);
			seen[idx[i]] = 1;
		}
	}
	for (int i = nswitch; i < l->npeers; i++)
		if (!seen[i])
			return sprintf(why, "peer %d not visited in %d windows", i, k);
	return 0;
}

static void test_sampling(void)
{
	const uint64_t w0s[] = { 0, 1, 2, 3, 7, 39, 40, 41, 1000003, (1ull << 63) + 5, UINT64_MAX - 50 };
	const char *nics[] = { "rxe0", "mlx5_3", "x" };
	struct pl_peer peers[64];
	struct pl_local l = { .peers = peers };
	long cases = 0, failed = 0;
	char why[160] = "", first[256] = "";

	for (int ni = 0; ni < 3; ni++) {
		snprintf(l.nic.host, sizeof(l.nic.host), "host%d", ni);
		snprintf(l.nic.nic, sizeof(l.nic.nic), "%s", nics[ni]);
		for (int ncross = 0; ncross <= 40; ncross++)
			for (int cp = 1; cp <= 20; cp++)
				for (size_t w = 0; w < sizeof(w0s) / sizeof(w0s[0]) + ncross; w++) {
					uint64_t w0 = w < sizeof(w0s) / sizeof(w0s[0]) ? w0s[w] : 100 + w;

					cases++;
					if (!sample_case(&l, ni * 3, ncross, cp, w0, why))
						continue;
					if (!failed++)
						snprintf(first, sizeof(first), "ncross %d cp %d w0 %llu: %s",
							 ncross, cp, (unsigned long long)w0, why);
				}
	}
	ok(failed == 0, "cross sample: %ld cases (ncross 0..40 x cross_peers 1..20 x start windows), "
	   "each window min(cp, ncross) distinct cross peers, all visited in ceil(ncross/cp) windows%s%s",
	   cases, failed ? ": " : "", first);
	struct pl_opts o = opts("a");
	int idx[4];
	o.cross_peers = 0;
	l.nswitch = 2;
	l.npeers = 9;
	ok(pl_cross_sample(&l, &o, 5, idx) == 0, "cross_peers 0: no cross peer probed");
}

/* 'hosts' hosts of 8 NICs, 32 hosts a leaf per rail (rail-optimized). */
static char *fabric(int hosts)
{
	size_t cap = (size_t)hosts * 8 * 64 + 64, n = 0;
	char *t = malloc(cap);

	n += (size_t)snprintf(t, cap, "# generated: %d hosts x 8 NICs\n", hosts);
	for (int h = 0; h < hosts; h++)
		for (int k = 0; k < 8; k++)
			n += (size_t)snprintf(t + n, cap - n, "gpu%04d mlx5_%d %d 10.%d.%d.%d:%d leaf%02d-r%d\n",
					      h, k, k, k, h / 250, h % 250 + 1, 18520 + h % 7, h / 32, k);
	return t;
}

/* Every local NIC of pl: rail k, npeers <= max, the counts wanted, the
 * peers of its rail on other hosts, the switch ones first; 0 or why. */
static int check_fabric(const struct pinglist *pl, int max, int nsw, int total, char *why)
{
	for (int i = 0; i < pl->nlocal; i++) {
		const struct pl_local *l = &pl->local[i];
		size_t room = malloc_usable_size(l->peers);

		if (l->npeers > max || l->npeers != (total < max ? total : max) || l->nswitch != nsw ||
		    l->dropped_peers != (size_t)(total - l->npeers))
			return sprintf(why, "NIC %d: %d peers, %d switch, %zu dropped", i, l->npeers,
				       l->nswitch, l->dropped_peers);
		if (room > (size_t)max * sizeof(*l->peers) + 64)
			return sprintf(why, "NIC %d: %zu bytes for %d peers", i, room, max);
		for (int p = 0; p < l->npeers; p++)
			if (l->peers[p].nic.rail != l->nic.rail || !strcmp(l->peers[p].nic.host, l->nic.host) ||
			    (l->peers[p].tier == TIER_SWITCH) != (p < nsw) ||
			    (p < nsw) != !strcmp(l->peers[p].nic.sw, l->nic.sw))
				return sprintf(why, "NIC %d peer %d: rail, host or tier wrong", i, p);
	}
	return 0;
}

static void test_fabric(void)
{
	char *t = fabric(1000), why[256] = "";
	struct pl_opts o = opts("gpu0500");
	struct pinglist pl;
	int err = pl_parse(&pl, t, &o, why, sizeof(why));

	ok(err == 0 && pl.lines == 8000 && pl.nlocal == 8, "1000 hosts x 8 NICs: %zu lines, %d local NICs (%s)",
	   pl.lines, pl.nlocal, why);
	if (!err) {
		ok(!check_fabric(&pl, 256, 31, 999, why), "...each keeps 256 of 999 peers: its 31 on leaf15, "
		   "225 across, 743 dropped, in at most 256 peers' memory %s", why);
		ok(pl.local[3].nic.port == 18520 + 500 % 7 && !strcmp(pl.local[3].nic.ip, "10.3.2.1"),
		   "...its own address and port: %s:%u", pl.local[3].nic.ip, pl.local[3].nic.port);
		pl_free(&pl);
	}
	o.max_peers = 16;
	err = pl_parse(&pl, t, &o, why, sizeof(why));
	ok(!err && !check_fabric(&pl, 16, 16, 999, why), "max_peers 16: the first 16 switch peers only %s", why);
	pl_free(&pl);
	o.max_peers = 256;
	o.intra = true;
	err = pl_parse(&pl, t, &o, why, sizeof(why));
	ok(!err && pl.local[0].nswitch == 38 && pl.local[0].npeers == 256 && pl.local[0].dropped_peers == 750,
	   "intra: 7 more switch peers (38), 750 dropped: %d, %zu", pl.local[0].nswitch,
	   pl.local[0].dropped_peers);
	pl_free(&pl);
	free(t);
	t = fabric(2000);
	o.intra = false;
	o.host = "gpu1999";
	err = pl_parse(&pl, t, &o, why, sizeof(why));
	ok(!err && pl.lines == 16000 && !check_fabric(&pl, 256, 15, 1999, why),
	   "2000 hosts: the last host (15 on its leaf) keeps the same bound %s", why);
	pl_free(&pl);
	free(t);
}

static void test_load(void)
{
	char path[] = "/tmp/test_mesh_pinglist.XXXXXX", why[256] = "";
	struct pl_opts o = opts("b");
	struct pinglist pl;
	int fd = mkstemp(path), err;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	ok(f != NULL, "a temporary pinglist");
	if (!f)
		return;
	fputs(tier_text, f);
	fclose(f);
	err = pl_load(&pl, path, &o, why, sizeof(why));
	ok(err == 0 && pl.nlocal == 2 && pl.lines == 10 && pl.local[0].npeers == 6 && pl.local[1].npeers == 2,
	   "pl_load: host b's 2 NICs, 6 and 2 peers (%s)", why);
	pl_free(&pl);
	unlink(path);
	err = pl_load(&pl, path, &o, why, sizeof(why));
	ok(err == -ENOENT && strstr(why, path) && pl.nlocal == 0, "a missing file: -ENOENT, naming it (%s)", why);
	o.host = "nobody";
	err = pl_load(&pl, "/dev/null", &o, why, sizeof(why));
	ok(err == -EINVAL && strstr(why, "'nobody'"), "an empty file: no line for the host (%s)", why);
}

/* A random pinglist-like line into t (its fields mostly right). */
static size_t garbage_line(char *t, size_t room, uint64_t *x)
{
	static const char *const f[5][6] = {
		{ "a", "b", "c", "a", "b", "" },
		{ "rxe0", "rxe1", "rxe2", "rxe0", "mlx5_1", "" },
		{ "0", "1", "0", "1", "x", "256" },
		{ "10.0.0.1", "10.0.0.2:7", "[fd00::1]:9", "fd00::2", "10.0.0.3:0", "[::1" },
		{ "L1", "L2", "", "", "L1 extra", "# c" },
	};
	size_t n = 0;

	for (int k = 0; k < 5; k++) {
		*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
		n += (size_t)snprintf(t + n, room - n, "%s%s", f[k][*x % 6], k < 4 ? (*x >> 8) % 9 ? " " : "\t" : "\n");
	}
	return n;
}

/* Random lists of such lines: pl_parse never fails but with -EINVAL and
 * a message, and what it accepts is host a's NICs, bounded. */
static void test_garbage(void)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	long accepted = 0, refused = 0, wrong = 0;
	struct pl_opts o = opts("a");

	o.intra = true;
	o.max_peers = 3;
	for (int t = 0; t < 20000; t++) {
		char text[2048] = "", why[256] = "";
		size_t n = 0, lines = 1 + (size_t)(t % 7);
		struct pinglist pl;
		int err;

		for (size_t i = 0; i < lines; i++)
			n += garbage_line(text + n, sizeof(text) - n, &x);
		err = pl_parse(&pl, text, &o, why, sizeof(why));
		if (err == 0) {
			accepted++;
			for (int l = 0; l < pl.nlocal; l++)
				wrong += strcmp(pl.local[l].nic.host, "a") != 0 || pl.local[l].npeers > o.max_peers;
			wrong += pl.nlocal < 1;
		} else {
			refused++;
			wrong += err != -EINVAL || strncmp(why, "pinglist", 8) != 0;
		}
		pl_free(&pl);
	}
	ok(wrong == 0 && accepted > 100 && refused > 100,
	   "20000 random lists: %ld accepted (host a's NICs, at most max_peers), %ld refused with a message, "
	   "%ld wrong", accepted, refused, wrong);
}

int main(void)
{
	printf("1..%d\n", PLAN);
	test_errors();
	test_addresses();
	test_tiers();
	test_bound();
	test_sampling();
	test_fabric();
	test_load();
	test_garbage();
	if (tap_n != PLAN)
		printf("# planned %d checks, ran %d\n", PLAN, tap_n);
	return tap_failed || tap_n != PLAN;
}
