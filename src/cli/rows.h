/*
 * The benchmarks' option rows (rows.c), for the files of src/cli/ only:
 *   optrow.h   the row and the one typed parser (optparse.c)
 *   rows.c     the table: one line per option (data)
 *   options.c  defaults, the values' own parsers, --help, options_parse
 *   rules.c    the combinations no single row can check
 *   meta.c     the metadata the META rows write
 */
#ifndef RB_ROWS_H
#define RB_ROWS_H

#include "cli/optrow.h"
#include "cli/options.h"

/* The groups of --help, in this order. */
enum opt_group { G_CONN, G_TEST, G_OUTPUT, G_PLACE, G_INFO, G_N };

extern const struct opt_prog options_prog;
/* perftest's option names, every one, and how each is taken (compat.c). */
extern const struct opt_compat options_compat[];

/* The values with parsers of their own (options.c). */
int opt_parse_mtu(const struct opt_row *r, const char *val, void *dst);
int opt_parse_ip(const struct opt_row *r, const char *val, void *dst);
int opt_parse_rate(const struct opt_row *r, const char *val, void *dst);
int opt_parse_load_size(const struct opt_row *r, const char *val, void *dst);
int opt_parse_pcts(const struct opt_row *r, const char *val, void *dst);
int opt_parse_output(const struct opt_row *r, const char *val, void *dst);
int opt_parse_counters(const struct opt_row *r, const char *val, void *dst);
int opt_parse_clock(const struct opt_row *r, const char *val, void *dst);
int opt_parse_mgid(const struct opt_row *r, const char *val, void *dst);
/* Path control (path.c): --flow_label's list, the rules, the metadata. */
int opt_parse_flow_label(const struct opt_row *r, const char *val, void *dst);
int options_path_check(const struct rb_options *o);
void meta_flow_labels(struct out *out, const void *o, const struct opt_row *r);
void meta_hop_limit(struct out *out, const void *o, const struct opt_row *r);
void meta_retry_count(struct out *out, const void *o, const struct opt_row *r);
int options_bad_value(const struct opt_row *r, const char *val, int err, const char *expect);
/* How the benchmarks word a command-line error (opt_prog's error). */
int options_error(const char *who, enum opt_err kind, const struct opt_row *r, const char *word,
		  int err, const char *expect);
/* A usage error: the message, then "try '--help'"; -EINVAL. */
int options_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The bench file's features and those its metric and verb imply. */
unsigned options_features(const struct rb_bench *b);

/* HELLO's values that are not the field as it is (hello.h says why). */
uint64_t peer_iters(const void *o, const void *b);
uint64_t peer_duration_ms(const void *o, const void *b);
uint64_t peer_warmup_ms(const void *o, const void *b);
uint64_t peer_pcts(const void *o, const void *b);
uint64_t peer_counters(const void *o, const void *b);
uint64_t peer_load(const void *o, const void *b);
uint64_t peer_load_size(const void *o, const void *b);
uint64_t peer_load_qps(const void *o, const void *b);
uint64_t peer_tx_depth(const void *o, const void *b);
uint64_t peer_cq_mod(const void *o, const void *b);
uint64_t peer_rx_depth(const void *o, const void *b);
uint64_t peer_inline(const void *o, const void *b);
uint64_t peer_events(const void *o, const void *b);
uint64_t peer_atomic_same(const void *o, const void *b);
uint64_t peer_mgid(const void *o, const void *b);
uint64_t peer_rate_limit(const void *o, const void *b);
/* ... and as the user wrote them ("UC", "default", "on"). */
const char *peer_text_transport(uint64_t v, char *buf, size_t len);
const char *peer_text_atomic(uint64_t v, char *buf, size_t len);
const char *peer_text_load(uint64_t v, char *buf, size_t len);
const char *peer_text_list(uint64_t v, char *buf, size_t len);
const char *peer_text_given(uint64_t v, char *buf, size_t len);
const char *peer_text_inline(uint64_t v, char *buf, size_t len);
const char *peer_text_onoff(uint64_t v, char *buf, size_t len);
const char *peer_text_mgid(uint64_t v, char *buf, size_t len);
const char *peer_text_rate(uint64_t v, char *buf, size_t len);

/* The META rows' keys that are not the field as it is (meta.c). */
void meta_load(struct out *out, const void *o, const struct opt_row *r);
void meta_load_tail(struct out *out, const void *o, const struct opt_row *r);
void meta_completion(struct out *out, const void *o, const struct opt_row *r);
void meta_min_bw(struct out *out, const void *o, const struct opt_row *r);
void meta_paced(struct out *out, const void *o, const struct opt_row *r);

extern const struct opt_name transport_names[], atomic_names[], pt_output_names[];

#endif
