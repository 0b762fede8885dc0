/* rb_write_bw: RDMA write bandwidth.  The client writes into the server's
 * buffer; the server's CPU takes no part.  With -b both write. */
#include "bench/registry.h"
#include "engine/loops.h"

const struct rb_bench rb_bench_write_bw = {
	.name = "rb_write_bw",
	.title = "RDMA write bandwidth",
	.summary = "Measure RDMA write bandwidth and message rate between two RDMA hosts",
	.verb = VERB_WRITE,
	.metric = METRIC_BW,
	.transports = TR_RC | TR_UC,
	.features = FEAT_QPS | FEAT_BIDIR | FEAT_POST_LIST | FEAT_CQ_MOD | FEAT_INLINE | FEAT_EVENTS,
	.defaults = { .size = 65536, .iters = 5000, .tx_depth = 128, .rx_depth = 1 },
	.client = loop_bw_post,
	.server = loop_passive,
	.client_bidir = loop_bw_post,
	.server_bidir = loop_bw_post,
};
