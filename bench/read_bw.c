/* rb_read_bw: RDMA read bandwidth.  The client reads the server's buffer,
 * -o reads in flight per QP; the server's CPU takes no part.  With -b both
 * read. */
#include "bench/registry.h"
#include "engine/loops.h"

const struct rb_bench rb_bench_read_bw = {
	.name = "rb_read_bw",
	.title = "RDMA read bandwidth",
	.summary = "Measure RDMA read bandwidth and message rate between two RDMA hosts",
	.verb = VERB_READ,
	.metric = METRIC_BW,
	.transports = TR_RC,
	.features = FEAT_QPS | FEAT_BIDIR | FEAT_POST_LIST | FEAT_CQ_MOD | FEAT_OUTS | FEAT_EVENTS,
	.defaults = { .size = 65536, .iters = 5000, .tx_depth = 128, .rx_depth = 1 },
	.client = loop_bw_post,
	.server = loop_passive,
	.client_bidir = loop_bw_post,
	.server_bidir = loop_bw_post,
};
