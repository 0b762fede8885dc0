/* Build & run: clang -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/fuzz_wire.c src/wire.c -o /tmp/fuzz_wire && /tmp/fuzz_wire -max_total_time=60 -max_len=70000 */
/*
 * libFuzzer target for the wire format: every decoder gets the raw bytes;
 * whatever decodes must re-encode to exactly the same bytes (the decoders
 * are strict, so each valid payload has one encoding; only the QP record's
 * reserved field is ignored on receipt, so it is masked before comparing).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[WIRE_MAX_PAYLOAD + WIRE_HDR_LEN];

static void same(const uint8_t *a, int n, const uint8_t *b, size_t size)
{
	if (n < 0 || (size_t)n != size || memcmp(a, b, size) != 0)
		abort();
}

static void fuzz_hdr(const uint8_t *data, size_t size)
{
	struct wire_hdr h;

	if (size < WIRE_HDR_LEN || wire_hdr_decode(data, &h))
		return;
	wire_hdr_encode(out, h.type, h.length);
	same(out, WIRE_HDR_LEN, data, WIRE_HDR_LEN);
}

static void fuzz_hello(const uint8_t *data, size_t size)
{
	static struct wire_hello m;

	if (wire_hello_decode(data, size, &m))
		return;
	same(out, wire_hello_encode(&m, out, sizeof(out)), data, size);
}

static void fuzz_params(const uint8_t *data, size_t size)
{
	struct wire_param p[WIRE_MAX_PARAMS];
	int n;

	if (wire_params_decode(data, size, p, WIRE_MAX_PARAMS, &n))
		return;
	same(out, wire_params_encode(p, n, out, sizeof(out)), data, size);
}

static void fuzz_qp(const uint8_t *data, size_t size)
{
	static struct wire_qp q[WIRE_MAX_QPS];
	static uint8_t masked[sizeof(out)];
	int n;

	if (wire_qp_decode(data, size, q, WIRE_MAX_QPS, &n))
		return;
	if (size > sizeof(masked))
		abort();
	memcpy(masked, data, size);
	for (int i = 0; i < n; i++)
		memset(masked + 2 + (size_t)i * WIRE_QP_LEN + WIRE_QP_LEN - 2, 0, 2);
	same(out, wire_qp_encode(q, n, out, sizeof(out)), masked, size);
}

static void fuzz_error(const uint8_t *data, size_t size)
{
	char msg[WIRE_MAX_ERROR + 1];

	if (wire_error_decode(data, size, msg, sizeof(msg)))
		return;
	same(out, wire_error_encode(msg, out, sizeof(out)), data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_hdr(data, size);
	fuzz_hello(data, size);
	fuzz_params(data, size);
	fuzz_qp(data, size);
	fuzz_error(data, size);
	if (size >= 2)
		wire_type_name((uint16_t)(data[0] << 8 | data[1]));
	return 0;
}
