/*
 * rb_mesh: every rail of every host, checked once (check) or watched
 * around the clock (watch).  Each file uses only those below it:
 *
 *   mesh_main.c      argv[1] picks the mode; the watch options (rows)
 *   mesh_check.c     check: execs rb_mpi --check (the rail check, prog/mpi/mpi_check.c)
 *   mesh_agent.c     watch: the loop: probe, reply, close windows, export
 *   mesh_ud.c        watch: one UD endpoint per local NIC (rdma_cm SIDR
 *                    to learn a peer's QPN, post/poll, software stamps)
 *   mesh_http.c      watch: /metrics over libmicrohttpd
 *   mesh_textfile.c  watch: node_exporter's textfile form (atomic rename)
 *   mesh_jsonl.c     watch: one JSON object per window and alert, a line each
 *   mesh_metrics.c   the OpenMetrics exposition (pure: text into a buffer)
 *   mesh_attrib.c    attribution: peer, self, switch pair, link (pure)
 *   mesh_window.c    one peer's window: sent, answered, lost, restarted,
 *                    RTT percentiles; epochs (pure)
 *   mesh_pinglist.c  the pinglist: parse, tiers, sampling, bounds (pure)
 *   mesh.h           the types every file shares (this file)
 *
 * The probe frame is lib/probewire.h (encode/decode, no I/O).
 */
#ifndef RB_MESH_H
#define RB_MESH_H

#include <stdbool.h>
#include <stdint.h>

#define MESH_NAME_LEN 64            /* host and NIC names, with the NUL */

/* A NIC of a host: its place in the fabric. */
struct mesh_nic {
	char host[MESH_NAME_LEN];       /* host name as in the pinglist */
	char nic[MESH_NAME_LEN];        /* device name (rxe0, mlx5_3) */
	char sw[MESH_NAME_LEN];         /* its switch (pinglist), "" unknown */
	int rail;                       /* rail number: probes go rail k -> rail k */
	char ip[48];                    /* the address rdma_cm resolves (IPv4/IPv6 text) */
	uint16_t port;                  /* its agent's rdma_cm port (0: --port) */
};

enum mesh_tier {
	TIER_SWITCH,                    /* same switch: every peer, densely */
	TIER_CROSS,                     /* across switches: a sample, slowly */
};

/* What one agent NIC saw of one peer NIC in one window (mesh_window.c
 * fills it; the sinks export it). */
struct mesh_window_rec {
	const struct mesh_nic *local, *peer;
	enum mesh_tier tier;
	uint64_t peer_epoch;            /* the peer's epoch answering (0: none yet) */
	double start_s, end_s;          /* the window, CLOCK_REALTIME seconds */
	uint64_t sent;                  /* probes sent in the window */
	uint64_t answered;              /* replies received for them */
	uint64_t lost;                  /* no reply within the probe timeout */
	uint64_t restarted;             /* sent to an epoch that ended: not loss */
	uint64_t late;                  /* replies after their probe was judged lost */
	double loss;                    /* lost / (answered + lost); 0 when none */
	double rtt_p50_us, rtt_p90_us, rtt_p99_us, rtt_max_us;   /* of answered; NaN: none */
	bool hw_stamps;                 /* false: software stamps (always on rxe) */
};

/* A verdict on one window, against the thresholds. */
struct mesh_thresholds {
	double max_loss;                /* fraction, R-Pingmesh: 0.02 */
	double max_p99_us;              /* R-Pingmesh: 500 */
};

/* Who exports: the agent, once (every sink labels its records with it). */
struct mesh_agent_info {
	char host[MESH_NAME_LEN];
	uint64_t epoch;                 /* this agent's run: a random nonzero 64-bit */
	double window_s;                /* --window */
	bool hw_stamps;                 /* false: software timestamps */
	const char *version;            /* PACKAGE_VERSION */
	struct mesh_thresholds thr;
};

/* The outputs of an agent (mesh_http, mesh_textfile, mesh_jsonl each
 * give one): called by the agent's loop, never from the probe path. */
struct mesh_sink {
	const char *name;
	int (*window)(void *ctx, const struct mesh_window_rec *r);      /* 0 or -errno */
	int (*alert)(void *ctx, const char *kind, const char *where, const char *line);
	int (*flush)(void *ctx, double now_s);      /* the end of a window's batch */
	void (*close)(void *ctx);
	void *ctx;
};

#endif
