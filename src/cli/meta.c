/* The metadata the options give: the META rows of rows.c, in their seq
 * order, each where its benchmark features and its "when" say. */
#include "cli/options.h"

#include "cli/rows.h"
#include "lib/output.h"

#define CFIELD(o, r, type) ((const type *)((const char *)(o) + (r)->off))

void meta_load(struct out *out, const void *o, const struct opt_row *r)
{
	out_meta_str(out, r->meta.key, r->meta.label, load_bench_name(((const struct rb_options *)o)->load_bench));
}

/* The load's CPU, then --load-compare's repetitions where given. */
void meta_load_tail(struct out *out, const void *o, const struct opt_row *r)
{
	out_meta_str(out, r->meta.key, r->meta.label,
		     "a thread of its own, its CPU chosen apart from the latency loop's (column load_cpu)");
	if (((const struct rb_options *)o)->load.compare)
		out_meta_u64(out, "load_compare_reps", "Idle/loaded reps", LOAD_COMPARE_REPS);
}

/* How the loops wait for completions (--events, --poll-pause). */
void meta_completion(struct out *out, const void *o, const struct opt_row *r)
{
	const struct rb_options *opt = o;
	const char *t;

	if (opt->events)
		t = opt->poll_pause ? "events, pause between empty polls" : "events";
	else
		t = opt->poll_pause ? "busy poll, pause between empty polls" : "busy poll";
	out_meta_str(out, r->meta.key, r->meta.label, t);
}

void meta_min_bw(struct out *out, const void *o, const struct opt_row *r)
{
	const struct rb_options *opt = o;

	if (opt->min_bw_text)
		out_meta_str(out, r->meta.key, r->meta.label, opt->min_bw_text);
}

static bool is_set(const struct opt_row *r, const struct rb_options *o)
{
	if (r->type == OT_SECONDS || r->type == OT_NUMBER)
		return *CFIELD(o, r, double) > 0;
	if (r->type == OT_STR)
		return *CFIELD(o, r, const char *) != NULL;
	return opt_value_u64(r, o) != 0;
}

static bool meta_wanted(const struct opt_row *r, const struct rb_options *o, unsigned features)
{
	bool timed = o->duration_s > 0 || o->run_infinitely;

	if (r->meta.feat && !(features & r->meta.feat))
		return false;
	switch (r->meta.when) {
	case MW_ALWAYS: return true;
	case MW_SET: return is_set(r, o);
	case MW_ITERS: return !timed;
	case MW_DURATION: return !o->run_infinitely && o->duration_s > 0;
	case MW_TIMED: return timed;
	case MW_LOAD: return o->load_bench != LOAD_NONE;
	}
	return false;
}

static void meta_write(struct out *out, const struct opt_row *r, const struct rb_options *o)
{
	char text[64];

	if (r->meta.fn)
		r->meta.fn(out, o, r);
	else if (r->type == OT_FLAG)
		out_meta_str(out, r->meta.key, r->meta.label, *CFIELD(o, r, bool) ? r->meta.on : r->meta.off);
	else if (r->type == OT_SECONDS || r->type == OT_NUMBER)
		out_meta_double(out, r->meta.key, r->meta.label, *CFIELD(o, r, double), 3);
	else if (r->type == OT_ENUM || r->type == OT_STR) {
		opt_value_text(r, o, text, sizeof(text));
		out_meta_str(out, r->meta.key, r->meta.label, text);
	} else
		out_meta_u64(out, r->meta.key, r->meta.label, opt_value_u64(r, o));
}

void options_meta(struct out *out, const struct rb_options *o, const struct rb_bench *b,
		  enum options_meta_part part)
{
	unsigned features = options_features(b);

	for (unsigned seq = part * 100; seq < part * 100 + 100; seq++)
		for (size_t i = 0; i < options_prog.n; i++) {
			const struct opt_row *r = &options_prog.rows[i];

			if (r->meta.seq == seq && meta_wanted(r, o, features))
				meta_write(out, r, o);
		}
}

/* --rate_units, --rate_limit_type, --burst_size: as the run paces, and
 * only when it does (--rate_limit). */
void meta_paced(struct out *out, const void *o, const struct opt_row *r)
{
	const struct rb_options *opt = o;
	char text[64];

	if (!(opt->rate_limit > 0) || (r->type != OT_ENUM && opt->rate_type != RT_SW))
		return;
	if (r->type == OT_ENUM) {
		opt_value_text(r, o, text, sizeof(text));
		out_meta_str(out, r->meta.key, r->meta.label, text);
	} else
		out_meta_u64(out, r->meta.key, r->meta.label, opt_value_u64(r, o));
}
