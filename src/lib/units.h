/*
 * One scanner for every number on the command line, and the formatting of
 * sizes.  Pure functions, no I/O.
 */
#ifndef RB_UNITS_H
#define RB_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse an unsigned integer with an optional binary suffix: K/k = 2^10,
 * M/m = 2^20, G/g = 2^30 (an optional trailing "B"/"iB" is accepted:
 * "64K", "64KiB", "1M", "4096").  Returns 0, -EINVAL when s is not a number
 * (empty, garbage, sign, trailing junk), -ERANGE when outside [min, max]
 * or overflowing.
 */
int units_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Plain unsigned decimal integer, no suffix. Same returns. */
int units_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A finite floating-point number in [min, max]. Same returns. */
int units_parse_double(const char *s, double min, double max, double *out);

/*
 * A rate with its unit: a number (fractions allowed), then b/s, Kb/s, Mb/s,
 * Gb/s, Tb/s (bits, powers of 1000), B/s, KB/s, MB/s, GB/s (bytes, powers
 * of 1000) or KiB/s, MiB/s, GiB/s (bytes, powers of 1024): "10Gb/s",
 * "950MiB/s".  *out in bytes per second.  -EINVAL without a known unit;
 * -ERANGE outside [min, max] bytes/s.
 */
int units_parse_rate(const char *s, double min, double max, double *out);

/*
 * Format a byte count the way humans read sizes: exact powers of 1024 get a
 * suffix ("2B", "64KiB", "1MiB"), anything else is plain bytes ("1000B").
 * Returns buf.
 */
const char *units_format_size(uint64_t bytes, char *buf, size_t len);

#endif
