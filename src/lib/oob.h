/*
 * Out-of-band TCP channel: the server listens (default port 18515, like
 * perftest), the client connects with retries until a deadline.  Every read
 * and write loops over short I/O and honours a timeout; nothing blocks
 * forever.  Functions log their failure (log_err) with the phase and cause
 * and return -errno: -ETIMEDOUT, -ECONNRESET (peer closed), -EPROTO (bad
 * frame), -EBUSY (server busy), ...
 */
#ifndef RB_OOB_H
#define RB_OOB_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include "lib/wire.h"

#define OOB_DEFAULT_PORT 18515

struct oob_listener {
	int fd;
	pthread_t refuser;          /* see oob_refuse_start() */
	int stop_pipe[2];
	int refusing;
};

/* Listen on bind_addr (NULL = all, IPv4 and IPv6) : port.  SO_REUSEADDR.
 * -EADDRINUSE gets a message naming the port and the hint -p. */
int oob_listen(struct oob_listener *l, const char *bind_addr, uint16_t port);
/* Wait for one client up to timeout_ms (<0: forever, used by a server
 * waiting for its first client).  Returns the connected fd or -errno. */
int oob_accept(struct oob_listener *l, int timeout_ms, char *peer, size_t peer_len);
/*
 * While a client is served: a thread accepts further clients, sends each a
 * BUSY frame and closes it, so they fail fast instead of queueing.
 */
int oob_refuse_start(struct oob_listener *l);
void oob_refuse_stop(struct oob_listener *l);
void oob_close_listener(struct oob_listener *l);
/* The port l listens on (after a listen on port 0: the one the kernel chose); 0: not known. */
uint16_t oob_listener_port(const struct oob_listener *l);

/* A wait without deadline (a server waiting for its client) returns -EINTR
 * once a signal handler has set *flag. */
void oob_set_stop_flag(volatile sig_atomic_t *flag);

/* Connect to host:port, retrying with exponential backoff (10 ms .. 1 s)
 * until deadline_ms has passed.  Returns fd or -errno (message names the
 * host, port and the last error). */
int oob_connect(const char *host, uint16_t port, int deadline_ms);

/* Send one frame.  0 or -errno. */
int oob_send(int fd, uint16_t type, const void *payload, uint32_t len, int timeout_ms);
/*
 * Receive one frame into buf (cap bytes).  Validates the header; a payload
 * larger than cap is -EMSGSIZE (nothing allocated).  A BUSY frame from the
 * server returns -EBUSY; an ERROR frame returns -EREMOTEIO and copies the
 * peer's message into buf as a NUL-terminated string.
 */
int oob_recv(int fd, uint16_t *type, void *buf, uint32_t cap, uint32_t *len, int timeout_ms);
/* Receive and require a given type (-EPROTO with a message otherwise). */
int oob_expect(int fd, uint16_t type, void *buf, uint32_t cap, uint32_t *len, int timeout_ms);

/*
 * A channel to one peer: the session driver and the loops exchange frames
 * through it without knowing what carries them (a TCP socket here, MPI in
 * rb_mpi: src/prog/mpi/mpi_chan.c).  Each operation honours its timeout and has the
 * meaning and return values of oob_send() / oob_recv().
 */
struct oob_chan;

struct oob_chan_ops {
	int (*send)(struct oob_chan *c, uint16_t type, const void *payload, uint32_t len,
		    int timeout_ms);
	int (*recv)(struct oob_chan *c, uint16_t *type, void *buf, uint32_t cap, uint32_t *len,
		    int timeout_ms);
	/* 1: a frame is waiting, 0: none within timeout_ms, or -errno. */
	int (*wait)(struct oob_chan *c, int timeout_ms);
};

struct oob_chan {
	const struct oob_chan_ops *ops;
	int fd;                     /* TCP: the connected socket (not owned) */
	void *impl;                 /* other implementations' state */
};

/* A channel over a connected TCP socket. */
void oob_chan_tcp(struct oob_chan *c, int fd);

int oob_chan_send(struct oob_chan *c, uint16_t type, const void *payload, uint32_t len,
		  int timeout_ms);
int oob_chan_recv(struct oob_chan *c, uint16_t *type, void *buf, uint32_t cap, uint32_t *len,
		  int timeout_ms);
int oob_chan_expect(struct oob_chan *c, uint16_t type, void *buf, uint32_t cap, uint32_t *len,
		    int timeout_ms);
int oob_chan_wait(struct oob_chan *c, int timeout_ms);

#endif
