/*
 * The table of errors explained.  Keep each entry on one line in the form
 * WC(NAME, "causes", "check") or QP("STATE", ERRNO, "causes", "check"):
 * man/gen-errors.sh reads these lines to write rdmabench(7)'s ERRORS
 * EXPLAINED section and tests/docs.sh checks the page still agrees.
 */
#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "lib/explain.h"

#define WC(n, c, k) { IBV_WC_##n, "IBV_WC_" #n, c, k }
#define QP(s, e, c, k) { e, s " " #e, c, k }
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct explain wc_table[] = {
	WC(SUCCESS, "no error", "nothing"),
	WC(LOC_LEN_ERR, "a received message is longer than the posted receive buffer, or a UD message is longer than the path MTU", "the same -s on both sides; with -c UD a size up to the path MTU"),
	WC(LOC_QP_OP_ERR, "the work request does not suit the QP: more inline data than the QP grants, too many SGEs, an opcode its transport lacks, or the QP not in RTS", "-I against the inline size granted (--verbose), the transport (-c)"),
	WC(LOC_EEC_OP_ERR, "a reliable-datagram EE context error (rdmabench uses no RD)", "the provider: this status should not appear"),
	WC(LOC_PROT_ERR, "local protection: the buffer is outside its memory region, or the lkey is wrong", "the memory registration (size, access flags) against the message size"),
	WC(WR_FLUSH_ERR, "flushed: the QP had gone to the error state after an earlier failure, so this request was never executed", "the first completion error before this one, on this side or the peer's"),
	WC(MW_BIND_ERR, "a memory window bind failed (rdmabench binds none)", "the provider: this status should not appear"),
	WC(BAD_RESP_ERR, "the responder answered with an unexpected transport opcode: a peer driver bug or corrupted packets", "the peer's driver and version, the port error counters"),
	WC(LOC_ACCESS_ERR, "the local buffer of a read or atomic response is not writable (memory region without local write)", "the access flags of the local memory registration"),
	WC(REM_INV_REQ_ERR, "the peer rejected the request: a size beyond the peer's buffer or receive, a wrong rkey or address, or an operation the peer's QP does not allow (read, atomic)", "the same -s and options on both sides; the peer's QP access flags and -o"),
	WC(REM_ACCESS_ERR, "remote access error: a wrong rkey, an address or length outside the peer's memory region, or a region without remote access", "the rkey and address exchanged, the same -s on both sides"),
	WC(REM_OP_ERR, "the peer could not complete the operation: its receive queue or completion queue overflowed, or an internal error", "the peer's log and dmesg, -r and -t on both sides"),
	WC(RETRY_EXC_ERR, "no acknowledgement from the peer: the peer is gone, a wrong GID or subnet (RoCE v1 on one side, v2 on the other), UDP 4791 blocked by a firewall, a link down, a path MTU above the fabric's", "rb_doctor HOST: the GID types and subnets of both sides, the firewall (UDP 4791), the port state; then -u"),
	WC(RNR_RETRY_EXC_ERR, "receiver not ready: the peer had no receive posted when a send arrived (the receiver does not post receives or is too slow)", "that the peer runs the same benchmark and posts receives; -r on the receiving side"),
	WC(LOC_RDD_VIOL_ERR, "a reliable-datagram domain violation (rdmabench uses no RD)", "the provider: this status should not appear"),
	WC(REM_INV_RD_REQ_ERR, "a reliable-datagram request invalid at the peer (rdmabench uses no RD)", "the provider: this status should not appear"),
	WC(REM_ABORT_ERR, "the peer aborted the operation, e.g. its QP was destroyed mid-message", "the peer's log: did it stop or fail first?"),
	WC(INV_EECN_ERR, "an invalid reliable-datagram EE context number (rdmabench uses no RD)", "the provider: this status should not appear"),
	WC(INV_EEC_STATE_ERR, "an invalid reliable-datagram EE context state (rdmabench uses no RD)", "the provider: this status should not appear"),
	WC(FATAL_ERR, "the device or its driver reported a fatal error", "dmesg, the device's state (rb_doctor); the device may need a reset"),
	WC(RESP_TIMEOUT_ERR, "the responder did not answer in time", "the peer's load and log, the link, -u"),
	WC(GENERAL_ERR, "a provider-specific error without a better status", "dmesg and the provider's documentation"),
	WC(TM_ERR, "a tag-matching error (rdmabench uses no tag matching)", "the provider: this status should not appear"),
	WC(TM_RNDV_INCOMPLETE, "a tag-matching rendezvous left incomplete (rdmabench uses no tag matching)", "the provider: this status should not appear"),
};

static const struct explain qp_table[] = {
	QP("INIT", EINVAL, "the port number is not on the device, the P_Key index is out of range, or an access flag the device lacks (atomics)", "-i against rb_devices; the device's atomic capability"),
	QP("RTR", EINVAL, "the GID index is empty or not on the port, the path MTU is above the port's active MTU, or the peer's QP number or GID is invalid", "-x and -m against rb_doctor; the GID types of both sides"),
	QP("RTR", ETIMEDOUT, "RoCE: the peer's MAC address could not be resolved from its GID (no neighbour answers)", "the peer's IP is reachable from this netdev (ping), both netdevs up"),
	QP("RTR", ENETUNREACH, "RoCE: no route from this GID to the peer's GID (different subnets without a route)", "the GID subnets of both sides (rb_doctor HOST), the routing table"),
	QP("RTR", EHOSTUNREACH, "RoCE: the peer's address is not reachable from this GID's netdev", "the netdev's state and addresses, ping the peer's GID address"),
	QP("RTS", EINVAL, "the timeout or retry count is out of range, or the outstanding reads or atomics exceed the device's limit", "-u and -o against the device limits (rb_devices)"),
	QP("any", ENOMEM, "out of resources: too many QPs or too deep queues, or the locked-memory limit reached", "ulimit -l (rb_doctor), -q, -t and -r"),
	QP("any", EPERM, "not permitted: the process may not use the device or lock memory", "the permissions of /dev/infiniband, ulimit -l"),
};

static const struct explain wc_unknown = {
	-1, "unknown status", "a status this table does not know", "ibv_poll_cq(3) and the provider's documentation"
};
static const struct explain qp_unknown = {
	-1, "other", "an error this table does not know", "dmesg, and the values given with --verbose"
};

const struct explain *explain_wc(int status)
{
	for (size_t i = 0; i < COUNT(wc_table); i++)
		if (wc_table[i].code == status)
			return &wc_table[i];
	return &wc_unknown;
}

const struct explain *explain_wc_named(const char *name)
{
	for (size_t i = 0; i < COUNT(wc_table); i++)
		if (strcmp(wc_table[i].name, name) == 0)
			return &wc_table[i];
	return NULL;
}

size_t explain_wc_count(void)
{
	return COUNT(wc_table);
}

const struct explain *explain_wc_at(size_t i)
{
	return i < COUNT(wc_table) ? &wc_table[i] : NULL;
}

/* "RTR EINVAL" matches state "RTR" and errno EINVAL; "any ..." any state. */
static int qp_matches(const struct explain *e, const char *state, int err)
{
	size_t n = strlen(state);

	if (e->code != err)
		return 0;
	if (strncmp(e->name, "any ", 4) == 0)
		return 1;
	return strncmp(e->name, state, n) == 0 && e->name[n] == ' ';
}

const struct explain *explain_qp(const char *state, int err)
{
	for (size_t i = 0; i < COUNT(qp_table); i++)
		if (qp_matches(&qp_table[i], state, err))
			return &qp_table[i];
	return &qp_unknown;
}

size_t explain_qp_count(void)
{
	return COUNT(qp_table);
}

const struct explain *explain_qp_at(size_t i)
{
	return i < COUNT(qp_table) ? &qp_table[i] : NULL;
}
