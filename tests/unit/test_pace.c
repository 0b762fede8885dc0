/*
 * Pacing's arithmetic (src/lib/pace.c): the units as perftest defines
 * them (g: 1e9 bit/s, M: MiB/s, p: messages/s) and the deadlines of the
 * bursts, computed from the burst's number: after a million bursts the
 * deadline is where t0 + k * gap puts it (no rounding error piled up by
 * adding gaps), and the mean rate over any stretch of bursts is the one
 * asked for.
 */
#include "tap.h"

#include "lib/pace.h"

static void units(void)
{
	is_near(pace_pps(1, PACE_GBPS, 1000), 125000, 1e-12, "1 Gbps of 1000-byte messages is 125000 messages/s");
	is_near(pace_pps(200, PACE_MBPS, 4096), 200e6 / 8 / 4096, 1e-12, "200 Mbps at 4096 B");
	is_near(pace_pps(1, PACE_MIBPS, 1024), 1024, 1e-12, "1 MiBps of 1 KiB messages is 1024 messages/s (perftest's M)");
	is_near(pace_pps(5000, PACE_PPS, 65536), 5000, 0, "pps does not depend on the size");
	is_near(pace_rate_of(PACE_MBPS, 6104, 4096, 1.0), 6104 * 4096 * 8 / 1e6, 1e-12, "achieved Mbps from messages, size and seconds");
	is_near(pace_rate_of(PACE_PPS, 3000, 64, 2.0), 1500, 1e-12, "achieved pps");
	ok(isnan(pace_rate_of(PACE_GBPS, 1, 1, 0)), "no window: no rate (NaN)");
	is_str(pace_unit_name(PACE_MIBPS), "MiBps", "MiBps's name");
}

static void deadlines(void)
{
	struct pace p;
	uint64_t t0 = 123456789, k = 1000000, worst = 0;
	double pps = 6103.515625;       /* 200 Mbps at 4096 B */

	pace_init(&p, t0, pps, 64);
	ok(pace_due(&p, 0) == t0, "burst 0 is due at the start");
	is_near((double)(pace_due(&p, 1) - t0), 64 / pps * 1e9, 1e-9, "burst 1 one gap later");
	for (uint64_t i = 0; i <= k; i += 997) {
		double want = (double)t0 + (double)i * 64 / pps * 1e9;
		double err = fabs((double)pace_due(&p, i) - want);

		if (err > worst)
			worst = (uint64_t)err;
	}
	ok(worst <= 1, "a million bursts' deadlines within 1 ns of t0 + k * gap (worst %llu ns)",
	   (unsigned long long)worst);
	is_near((double)k * 64 / ((double)(pace_due(&p, k) - t0) / 1e9), pps, 1e-9,
		"the mean rate over a million bursts is the rate asked for");
	pace_init(&p, 0, 3, 1);
	ok(pace_due(&p, 3) == 1000000000, "3 pps, burst 1: the third burst one second on, exactly");
}

int main(void)
{
	units();
	deadlines();
	return tap_done();
}
