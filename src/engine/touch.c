/*
 * The engine's CPU touches of the buffer, in one list.  Every one of them
 * goes through qp.h's qps_cpu_* accessors (the memory's CPU address, mem.h):
 *   the write ping-pong (lat.c): each message's last byte, written by the
 *              sender and polled by the receiver; its receive areas zeroed
 *              before a size (recv.c);
 *   atomics    their target words zeroed before a size (recv.c), their
 *              results read (wr.c's atomic_check, validate.c);
 *   --validate payloads written, poisoned and checked (validate.c).
 * Sends, writes and reads otherwise move bytes the CPU never sees.  A kind
 * the CPU may not touch (device memory) refuses those tests here, at the
 * start of each size's set-up (loop_prepare: the first size stops the
 * run, exit 2), rather than fault in the loop; but for --validate, which
 * then works on a host copy of the buffer (mem.h's stage: validate.c
 * pushes what it wrote before the device reads it, and pulls what the
 * device wrote before it checks it).  The write ping-pong has no
 * host-visible byte to poll in device memory: refused.
 */
#include "engine/touch.h"

#include <errno.h>

#include "engine/internal.h"
#include "lib/log.h"

/* What of this test touches bytes from the CPU, NULL: nothing. */
static const char *cpu_touch(const struct rb_session *s)
{
	if (s->opt->validate && !mem_staged(&s->conn.q.buf))
		return "--validate writes and checks payloads";
	if (s->bench->verb == VERB_WRITE && s->bench->metric == METRIC_LAT)
		return "the write ping-pong writes and polls a byte of each message";
	if (s->bench->verb == VERB_ATOMIC)
		return "atomics zero their target words and read their results";
	return NULL;
}

int loop_check_memory(const struct rb_session *s)
{
	const struct mem_buf *b = &s->conn.q.buf;
	const char *why;

	if (mem_cpu_ok(b))
		return 0;
	why = cpu_touch(s);
	if (!why)
		return 0;
	log_err("%s from the CPU, and memory of kind %s may not be touched by it", why,
		mem_kind_name(b));
	return -EINVAL;
}
