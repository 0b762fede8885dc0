/* rb_send_bw: send/receive bandwidth.  The client sends, the server
 * receives and counts; with -b both do both. */
#include "bench/registry.h"
#include "engine/loops.h"

const struct rb_bench rb_bench_send_bw = {
	.name = "rb_send_bw",
	.title = "Send bandwidth",
	.summary = "Measure send/receive bandwidth and message rate between two RDMA hosts",
	.verb = VERB_SEND,
	.metric = METRIC_BW,
	.transports = TR_RC | TR_UC | TR_UD,
	.features = FEAT_QPS | FEAT_BIDIR | FEAT_POST_LIST | FEAT_CQ_MOD | FEAT_INLINE | FEAT_EVENTS,
	.defaults = { .size = 65536, .iters = 5000, .tx_depth = 128, .rx_depth = 512 },
	.client = loop_bw_post,
	.server = loop_bw_recv,
	.client_bidir = loop_bw_send_bidir,
	.server_bidir = loop_bw_send_bidir,
};
