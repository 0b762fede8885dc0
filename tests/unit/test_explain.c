/*
 * The errors explained (explain.c): every ibv_wc_status libibverbs defines
 * has its own entry, named as the enum, with causes and a check; the
 * entries the issue names say what they must; QP transitions find their
 * state and errno, and "any" rows match every state.
 */
#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "lib/explain.h"
#include "tap.h"

static void test_every_status(void)
{
	int last = IBV_WC_TM_RNDV_INCOMPLETE, bad = 0;

	for (int st = IBV_WC_SUCCESS; st <= last; st++) {
		const struct explain *e = explain_wc(st);
		const char *want = ibv_wc_status_str((enum ibv_wc_status)st);

		if (e->code != st || strncmp(e->name, "IBV_WC_", 7) || !*e->causes || !*e->check) {
			printf("# status %d (%s): entry %s\n", st, want, e->name);
			bad++;
		}
	}
	is_int(bad, 0, "every ibv_wc_status has its own entry with causes and a check");
	is_int(explain_wc_count(), last + 1, "the table holds every status once");
	ok(explain_wc_at(explain_wc_count()) == NULL, "past the end: NULL");
	is_int(explain_wc(9999)->code, -1, "an unknown status gets the generic entry");
}

static void test_named(void)
{
	is_str(explain_wc(IBV_WC_RETRY_EXC_ERR)->name, "IBV_WC_RETRY_EXC_ERR", "status 12 by name");
	ok(strstr(explain_wc(IBV_WC_RETRY_EXC_ERR)->causes, "UDP 4791") != NULL,
	   "retry exceeded names the firewall");
	ok(strstr(explain_wc(IBV_WC_RETRY_EXC_ERR)->causes, "GID") != NULL, "and the GID");
	ok(strstr(explain_wc(IBV_WC_RNR_RETRY_EXC_ERR)->causes, "receive posted") != NULL,
	   "RNR: the receiver did not post receives");
	ok(strstr(explain_wc(IBV_WC_REM_INV_REQ_ERR)->causes, "rkey") != NULL,
	   "remote invalid request: a wrong rkey");
	ok(strstr(explain_wc(IBV_WC_LOC_PROT_ERR)->check, "access flags") != NULL,
	   "local protection: the MR's access flags");
	ok(explain_wc_named("IBV_WC_REM_ACCESS_ERR") == explain_wc(IBV_WC_REM_ACCESS_ERR),
	   "found by name");
	ok(explain_wc_named("IBV_WC_NOPE") == NULL, "an unknown name: NULL");
}

static void test_qp(void)
{
	const struct explain *e = explain_qp("RTR", EINVAL);

	is_str(e->name, "RTR EINVAL", "RTR with EINVAL");
	ok(strstr(e->causes, "GID index") && strstr(e->causes, "path MTU"), "names the GID index and the MTU");
	is_str(explain_qp("INIT", EINVAL)->name, "INIT EINVAL", "INIT with EINVAL: its own row");
	is_str(explain_qp("RTS", ENOMEM)->name, "any ENOMEM", "ENOMEM in any state");
	is_int(explain_qp("RTS", EBADF)->code, -1, "an unknown errno: the generic entry");
	ok(explain_qp("RTRX", EINVAL)->code == -1, "a state is matched whole");
	for (size_t i = 0; i < explain_qp_count(); i++)
		ok(*explain_qp_at(i)->causes && *explain_qp_at(i)->check, "%s: causes and a check",
		   explain_qp_at(i)->name);
}

int main(void)
{
	test_every_status();
	test_named();
	test_qp();
	return tap_done();
}
