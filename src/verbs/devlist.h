/*
 * Listing the RDMA devices for rb_devices: every device, port and non-empty
 * GID with its type, netdev and IP, the NUMA node and how it was found, and
 * the GID index rdmabench would choose.  Human text worth pasting into a bug
 * report, or one JSON document; the same call per field feeds both.
 */
#ifndef RB_DEVLIST_H
#define RB_DEVLIST_H

#include <stdbool.h>
#include <stdio.h>

struct devlist_opts {
	const char *dev;        /* only this device; NULL: all */
	bool json;
	const char *version;    /* rdmabench version, printed in the header */
};

/* Print to f (results only; diagnostics go to stderr).  0, or -ENODEV when
 * there is no device (or no device o->dev), after logging a hint; JSON is
 * then still one document, with an empty "devices" list.  A device or port
 * that cannot be queried is listed with its error, not fatal. */
int devlist_print(FILE *f, const struct devlist_opts *o);

#endif
