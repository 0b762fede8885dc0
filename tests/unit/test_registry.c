/* bench/registry.c against bench/list.h: every line's table, in order,
 * found by both spellings of its name, named "rb_NAME", with its loops; the
 * rb_mpi --bench text ("send_bw|send_lat|...") from the same list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/registry.h"
#include "tap.h"

struct line {
	const char *name;
	const struct rb_bench *table;
};

static const struct line lines[] = {
#define BENCH(n) { #n, &rb_bench_##n },
#include "bench/list.h"
#undef BENCH
};
#define N_LINES (sizeof(lines) / sizeof(lines[0]))

static void check_line(size_t i, const struct line *l)
{
	char want[64], msg[160];

	snprintf(want, sizeof(want), "rb_%s", l->name);
	snprintf(msg, sizeof(msg), "line %zu (%s): bench_at gives its table", i + 1, l->name);
	ok(bench_at(i) == l->table, "%s", msg);
	snprintf(msg, sizeof(msg), "%s: the table's name is %s", l->name, want);
	is_str(l->table->name, want, msg);
	ok(bench_find(l->name) == l->table, "bench_find(\"%s\")", l->name);
	ok(bench_find(want) == l->table, "bench_find(\"%s\")", want);
	ok(l->table->title && l->table->summary && l->table->client && l->table->server,
	   "%s: title, summary, client and server loops", l->name);
}

static void check_list_text(void)
{
	char want[512] = "", *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	for (size_t i = 0; i < N_LINES; i++) {
		if (i)
			strcat(want, "|");
		strcat(want, lines[i].name);
	}
	if (f) {
		bench_list(f);
		fclose(f);
	}
	is_str(got ? got : "", want, "bench_list: the names in the list's order, '|' between");
	free(got);
}

int main(void)
{
	is_int((int)bench_count(), (int)N_LINES, "bench_count: one table per line of bench/list.h");
	for (size_t i = 0; i < N_LINES; i++)
		check_line(i, &lines[i]);
	ok(bench_at(N_LINES) == NULL, "bench_at past the end: NULL");
	ok(bench_find("no_such_bw") == NULL, "bench_find of an unknown name: NULL");
	ok(bench_find("") == NULL && bench_find("rb_") == NULL, "bench_find(\"\") and (\"rb_\"): NULL");
	ok(bench_find("send") == NULL && bench_find("rb_send_bw2") == NULL, "no prefix or longer match");
	check_list_text();
	return tap_done();
}
