/* rb_atomic_bw: atomic operation rate (-A FETCH_AND_ADD or CMP_AND_SWAP on
 * an 8-byte operand in the server's buffer). */
#include "bench/registry.h"
#include "engine/loops.h"

const struct rb_bench rb_bench_atomic_bw = {
	.name = "rb_atomic_bw",
	.title = "Atomic bandwidth",
	.summary = "Measure the rate of RDMA atomic operations (8-byte fetch-and-add or compare-and-swap)",
	.verb = VERB_ATOMIC,
	.metric = METRIC_BW,
	.transports = TR_RC,
	.features = FEAT_QPS | FEAT_BIDIR | FEAT_POST_LIST | FEAT_CQ_MOD | FEAT_OUTS | FEAT_ATOMIC_OP | FEAT_EVENTS,
	.defaults = { .size = 8, .iters = 5000, .tx_depth = 128, .rx_depth = 1 },
	.client = loop_bw_post,
	.server = loop_passive,
	.client_bidir = loop_bw_post,
	.server_bidir = loop_bw_post,
};
