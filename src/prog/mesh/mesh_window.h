/*
 * One peer's probes, window by window.  Pure: the caller passes times in
 * ns (CLOCK_MONOTONIC) and says what happened; this file counts.
 *
 * A probe's fate is decided once: answered (a reply with its sequence
 * number arrived within timeout_ns of the send, at timeout_ns still in
 * time), lost (no reply within timeout_ns),
 * or restarted (the peer's epoch changed while it was outstanding: a
 * restarted peer is not read as loss).  A fate counts in the window in
 * which it is decided; sent counts in the window of the send.  So
 *
 *     loss = lost / (answered + lost)      (0 when both are 0)
 *
 * and a reply that comes after its probe was judged lost is counted in
 * late, never twice (a probe is judged lost once its timeout has passed,
 * whether mw_expire, mw_answer or mw_close sees it first: a reply after
 * the timeout is late even when nothing expired the probe before it).
 * Late is known for the last MW_LATE_SEQS probes sent: a reply to an
 * older one is unknown, like a duplicate or a restarted probe's.  At
 * most MW_OUTSTANDING probes are in flight per peer: a send beyond it
 * judges the oldest lost at once (the cap, not the clock, bounds memory).
 *
 * Epochs (the peer agent's run, compared for equality only; 0: not
 * said): the first epoch learned is no restart.  A reply from another
 * epoch than the known one restarts the probes sent before the one it
 * answers (they went to the run that ended); mw_epoch with another
 * epoch restarts every outstanding probe.  Each change counts in
 * restarts.
 *
 * RTTs: every answered probe's RTT is kept, up to rtt_cap a window
 * (allocated once, by mw_init); beyond it a deterministic reservoir
 * (seeded by the sequence number) keeps rtt_cap of them, so the
 * percentiles are exact up to rtt_cap answers a window and a uniform
 * sample beyond.  Percentiles: nearest rank of the sorted kept RTTs
 * (the ceil(p * n)-th smallest); the max is exact, over every answer.
 */
#ifndef RB_MESH_WINDOW_H
#define RB_MESH_WINDOW_H

#include <stdint.h>
#include "prog/mesh/mesh.h"

#define MW_OUTSTANDING 64
#define MW_LATE_SEQS 256                /* probes whose loss a late reply finds */

struct mw_probe {
	uint64_t seq, sent_ns, epoch;   /* epoch: the peer's, as known at the send */
};

struct mesh_win {
	uint64_t timeout_ns;
	uint64_t start_ns;              /* this window's start */
	uint64_t next_seq;              /* the next probe's sequence number (from 1) */
	uint64_t epoch;                 /* the peer's epoch (0: none known yet) */
	uint64_t sent, answered, lost, restarted, late;        /* this window */
	uint64_t restarts;              /* epoch changes seen, ever */
	struct mw_probe out[MW_OUTSTANDING];    /* a ring: oldest at out_head */
	int out_head, out_n;
	uint64_t lost_bits[MW_LATE_SEQS / 64];  /* seq % MW_LATE_SEQS: judged lost */
	uint32_t *rtt_ns;               /* rtt_cap kept RTTs of this window */
	int rtt_cap, rtt_n;
	uint64_t rtt_seen;              /* answers this window (reservoir) */
	uint64_t rtt_max_ns;            /* exact, even beyond the reservoir */
};

/* 0, -ENOMEM, or -EINVAL when rtt_cap < 1. */
int mw_init(struct mesh_win *w, uint64_t now_ns, uint64_t timeout_ns, int rtt_cap);
void mw_free(struct mesh_win *w);
/* A probe is being sent now: its sequence number. */
uint64_t mw_send(struct mesh_win *w, uint64_t now_ns);
/* A reply to seq from the peer in epoch: 0 counted, -ENOENT late or
 * unknown (counted in late when it was judged lost).  A new epoch first
 * turns the older outstanding probes into restarted. */
int mw_answer(struct mesh_win *w, uint64_t seq, uint64_t epoch, uint64_t now_ns);
/* The peer is known (e.g. by a new address resolution) to be in epoch:
 * a change turns the outstanding probes into restarted. */
void mw_epoch(struct mesh_win *w, uint64_t epoch);
/* Outstanding probes older than the timeout become lost. */
void mw_expire(struct mesh_win *w, uint64_t now_ns);
/* The window [start, now): expire, then fill r's counts, loss, RTT
 * percentiles (NaN without answers) and peer_epoch, and start the next
 * window at now.  r's other fields (local, peer, tier, times as real
 * time, hw_stamps) are the caller's. */
void mw_close(struct mesh_win *w, uint64_t now_ns, struct mesh_window_rec *r);
/* Inactive: how long since the last answer could be known (for a
 * caller that re-resolves a silent peer): ns since the oldest
 * outstanding probe was sent, 0 with none outstanding. */
uint64_t mw_silent_ns(const struct mesh_win *w, uint64_t now_ns);

#endif
