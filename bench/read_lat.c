/* rb_read_lat: RDMA read latency, one read at a time; the full round trip
 * of each read is its latency.  The server's CPU takes no part. */
#include "bench/registry.h"
#include "engine/loops.h"

const struct rb_bench rb_bench_read_lat = {
	.name = "rb_read_lat",
	.title = "RDMA read latency",
	.summary = "Measure RDMA read latency (the round trip of one read) between two RDMA hosts",
	.verb = VERB_READ,
	.metric = METRIC_LAT,
	.transports = TR_RC,
	.features = FEAT_OUTS | FEAT_EVENTS,
	.defaults = { .size = 2, .iters = 1000, .tx_depth = 1, .rx_depth = 1 },
	.lat_divisor = 1,
	.client = loop_lat_oneside,
	.server = loop_passive,
};
