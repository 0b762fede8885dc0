/*
 * Pacing (--rate_limit, --latency_gap): rates in the user's units turned
 * into messages per second, and the deadline of each burst.  Pure: no
 * clock is read here (tests/unit/test_pace.c).
 *
 * The rule.  A paced run sends bursts of burst messages; the k-th burst
 * (from 0) is due at t0 + k * burst / pps seconds, computed from k each
 * time, never by adding a gap to the last deadline read: a late burst
 * (a sleep that overslept, a full queue) moves no later deadline, so no
 * error accumulates and the run's mean rate is the one asked for as long
 * as the device keeps up (a burst late by more than a gap is followed at
 * once by the next: catching up, as perftest's limiter also does).
 */
#ifndef RB_LIB_PACE_H
#define RB_LIB_PACE_H

#include <stdint.h>

/* --rate_units: the rate's unit (payload bits or bytes, or messages). */
enum pace_unit { PACE_GBPS, PACE_MBPS, PACE_MIBPS, PACE_PPS };

/* The name a unit is written with in the metadata ("Gbps"). */
const char *pace_unit_name(enum pace_unit u);
/* Messages per second that rate (in u) asks for with size-byte messages. */
double pace_pps(double rate, enum pace_unit u, uint64_t size);
/* msgs messages of size bytes in secs seconds, as a rate in u (NaN if
 * secs is not above 0). */
double pace_rate_of(enum pace_unit u, uint64_t msgs, uint64_t size, double secs);

struct pace {
	uint64_t t0;            /* when burst 0 is due (ns) */
	double burst_ns;        /* ns between two bursts' deadlines */
};

/* burst messages at pps messages per second, from t0 (ns). */
void pace_init(struct pace *p, uint64_t t0, double pps, uint64_t burst);

/* Burst k's deadline (ns). */
static inline uint64_t pace_due(const struct pace *p, uint64_t k)
{
	return p->t0 + (uint64_t)((double)k * p->burst_ns);
}

#endif
