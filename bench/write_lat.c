/* rb_write_lat: RDMA write ping-pong latency.  Each side writes into the
 * other's buffer and spins on its own until the answer lands; one-way =
 * round trip / 2. */
#include "bench/registry.h"
#include "engine/loops.h"

const struct rb_bench rb_bench_write_lat = {
	.name = "rb_write_lat",
	.title = "RDMA write latency",
	.summary = "Measure RDMA write latency (ping-pong, half the round trip) between two RDMA hosts",
	.verb = VERB_WRITE,
	.metric = METRIC_LAT,
	.transports = TR_RC | TR_UC,
	.features = FEAT_INLINE,
	.defaults = { .size = 2, .iters = 1000, .tx_depth = 1, .rx_depth = 1 },
	.lat_divisor = 2,
	.client = loop_lat_write_ping,
	.server = loop_lat_write_pong,
};
