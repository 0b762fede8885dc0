/*
 * Test-only faults, compiled in by configure --enable-test-faults (CI's
 * build-delay/ variant) and nowhere else: RB_TEST_FAULT names one, injected
 * for real so that tests see what users would (tests/integration/t_25):
 *   no-recv   the receiving side posts no receives, and an RC sender's
 *             rnr_retry is 1 instead of 7 (infinite), so the NIC reports
 *             IBV_WC_RNR_RETRY_EXC_ERR instead of retrying for ever;
 *   bad-rkey  RDMA writes, reads and atomics carry a wrong rkey;
 *   corrupt   one message of --validate's payload is altered (engine):
 *             message 0 of QP 0 (a fixed payload: its slot 0);
 *   corrupt-late  message 5 of QP 0 of a bandwidth sender (sends, writes);
 *   stale     --validate's bandwidth loops: every WR of QP 0 after the
 *             first is posted with length 0 (it moves nothing, and
 *             completes as any other).
 *   imm-skip  immediate data (--write_with_imm, --send_with_imm): QP 0's
 *             fourth message carries sequence number 4, not 3 (one lost).
 */
#ifndef RB_TESTFAULT_H
#define RB_TESTFAULT_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static inline bool test_fault(const char *name)
{
#ifdef RB_TEST_FAULTS
	const char *f = getenv("RB_TEST_FAULT");

	return f && strcmp(f, name) == 0;
#else
	(void)name;
	return false;
#endif
}

#endif
