/* rb_atomic_lat: latency of one atomic operation at a time (-A
 * FETCH_AND_ADD or CMP_AND_SWAP); its round trip is its latency. */
#include "bench/registry.h"
#include "engine/loops.h"

const struct rb_bench rb_bench_atomic_lat = {
	.name = "rb_atomic_lat",
	.title = "Atomic latency",
	.summary = "Measure RDMA atomic latency (the round trip of one 8-byte fetch-and-add or compare-and-swap)",
	.verb = VERB_ATOMIC,
	.metric = METRIC_LAT,
	.transports = TR_RC,
	.features = FEAT_OUTS | FEAT_ATOMIC_OP | FEAT_EVENTS,
	.defaults = { .size = 8, .iters = 1000, .tx_depth = 1, .rx_depth = 1 },
	.lat_divisor = 1,
	.client = loop_lat_oneside,
	.server = loop_passive,
};
