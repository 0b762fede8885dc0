#include "lib/pace.h"

#include <math.h>

const char *pace_unit_name(enum pace_unit u)
{
	switch (u) {
	case PACE_GBPS: return "Gbps";
	case PACE_MBPS: return "Mbps";
	case PACE_MIBPS: return "MiBps";
	default: return "pps";
	}
}

/* Payload bytes (or, for pps, messages) per second in one unit of u. */
static double unit_bytes(enum pace_unit u)
{
	switch (u) {
	case PACE_GBPS: return 1e9 / 8;
	case PACE_MBPS: return 1e6 / 8;
	case PACE_MIBPS: return 1048576.0;
	default: return 0;
	}
}

double pace_pps(double rate, enum pace_unit u, uint64_t size)
{
	return u == PACE_PPS ? rate : rate * unit_bytes(u) / (double)size;
}

double pace_rate_of(enum pace_unit u, uint64_t msgs, uint64_t size, double secs)
{
	if (!(secs > 0))
		return NAN;
	if (u == PACE_PPS)
		return (double)msgs / secs;
	return (double)msgs * (double)size / secs / unit_bytes(u);
}

void pace_init(struct pace *p, uint64_t t0, double pps, uint64_t burst)
{
	p->t0 = t0;
	p->burst_ns = (double)burst * 1e9 / pps;
}
