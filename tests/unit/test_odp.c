/*
 * --odp's capability check (src/verbs/odp.h) without a device: what each
 * operation needs on each transport, SRQ_RECV serving for RECV, a device
 * without IBV_ODP_SUPPORT lacking everything, and the texts the metadata
 * and the refusal carry.
 */
#include <string.h>

#include "verbs/odp.h"
#include "tap.h"

#define PLAN 12

/* rxe on Linux 7.3 (ibv_query_device_ex in the test bed, 2026-12-03). */
static const struct odp_caps rxe73 = { IBV_ODP_SUPPORT, 0xff, 0, 0x23 };

static void test_missing(void)
{
	struct odp_caps none = { 0, 0xff, 0xff, 0xff };
	struct odp_caps srq = { IBV_ODP_SUPPORT, IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV, 0, 0 };

	is_int(odp_missing(&rxe73, TR_RC, VERB_WRITE), 0, "rxe 7.3: RC write covered");
	is_int(odp_missing(&rxe73, TR_RC, VERB_SEND), 0, "rxe 7.3: RC send covered");
	is_int(odp_missing(&rxe73, TR_RC, VERB_ATOMIC), 0, "rxe 7.3: RC atomics covered");
	is_int(odp_missing(&rxe73, TR_UD, VERB_SEND), 0, "rxe 7.3: UD send covered (SEND, SRQ_RECV)");
	is_int(odp_missing(&rxe73, TR_UC, VERB_WRITE), IBV_ODP_SUPPORT_WRITE, "rxe 7.3: UC write lacks WRITE");
	is_int(odp_missing(&rxe73, TR_UC, VERB_SEND), IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV,
	       "rxe 7.3: UC send lacks SEND and RECV");
	is_int(odp_missing(&none, TR_RC, VERB_READ), IBV_ODP_SUPPORT_READ,
	       "no IBV_ODP_SUPPORT: read lacks READ whatever the transport bits say");
	is_int(odp_missing(&srq, TR_RC, VERB_SEND), 0, "SRQ_RECV serves for RECV");
}

static void test_text(void)
{
	struct odp_caps none = { 0, 0, 0, 0 };
	char buf[160];

	odp_caps_text(&rxe73, buf, sizeof(buf));
	is_str(buf, "RC SEND,RECV,WRITE,READ,ATOMIC,SRQ_RECV UC none UD SEND,RECV,SRQ_RECV",
	       "rxe 7.3's caps as text");
	odp_caps_text(&none, buf, sizeof(buf));
	is_str(buf, "none", "no ODP: \"none\"");
	odp_bits_text(IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ, buf, sizeof(buf));
	is_str(buf, "WRITE,READ", "bits: WRITE,READ");
	odp_bits_text(IBV_ODP_SUPPORT_SEND, buf, 3);
	ok(strlen(buf) < 3, "a short buffer is not overrun: '%s'", buf);
}

int main(void)
{
	printf("1..%d\n", PLAN);
	test_missing();
	test_text();
	return tap_failed || tap_n != PLAN;
}
