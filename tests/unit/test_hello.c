/* HELLO's compared parameters (src/session/hello.c): which options both sides
 * must agree on, when, and the message that names a difference. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench/registry.h"
#include "session/hello.h"
#include "lib/log.h"
#include "cli/options.h"
#include "tap.h"

/* A side's HELLO for bench NAME with a NULL-terminated argument list. */
static int side(const char *name, struct wire_hello *h, ...)
{
	const struct rb_bench *b = bench_find(name);
	char *argv[32] = { "prog" };
	struct rb_options o;
	int argc = 1, err;
	va_list ap;

	va_start(ap, h);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	err = b ? options_parse(argc, argv, b, &o) : -ENOENT;
	if (!err)
		hello_params(&o, b, h);
	else
		ok(0, "%s: its options parse", name);
	return err;
}

/* The client's view of a pair: 0 or -EPROTO, the last message in *msg. */
static int pair(const struct wire_hello *server, const struct wire_hello *client, const char **msg)
{
	int err;

	log_clear_last_err();
	err = hello_compare(client, server, true);
	*msg = log_last_err();
	return err;
}

static void test_pair(const char *what, int want, const char *needle, const struct wire_hello *s,
		      const struct wire_hello *c)
{
	const char *msg;
	int err = pair(s, c, &msg);

	ok(err == want && (!needle || strstr(msg, needle)), "%s", what);
	if (err != want || (needle && !strstr(msg, needle)))
		printf("#   rc %d, message: %s\n", err, msg);
}

static void test_bidir_depths(void)
{
	struct wire_hello s, c;

	side("rb_send_bw", &s, "-b", "-t", "128", NULL);
	side("rb_send_bw", &c, "-b", "-t", "16", NULL);
	test_pair("-b: -t 128 against -t 16 fails naming -t", -EPROTO,
		  "send queue depth (-t/--tx-depth) differs: client 16, server 128", &s, &c);
	side("rb_send_bw", &s, "-t", "128", NULL);
	side("rb_send_bw", &c, "-t", "16", NULL);
	test_pair("no -b: -t is the posting side's alone, no mismatch", 0, NULL, &s, &c);
	side("rb_write_bw", &s, "-b", "-Q", "8", NULL);
	side("rb_write_bw", &c, "-b", NULL);
	test_pair("-b: -Q 8 against the default fails naming -Q", -EPROTO,
		  "completion moderation (-Q/--cq-mod) differs: client default, server 8", &s, &c);
	side("rb_send_bw", &s, "-b", "-r", "64", NULL);
	side("rb_send_bw", &c, "-b", "-r", "32", NULL);
	test_pair("-b sends: -r 64 against -r 32 fails naming -r", -EPROTO,
		  "receive queue depth (-r/--rx-depth) differs: client 32, server 64", &s, &c);
	side("rb_send_bw", &s, "-r", "64", NULL);
	side("rb_send_bw", &c, "-r", "32", NULL);
	test_pair("no -b: -r is the receiver's alone", 0, NULL, &s, &c);
	side("rb_atomic_bw", &s, "-b", "--atomic-same-address", NULL);
	side("rb_atomic_bw", &c, "-b", NULL);
	test_pair("-b atomics: --atomic-same-address on one side fails", -EPROTO,
		  "one target word (--atomic-same-address) differs: client off, server on", &s, &c);
}

static void test_both_post(void)
{
	struct wire_hello s, c;

	side("rb_send_lat", &s, "-I", "0", NULL);
	side("rb_send_lat", &c, NULL);
	test_pair("send ping-pong: -I 0 against the default fails naming -I", -EPROTO,
		  "inline size (-I/--inline_size) differs: client default, server 0", &s, &c);
	side("rb_send_lat", &s, "-e", NULL);
	side("rb_send_lat", &c, NULL);
	test_pair("send ping-pong: -e on one side fails naming -e", -EPROTO,
		  "completion events (-e/--use_event) differs: client off, server on", &s, &c);
	side("rb_read_lat", &s, NULL);
	side("rb_read_lat", &c, "-e", NULL);
	test_pair("read latency: -e is the reader's alone", 0, NULL, &s, &c);
	side("rb_read_bw", &s, "-m", "1024", NULL);
	side("rb_read_bw", &c, NULL);
	test_pair("-m on one side: an offer, no mismatch", 0, NULL, &s, &c);
	ok(hello_mtu(1024, 0) == 1024 && hello_mtu(0, 512) == 512 && hello_mtu(2048, 1024) == 1024 &&
	   hello_mtu(1024, 4096) == 1024 && hello_mtu(0, 0) == 0 && hello_mtu(0, 1u << 20) == 0 && hello_mtu(2048, 1000) == 2048 &&
	   hello_mtu(2048, 128) == 2048,
	   "-m: both sides use the smaller one given (none: 0; a peer's value that is no MTU: none)");
	side("rb_send_bw", &s, "-b", "-t", "64", "-Q", "4", "-r", "256", "-I", "0", NULL);
	side("rb_send_bw", &c, "-b", "-t", "64", "-Q", "4", "-r", "256", "-I", "0", NULL);
	test_pair("-b with the same -t -Q -r -I: no difference", 0, NULL, &s, &c);
}

/* An older peer's HELLO (ids up to --load-compare only): named, not passed. */
static void test_versions(void)
{
	struct wire_hello s, c;

	side("rb_send_bw", &s, NULL);
	side("rb_send_bw", &c, NULL);
	s.nparams = P_TX_DEPTH - 1;
	test_pair("a peer without the new ids: fails asking for an upgrade", -EPROTO, "upgrade", &s, &c);
	log_clear_last_err();
	is_int(hello_compare(&s, &c, false), -EPROTO, "... on the older side too (the ids it does not know)");
	ok(strstr(log_last_err(), "does not know") != NULL, "... naming an unknown parameter");
}

int main(void)
{
	log_set_prog("test_hello");
	test_bidir_depths();
	test_both_post();
	test_versions();
	return tap_done();
}
