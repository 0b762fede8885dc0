/*
 * The watch agent: one thread, one loop.  Each local NIC of the pinglist
 * gets a UD endpoint (mesh_ud.c); each of its peers a state (mesh_peer.c):
 * its address resolved by SIDR, its probes scheduled at its tier's rate,
 * its window (mesh_window.c).  At every window's end the agent closes
 * every peer's window, hands the records to the sinks, runs attribution
 * (mesh_attrib.c) on its own links and hands the verdicts on as alerts.
 *
 * The loop sleeps in poll(2) on the rdma_cm channel and the NICs'
 * completion channels, waking at least every tick (10 ms, or a quarter of
 * the shortest probe period) to send what is due and judge what timed out.
 *
 * Time: probes are stamped in software (CLOCK_MONOTONIC at the post and at
 * the poll that saw the reply), the responder's turnaround (its own
 * stamps, in the reply) subtracted.  Records carry CLOCK_REALTIME seconds.
 */
#ifndef RB_MESH_AGENT_H
#define RB_MESH_AGENT_H

#include <signal.h>
#include <stdint.h>

#include "prog/mesh/mesh.h"
#include "prog/mesh/mesh_attrib.h"
#include "prog/mesh/mesh_pinglist.h"

struct mesh_watch_opts {
	const char *pinglist;           /* --pinglist FILE */
	const char *listen, *textfile, *jsonl;  /* the sinks (none given: --jsonl -) */
	uint16_t port;                  /* --port: this agent's rdma_cm port */
	double window_s;                /* --window */
	double duration_s;              /* --duration (0: until a signal) */
	double timeout_ms;              /* --timeout: a probe's answer is due within */
	struct pl_opts pl;              /* --host, --rate-*, --cross-peers, --max-peers, --intra */
	struct mesh_thresholds thr;     /* --max-loss, --max-p99 */
	struct attrib_opts at;
};

/* Run until *stop or --duration: the exit status (0, or 1 with why on
 * stderr: a NIC that could not be opened, a CQ that failed). */
int mesh_watch(const struct mesh_watch_opts *o, volatile sig_atomic_t *stop);

#endif
