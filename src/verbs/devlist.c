/*
 * The device listing of rb_devices.  Each field is printed by one pr_*()
 * call that writes either its human form (a label, then the value) or its
 * JSON member, so the two formats cannot drift apart.
 */
#include "verbs/devlist.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <infiniband/verbs.h>

#include "lib/commit.h"
#include "verbs/device.h"
#include "lib/gid.h"
#include "lib/log.h"
#include "lib/output.h"
#include "lib/sysfs.h"

#define DEVLIST_SCHEMA_VERSION 1

struct pr {
	FILE *f;
	bool json;
	bool comma;             /* a JSON member/element was written at this level */
};

/* ---- the printer ---------------------------------------------------- */

static void pr_member(struct pr *p, const char *key)
{
	if (p->comma)
		fputc(',', p->f);
	p->comma = true;
	if (key) {
		out_json_string(p->f, key);
		fputc(':', p->f);
	}
}

/* JSON only: open an object '{' or array '[' (key NULL inside an array). */
static void pr_open(struct pr *p, const char *key, char c)
{
	if (!p->json)
		return;
	pr_member(p, key);
	fputc(c, p->f);
	p->comma = false;
}

static void pr_close(struct pr *p, char c)
{
	if (!p->json)
		return;
	fputc(c, p->f);
	p->comma = true;
}

/* Human only: punctuation and line breaks. */
static void pr_text(struct pr *p, const char *s)
{
	if (!p->json)
		fputs(s, p->f);
}

/* Human: label then the value padded to width ("-" when NULL or ""), or
 * nothing when label is NULL; JSON: "key": "value" or null. */
static void pr_str(struct pr *p, const char *key, const char *label, int width,
		   const char *v)
{
	bool none = !v || !*v;

	if (p->json) {
		pr_member(p, key);
		if (none)
			fputs("null", p->f);
		else
			out_json_string(p->f, v);
		return;
	}
	if (label)
		fprintf(p->f, "%s%-*s", label, width, none ? "-" : v);
}

/* As pr_str for a number; negative prints as JSON null / "none". */
static void pr_int(struct pr *p, const char *key, const char *label, int width, long long v)
{
	char s[24] = "none";

	if (v >= 0)
		snprintf(s, sizeof(s), "%lld", v);
	if (p->json && v >= 0) {
		pr_member(p, key);
		fputs(s, p->f);
		return;
	}
	pr_str(p, key, label, width, s);
}

/* ---- GIDs ----------------------------------------------------------- */

static void gid_print(struct pr *p, const struct gid_entry *e, bool ib_link)
{
	char ip[64] = "", gid[64];

	gid_format(e->raw, gid, sizeof(gid));
	if (!ib_link)
		gid_ip(e->raw, ip, sizeof(ip));
	pr_open(p, NULL, '{');
	pr_int(p, "index", "    ", 5, e->index);
	pr_str(p, "type", "  ", 8, gid_type_name(e->type));
	pr_str(p, "netdev", "  ", 12, e->netdev);
	pr_str(p, "ip", "  ", 26, ip);
	pr_str(p, "gid", "  ", 0, gid);
	pr_text(p, "\n");
	pr_close(p, '}');
}

static void gids_print(struct pr *p, struct ibv_context *ctx, int port, bool ib_link,
		       int tbl_len)
{
	struct gid_entry *t = calloc(tbl_len > 0 ? (size_t)tbl_len : 1, sizeof(*t));
	int n = t ? device_gid_table(ctx, port, ib_link, t, tbl_len) : -ENOMEM;
	char why[160] = "";
	int chosen;

	pr_text(p, "    index  type      netdev        IP                          GID\n");
	pr_open(p, "gids", '[');
	for (int i = 0; i < n; i++)
		if (!t[i].empty)
			gid_print(p, &t[i], ib_link);
	pr_close(p, ']');
	chosen = n >= 0 ? gid_choose(t, n, ib_link, why, sizeof(why)) : n;
	pr_int(p, "default_gid_index", "    default GID index ", 0, chosen);
	pr_str(p, "default_gid_reason", ": ", 0, n >= 0 ? why : strerror(-n));
	pr_text(p, "\n");
	free(t);
}

/* ---- ports and devices ---------------------------------------------- */

static const char *link_layer_name(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "unspecified";
	}
}

static void port_print(struct pr *p, struct ibv_context *ctx, int port)
{
	struct ibv_port_attr a;
	int err = ibv_query_port(ctx, (uint8_t)port, &a);
	bool ib_link;

	pr_open(p, NULL, '{');
	pr_int(p, "port", "  port ", 0, port);
	if (err) {
		pr_str(p, "error", ": ibv_query_port: ", 0, strerror(err));
		pr_text(p, "\n");
		pr_close(p, '}');
		return;
	}
	ib_link = a.link_layer == IBV_LINK_LAYER_INFINIBAND;
	pr_str(p, "state", ": ", 0, ibv_port_state_str(a.state));
	pr_str(p, "link_layer", ", link layer ", 0, link_layer_name(a.link_layer));
	pr_int(p, "active_mtu", ", active MTU ", 0, device_mtu_bytes(a.active_mtu));
	pr_int(p, "max_mtu", ", max MTU ", 0, device_mtu_bytes(a.max_mtu));
	if (ib_link)
		pr_int(p, "lid", ", LID ", 0, a.lid);
	pr_int(p, "gid_table_len", ", GID table ", 0, a.gid_tbl_len);
	pr_text(p, " entries\n");
	gids_print(p, ctx, port, ib_link, a.gid_tbl_len);
	pr_close(p, '}');
}

static void guid_format(__be64 guid, char *buf, size_t len)
{
	uint64_t g = be64toh(guid);

	snprintf(buf, len, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
		 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff,
		 (unsigned)g & 0xffff);
}

/* Device-wide facts that need no open context: netdev, NUMA node, GUID. */
static void dev_sysfs_print(struct pr *p, struct ibv_device *dev)
{
	const char *name = ibv_get_device_name(dev);
	char netdev[64], why[160], guid[24];
	int node;

	guid_format(ibv_get_device_guid(dev), guid, sizeof(guid));
	pr_str(p, "node_guid", ", node GUID ", 0, guid);
	if (sysfs_device_netdev("", name, netdev, sizeof(netdev)))
		netdev[0] = '\0';
	pr_str(p, "netdev", ", netdev ", 0, netdev);
	node = sysfs_device_numa_node("", name, why, sizeof(why));
	pr_int(p, "numa_node", "\n  NUMA node ", 0, node);
	pr_str(p, "numa_source", " (", 0, why);
	pr_text(p, ")\n");
}

static void dev_print(struct pr *p, struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibv_device_attr a;
	int err = ctx ? ibv_query_device(ctx, &a) : errno;

	pr_open(p, NULL, '{');
	pr_str(p, "name", "", 0, ibv_get_device_name(dev));
	pr_str(p, "node_type", ": ", 0, ibv_node_type_str(dev->node_type));
	if (err) {
		pr_str(p, "error", ", cannot query: ", 0, strerror(err));
		pr_text(p, "\n");
	} else {
		pr_str(p, "fw_ver", ", firmware ", 0, a.fw_ver);
		dev_sysfs_print(p, dev);
		pr_open(p, "ports", '[');
		for (int port = 1; port <= a.phys_port_cnt; port++)
			port_print(p, ctx, port);
		pr_close(p, ']');
	}
	pr_text(p, "\n");
	pr_close(p, '}');
	if (ctx)
		ibv_close_device(ctx);
}

static void header_print(struct pr *p, const char *version)
{
	struct utsname u = { .nodename = "" };
	char kernel[256] = "";

	if (uname(&u) == 0)
		snprintf(kernel, sizeof(kernel), "%s %s %s", u.sysname, u.release, u.machine);
	pr_open(p, NULL, '{');
	pr_int(p, "schema_version", NULL, 0, DEVLIST_SCHEMA_VERSION);
	pr_str(p, "tool", "", 0, "rb_devices");
	pr_str(p, "version", " ", 0, version);
	pr_str(p, "commit", " commit ", 0, rb_commit());
	pr_str(p, "kernel", " on ", 0, kernel);
	pr_str(p, "host", ", host ", 0, u.nodename);
	pr_text(p, "\n\n");
}

/* The kernel has RDMA modules but no device, or none at all. */
#define DEVLIST_HINT "check that the driver is loaded (`ls /sys/class/infiniband`); " DEVICE_HINT_RXE

/* The devices (all, or o->dev), or NULL after saying why on stderr. */
static struct ibv_device **devlist_get(const struct devlist_opts *o, int *n)
{
	struct ibv_device **list = device_list(n, DEVLIST_HINT);

	if (list && o->dev && !device_find(list, *n, o->dev)) {
		ibv_free_device_list(list);
		list = NULL;
	}
	return list;
}

int devlist_print(FILE *f, const struct devlist_opts *o)
{
	struct pr p = { .f = f, .json = o->json };
	struct ibv_device **list;
	int n = 0;

	list = devlist_get(o, &n);
	/* text: nothing on stdout; JSON: still one document, listing none */
	if (!list && !p.json)
		return -ENODEV;
	header_print(&p, o->version);
	pr_open(&p, "devices", '[');
	for (int i = 0; list && i < n; i++)
		if (!o->dev || strcmp(o->dev, ibv_get_device_name(list[i])) == 0)
			dev_print(&p, list[i]);
	pr_close(&p, ']');
	pr_close(&p, '}');
	if (p.json)
		fputc('\n', f);
	if (list)
		ibv_free_device_list(list);
	return list ? 0 : -ENODEV;
}
