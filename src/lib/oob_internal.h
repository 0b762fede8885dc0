/*
 * What the out-of-band channel's files share (not for other modules):
 * absolute CLOCK_MONOTONIC deadlines in milliseconds, a poll() wait that
 * honours them and the stop flag, and socket address names.
 *   oob_wait.c   deadlines, wait_fd, the stop flag, names, whole reads/writes
 *   oob.c        frames over a socket, and the channel (struct oob_chan)
 *   oob_conn.c   connect with retries, listen, accept, refuse while busy
 */
#ifndef RB_OOB_INTERNAL_H
#define RB_OOB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NO_DEADLINE UINT64_MAX

uint64_t now_ms(void);
/* now + timeout_ms, or NO_DEADLINE for a negative timeout */
uint64_t deadline_after(int timeout_ms);
/* Milliseconds left until deadline, as a poll() timeout (-1: none). */
int ms_left(uint64_t deadline);
/* Wait until fd is ready for events: 0, -ETIMEDOUT, -EINTR (a wait without
 * deadline interrupted by the stop flag) or -errno. */
int wait_fd(int fd, short events, uint64_t deadline);
void sleep_ms(int ms);
/* "host:port" or "[v6]:port" of a socket address, IPv4-mapped shown as IPv4. */
void addr_name(const struct sockaddr *sa, socklen_t len, char *out, size_t cap);
/* The connected peer of fd, named as addr_name() does. */
void peer_name(int fd, char *out, size_t cap);
/* Write all n bytes before deadline (MSG_NOSIGNAL: a closed peer is -EPIPE). */
int send_all(int fd, const void *buf, size_t n, int flags, uint64_t deadline);
/* Read exactly n bytes before deadline; *got counts what arrived. */
int recv_all(int fd, void *buf, size_t n, size_t *got, uint64_t deadline);

#endif
