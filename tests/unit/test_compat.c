/* perftest's command lines: every form its getopt_long takes, and every
 * one of its 156 option names (src/cli/compat.c) with its class's
 * behaviour: same and alias give the same options as ours, no-op is
 * accepted with a note, the others exit 2 naming the option, perftest,
 * and (where there is one) what to use instead. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench.h"
#include "cli/optrow.h"
#include "cli/options.h"
#include "lib/log.h"
#include "tap.h"

static const struct rb_bench bw = {
	.name = "rb_test_bw", .title = "t", .summary = "t", .verb = VERB_SEND,
	.metric = METRIC_BW, .transports = TR_RC | TR_UC | TR_UD,
	.features = FEAT_QPS | FEAT_BIDIR | FEAT_POST_LIST | FEAT_CQ_MOD | FEAT_INLINE,
	.defaults = { .size = 65536, .iters = 5000, .tx_depth = 128, .rx_depth = 512 },
};

static const struct rb_bench lat = {
	.name = "rb_test_lat", .title = "t", .summary = "t", .verb = VERB_WRITE,
	.metric = METRIC_LAT, .transports = TR_RC, .features = FEAT_INLINE,
	.defaults = { .size = 2, .iters = 1000, .tx_depth = 1, .rx_depth = 1 },
};

static char err_text[8192];
static FILE *err_file;

/* Parse argv (NULL-terminated); stderr's text in err_text. */
static int parse_v(const struct rb_bench *b, struct rb_options *o, char **words)
{
	char *argv[32] = { "prog" };
	int argc = 1, rc;
	size_t n;

	while (argc < 31 && words[argc - 1])
		argv[argc] = words[argc - 1], argc++;
	argv[argc] = NULL;
	rewind(err_file);
	if (ftruncate(fileno(err_file), 0))
		return -EIO;
	rc = options_parse(argc, argv, b, o);
	fflush(stderr);
	rewind(err_file);
	n = fread(err_text, 1, sizeof(err_text) - 1, err_file);
	err_text[n] = '\0';
	return rc;
}

static int parse(const struct rb_bench *b, struct rb_options *o, ...)
{
	char *words[31];
	int n = 0;
	va_list ap;

	va_start(ap, o);
	while (n < 30 && (words[n] = va_arg(ap, char *)))
		n++;
	words[n] = NULL;
	va_end(ap);
	return parse_v(b, o, words);
}

/* a and b hold the same options (the command line aside). */
static bool same(struct rb_options *a, struct rb_options *b)
{
	memset(a->cmdline, 0, sizeof(a->cmdline));
	memset(b->cmdline, 0, sizeof(b->cmdline));
	return !memcmp(a, b, sizeof(*a));
}

static void test_forms(void)
{
	struct rb_options a, b;

	is_int(parse(&bw, &a, "-q4", "-n10", "-s64", NULL), 0, "-q4 -n10 -s64: values attached");
	ok(a.qps == 4 && a.iters == 10 && a.size == 64, "... taken (%u QPs, %llu iterations, %llu B)", a.qps,
	   (unsigned long long)a.iters, (unsigned long long)a.size);
	is_int(parse(&bw, &a, "-D5", NULL), 0, "-D5");
	ok(a.duration_s == 5, "... 5 s");
	is_int(parse(&bw, &a, "-bRa", NULL), 0, "-bRa: bundled flags");
	ok(a.bidir && a.rdma_cm && a.all, "... all three set");
	is_int(parse(&bw, &a, "-zR", NULL), 0, "-zR: a perftest no-op bundled with one of ours");
	ok(a.rdma_cm && strstr(err_text, "-z/--comm_rdma_cm (perftest's) has no effect"), "... -R set, -z noted");
	is_int(parse(&bw, &a, "-bq2", NULL), 0, "-bq2: a flag bundled with a letter and its value");
	ok(a.bidir && a.qps == 2, "... both");
	is_int(parse(&bw, &a, "--report_gbit", "--bidir", "--iter", "7", NULL), 0, "--report_gbit --bidir --iter 7: prefixes");
	ok(a.report_gbits && a.bidir && a.iters == 7, "... taken as --report_gbits --bidirectional --iters");
	is_int(parse(&bw, &a, "--use_h", NULL), -EINVAL, "--use_h: ambiguous");
	ok(strstr(err_text, "--use_h is ambiguous: it could be --use_hugepages") && strstr(err_text, "--use_hl"),
	   "... names the candidates, ours and perftest's");
	is_int(parse(&bw, &a, "--re", NULL), -EINVAL, "--re: ambiguous (--report-gbits, --rx-depth...)");
	is_int(parse(&bw, &a, "--nosuch", NULL), -EINVAL, "--nosuch: unknown");
	ok(strstr(err_text, "unknown option") != NULL, "... said unknown");
	is_int(parse(&bw, &a, "host", "-n", "5", NULL), 0, "the host first");
	ok(a.server && !strcmp(a.server, "host") && a.iters == 5, "... host and -n 5");
	is_int(parse(&bw, &a, "-n", "5", "host", "-s", "64", NULL), 0, "the host between options");
	ok(a.server && !strcmp(a.server, "host") && a.size == 64, "... host and -s 64");
	is_int(parse(&bw, &a, "--iters", "9", "--size", "128", NULL), 0, "--iters 9 --size 128: values as words");
	is_int(parse(&bw, &b, "--iters=9", "--size=128", NULL), 0, "--iters=9 --size=128");
	ok(same(&a, &b), "... the same options");
	is_int(parse(&bw, &a, "--use_musa", "0", "host", NULL), -EINVAL, "--use_musa 0 (a value as a word): refused");
	ok(strstr(err_text, "--use_musa is perftest's option (GPU memory)") && !strstr(err_text, "unexpected argument"),
	   "... named, its value taken with it");
	is_int(parse(&bw, &a, "--use_cuda", "2", "host", NULL), 0, "--use_cuda 2 host (a value as a word): taken");
	ok(a.cuda_given && a.cuda_dev == 2 && a.server && !strcmp(a.server, "host"), "... GPU 2, the host");
}

static void test_perftest_values(void)
{
	struct rb_options a;

	is_int(parse(&lat, &a, "--report_gbits", NULL), 0, "--report_gbits on a latency test: accepted");
	ok(!a.report_gbits && strstr(err_text, "no effect on rb_test_lat"), "... no effect, a note");
	is_int(parse(&bw, &a, "-m", "65536", NULL), 0, "-m 65536: accepted");
	ok(a.mtu == 0 && strstr(err_text, "the port's active MTU is used"), "... the active MTU, a warning");
	is_int(parse(&bw, &a, "-m", "1000", NULL), 0, "-m 1000: the active MTU too");
	is_int(a.mtu, 0, "... mtu 0 (active)");
	is_int(parse(&bw, &a, "-m", "2048", NULL), 0, "-m 2048");
	ok(a.mtu == 2048 && !err_text[0], "... 2048, no warning");
	is_int(parse(&bw, &a, "-m", "big", NULL), -EINVAL, "-m big: not a number, refused");
	is_int(parse(&bw, &a, "-q", "1024", NULL), 0, "-q 1024");
	is_int(a.qps, 1024, "... 1024 QPs");
	is_int(parse(&bw, &a, "-q", "1026", NULL), -EINVAL, "-q 1026: refused");
	ok(strstr(err_text, "1026 is out of range (1..1024: the QP exchange carries at most 1024 QPs a side)") != NULL,
	   "... naming the limit and why");
}

/* A value each row's type takes (any valid one). */
static char *value_for(const struct opt_row *r)
{
	if (!r->arg || r->opt_arg)
		return NULL;
	if (r->type == OT_STR)
		return "0";
	return r->type == OT_SECONDS ? "2" : "5";
}

/* --NAME [VALUE] and, with LETTER, -L [VALUE]: as ours. */
static bool alias_same(const struct opt_compat *e, const struct opt_row *r)
{
	struct rb_options a, b;
	char name[64], ours[64], letter[3] = { '-', e->letter, 0 };
	char *val = value_for(r);
	char *w1[] = { name, val, NULL }, *w2[] = { ours, val, NULL }, *w3[] = { letter, val, NULL };

	snprintf(name, sizeof(name), "--%s", e->name);
	snprintf(ours, sizeof(ours), "--%s", r->name);
	if (parse_v(&bw, &a, w1) || parse_v(&bw, &b, w2) || !same(&a, &b))
		return false;
	return !e->letter || (!parse_v(&bw, &a, w3) && same(&a, &b));
}

/* Refused: exit 2 (-EINVAL), perftest's option named, what instead. */
static bool refused_right(const struct opt_compat *e, bool by_letter)
{
	struct rb_options a;
	char word[64], *w[] = { word, e->arg ? "1" : NULL, NULL };
	char want[80];

	if (by_letter)
		snprintf(word, sizeof(word), "-%c", e->letter);
	else
		snprintf(word, sizeof(word), "--%s", e->name);
	snprintf(want, sizeof(want), "--%s is perftest's option", e->name);
	return parse_v(&bw, &a, w) == -EINVAL && strstr(err_text, want) &&
	       (e->cls == PC_BUILT || !e->ours || strstr(err_text, "instead: ")) && !strstr(err_text, "unknown option");
}

static bool class_right(const struct opt_compat *e)
{
	const struct opt_prog *p = options_table();
	const struct opt_row *mine = opt_row_by_name(p, e->name), *r;
	const struct opt_row *letter = e->letter ? opt_row_by_code(p, e->letter) : NULL;
	struct rb_options a, d;
	char word[64], *w[] = { word, NULL };

	switch (e->cls) {
	case PC_SAME:
		return mine && opt_row_by_name(p, e->ours) == mine && (!e->letter || letter == mine);
	case PC_ALIAS:
		r = opt_row_by_name(p, e->ours);
		return !mine && r && alias_same(e, r);
	case PC_NOOP:
		if (mine)       /* ours already (-F): a row of no effect */
			return mine->type == OT_NOP;
		snprintf(word, sizeof(word), "--%s", e->name);
		return !parse(&bw, &d, NULL) && !parse_v(&bw, &a, w) && same(&a, &d) &&
		       strstr(err_text, "has no effect here");
	case PC_OTHER:
		return mine && e->why && (!e->letter || letter);
	case PC_BUILT:
		return mine ? true : refused_right(e, false);
	default:
		return !mine && e->ours && e->why && refused_right(e, false) &&
		       (!e->letter || letter || refused_right(e, true));
	}
}

static void test_classes(void)
{
	const struct opt_prog *p = options_table();
	size_t count[PC_N] = { 0 }, n = opt_compat_count(p), bad = 0;

	for (size_t j = 0; j < n; j++) {
		const struct opt_compat *e = &p->compat[j];

		count[e->cls < PC_N ? e->cls : 0]++;
		if (!class_right(e)) {
			bad++;
			ok(false, "perftest's --%s (%s) behaves as its class says", e->name, opt_compat_class_name(e->cls));
			printf("#   stderr: %s\n", err_text);
		}
	}
	is_int(n, 156, "perftest 6.29's 156 option names are classified");
	is_int(count[0], 0, "... each in a class");
	ok(!bad, "every name behaves as its class says (%zu same, %zu alias, %zu no-op, %zu other, %zu built, "
	   "%zu verbs #36, %zu memory #37, %zu refused)", count[PC_SAME], count[PC_ALIAS], count[PC_NOOP],
	   count[PC_OTHER], count[PC_BUILT], count[PC_VERBS], count[PC_MEMORY], count[PC_REFUSED]);
	for (size_t j = 0; j < n; j++)
		for (size_t k = j + 1; k < n; k++)
			if (!strcmp(p->compat[j].name, p->compat[k].name) ||
			    (p->compat[j].letter && p->compat[j].letter == p->compat[k].letter))
				ok(false, "--%s and --%s: one name or letter twice", p->compat[j].name, p->compat[k].name);
}

/* The letters perftest gives another meaning (its raw-Ethernet programs'
 * -j, -v; its -H without a file) are ours here. */
static void test_letters(void)
{
	struct rb_options a;

	is_int(parse(&bw, &a, "-j", "2", NULL), 0, "-j 2: ours (--threads), not perftest's --source_ip");
	is_int(a.threads, 2, "... 2 threads");
	is_int(parse(&bw, &a, "-v", NULL), 0, "-v: ours (--verbose), not perftest's --mac_fwd");
	ok(a.verbose, "... verbose");
	is_int(parse(&bw, &a, "--mac_fwd", NULL), -EINVAL, "--mac_fwd: refused");
	ok(strstr(err_text, "raw Ethernet") != NULL, "... raw Ethernet named");
	is_int(parse(&bw, &a, "-T", "5", "-f", "2", "--pin_cores", "1", NULL), 0, "-T 5 -f 2 --pin_cores 1");
	ok(a.tclass == 5 && a.warmup_s == 2 && !strcmp(a.cpu_list, "1"), "... --tclass 5 --warmup-time 2 --cpu 1");
}

/* rb_mpi's way: its own options out of a mixed argv (opt_take_abbrev). */
struct job { int plan; const char *pattern; bool seq; };

static int take_err(const char *who, enum opt_err kind, const struct opt_row *r, const char *word, int err,
		    const char *expect)
{
	(void)who, (void)kind, (void)r, (void)word, (void)err, (void)expect;
	return -EINVAL;
}

/* --plan alone: the job's size (-1 here); --plan N: N. */
static int parse_plan(const struct opt_row *r, const char *s, void *dst)
{
	(void)r;
	((struct job *)dst)->plan = s ? atoi(s) : -1;
	return 0;
}

static const struct opt_row job_rows[] = {
	{ "plan", 0, OT_INT, "N", OPT_FIELD(struct job, plan), .min = 2, .max = 16384, .opt_arg = 1, .parse = parse_plan },
	{ "pattern", 0, OT_STR, "P", OPT_FIELD(struct job, pattern) },
	{ "sequential", 0, OT_FLAG, NULL, OPT_FIELD(struct job, seq) },
};
static const struct opt_prog job_prog = { .name = "job", .rows = job_rows, .n = 3, .error = take_err };

/* Take argv[1..] as rb_mpi does; the words not taken counted in *rest. */
static int take_all(struct job *j, int *rest, ...)
{
	char *argv[16] = { "rb_mpi" };
	int argc = 1, rc = 0;
	bool taken;
	va_list ap;

	va_start(ap, rest);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	memset(j, 0, sizeof(*j));
	*rest = 0;
	for (int i = 1; i < argc && !rc; i++) {
		rc = opt_take_abbrev(&job_prog, options_table(), "rb_mpi", argc, argv, &i, j, &taken);
		*rest += !taken;
	}
	return rc;
}

static void test_take(void)
{
	struct job j;
	int rest;

	ok(!take_all(&j, &rest, "--plan", "4096", NULL) && j.plan == 4096 && rest == 0, "--plan 4096: the number is --plan's");
	ok(!take_all(&j, &rest, "--plan=64", NULL) && j.plan == 64, "--plan=64");
	ok(!take_all(&j, &rest, "--plan", "-D", "2", NULL) && j.plan == -1 && rest == 2, "--plan -D 2: -D is not --plan's");
	ok(!take_all(&j, &rest, "--pat", "ring", "--seq", NULL) && j.pattern && !strcmp(j.pattern, "ring") && j.seq &&
	   rest == 0, "--pat ring --seq: unique prefixes of its own");
	ok(!take_all(&j, &rest, "--s", NULL) && !j.seq && rest == 1, "--s: also a benchmark option's prefix, not taken");
	ok(!take_all(&j, &rest, "--pattern", "ring", "-n", "5", NULL) && rest == 2, "the benchmark's words left");
}

int main(void)
{
	log_set_prog("test_compat");
	unsetenv("RB_POLL_PAUSE");
	err_file = tmpfile();
	if (!err_file || dup2(fileno(err_file), 2) < 0)
		return 99;
	test_forms();
	test_perftest_values();
	test_classes();
	test_letters();
	test_take();
	return tap_done();
}
