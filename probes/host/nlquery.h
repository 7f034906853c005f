/* nlquery.h - rtnetlink requests on a route socket of our own, one at a time, and their answers checked. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#define NLQUERY_BUF (64u << 10)         /* one answer datagram; dumps are cut at 32 KiB by the kernel */
#define NLQUERY_REQ_MAX 128             /* bytes of one request: header, family header, a few attributes */
#define NLQUERY_TIMEOUT_MS 2000         /* the kernel answers at once; this only bounds a broken one */

/* What the socket has done so far: the figures tests and the bench compare. */
struct nlquery_stats {
	unsigned requests;              /* requests sent */
	unsigned datagrams;             /* answer datagrams received (one recvmsg each) */
	unsigned messages;              /* netlink messages in them, control messages included */
	bool strict;                    /* NETLINK_GET_STRICT_CHK is on: dumps filtered by the kernel */
};

struct nlquery {
	int fd;
	uint32_t seq;
	void *buf;                      /* NLQUERY_BUF bytes */
	struct nlquery_stats stats;
};

/* One request being built: header, family header, attributes (nlquery_req_new/_put). */
struct nlquery_req {
	union {
		struct nlmsghdr h;
		unsigned char bytes[NLQUERY_REQ_MAX];
	};
};

/* The state of one exchange while its answers arrive (nlquery_feed). */
struct nlquery_answer {
	uint32_t seq;                   /* of the request; other messages are ignored */
	bool dump;                      /* a dump: objects until NLMSG_DONE; else one reply or an error */
	bool done;
	bool intr;                      /* NLM_F_DUMP_INTR: the dump raced a change, ask again */
	int kerr;                       /* the kernel's answer: 0, or -errno from NLMSG_ERROR/NLMSG_DONE */
	unsigned messages;              /* messages seen, control messages included */
};

/* Called for each object message of an answer (a type >= RTM_BASE); returns 0 or -errno to stop. */
typedef int (*nlquery_msg_fn)(const struct nlmsghdr *h, void *arg);

/**
 * nlquery_open() - a NETLINK_ROUTE socket for requests, with NETLINK_GET_STRICT_CHK turned on
 * when @strict asks for it and the kernel takes it (>= 4.20; @q->stats.strict says whether).
 * @what: on failure, what could not be done, for the message.
 *
 * Return: 0; -ENOMEM; the socket's -errno (-EMFILE, -EACCES, ...). A refused strict check is
 * not a failure. Close with nlquery_close() in every case.
 */
int nlquery_open(struct nlquery *q, bool strict, const char **what);

/* Close @q's socket and free its buffer; safe on a zeroed or half-opened @q. */
void nlquery_close(struct nlquery *q);

/**
 * nlquery_req_new() - start a request of @type with @flags (NLM_F_REQUEST is added) and the
 * family header @hdr of @hdrlen bytes. Return: 0; -E2BIG (over NLQUERY_REQ_MAX).
 */
int nlquery_req_new(struct nlquery_req *r, uint16_t type, uint16_t flags, const void *hdr, size_t hdrlen);

/* Append attribute @type with @len bytes of @data. Return: 0; -E2BIG (over NLQUERY_REQ_MAX). */
int nlquery_req_put(struct nlquery_req *r, uint16_t type, const void *data, size_t len);

/**
 * nlquery_run() - send @r (its sequence number is set here) and read its answers, handing each
 * object message to @fn, until the reply (no NLM_F_DUMP), NLMSG_DONE or an error message.
 * @ret_kerr: the kernel's answer, 0 or its -errno (-ENODEV for an unknown link, -EINVAL for a
 * request it refuses, -EINTR when a dump was interrupted by a change: ask again).
 *
 * Return: 0 when the kernel answered (whatever it answered); -errno when it could not be asked
 * or its answer was unusable: send/recv errors, -EAGAIN (no answer in NLQUERY_TIMEOUT_MS),
 * -EMSGSIZE (a datagram over NLQUERY_BUF), -EBADMSG (malformed), or @fn's error.
 */
int nlquery_run(struct nlquery *q, struct nlquery_req *r, nlquery_msg_fn fn, void *arg, int *ret_kerr);

/**
 * nlquery_feed() - pure: one answer datagram of @len bytes for the exchange @a: each message's
 * length checked, messages of another sequence number skipped, NLMSG_ERROR and NLMSG_DONE
 * decoded into @a->kerr and @a->done, object messages handed to @fn. Messages after the one
 * that ends the exchange are ignored. The bytes are hostile (tests and fuzzing feed it too).
 *
 * Return: 0; -EBADMSG (a truncated error or done message, trailing bytes), -EOVERFLOW
 * (NLMSG_OVERRUN), or @fn's error.
 */
int nlquery_feed(struct nlquery_answer *a, const void *buf, size_t len, nlquery_msg_fn fn, void *arg);
