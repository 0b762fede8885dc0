/* rb_send_lat: send/receive ping-pong latency; one-way = round trip / 2. */
#include "bench/registry.h"
#include "engine/loops.h"

const struct rb_bench rb_bench_send_lat = {
	.name = "rb_send_lat",
	.title = "Send latency",
	.summary = "Measure send/receive latency (ping-pong, half the round trip) between two RDMA hosts",
	.verb = VERB_SEND,
	.metric = METRIC_LAT,
	.transports = TR_RC | TR_UC | TR_UD,
	.features = FEAT_INLINE | FEAT_EVENTS,
	.defaults = { .size = 2, .iters = 1000, .tx_depth = 1, .rx_depth = 2 },
	.lat_divisor = 2,
	.client = loop_lat_send_ping,
	.server = loop_lat_send_pong,
};
