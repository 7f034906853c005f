/* nlquery.c - rtnetlink requests on a route socket of our own, one at a time, and their answers checked. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "probes/host/nlquery.h"

#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif

/**
 * nlquery_open() - see nlquery.h.
 * Return: 0; -ENOMEM; the socket's -errno. No errno means "absent": every namespace has netlink.
 */
int nlquery_open(struct nlquery *q, bool strict, const char **what)
{
	struct timeval tv = { .tv_sec = NLQUERY_TIMEOUT_MS / 1000, .tv_usec = NLQUERY_TIMEOUT_MS % 1000 * 1000 };
	int one = 1;

	memset(q, 0, sizeof(*q));
	q->fd = -1;
	q->buf = malloc(NLQUERY_BUF);
	if (!q->buf) {
		*what = "allocate the netlink buffer";
		return -ENOMEM;
	}
	/* Not bound: the kernel binds the socket to a free port on the first send (netlink(7)). */
	q->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (q->fd < 0) {
		*what = "open a NETLINK_ROUTE socket";
		return -errno;
	}
	if (setsockopt(q->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		*what = "set a receive timeout on the NETLINK_ROUTE socket";
		return -errno;
	}
	/* Refused before 4.20 (ENOPROTOOPT): the kernel then ignores dump filters, the caller dumps all. */
	q->stats.strict = strict && setsockopt(q->fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one)) == 0;
	q->seq = 1;
	return 0;
}

void nlquery_close(struct nlquery *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	free(q->buf);
	q->buf = NULL;
}

int nlquery_req_new(struct nlquery_req *r, uint16_t type, uint16_t flags, const void *hdr, size_t hdrlen)
{
	if (NLMSG_SPACE(hdrlen) > sizeof(r->bytes))
		return -E2BIG;
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = NLMSG_LENGTH(hdrlen);
	r->h.nlmsg_type = type;
	r->h.nlmsg_flags = NLM_F_REQUEST | flags;
	memcpy(NLMSG_DATA(&r->h), hdr, hdrlen);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len);
	return 0;
}

int nlquery_req_put(struct nlquery_req *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a;
	size_t at = NLMSG_ALIGN(r->h.nlmsg_len);

	if (len > UINT16_MAX || at + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(r->bytes))
		return -E2BIG;
	a = (struct nlattr *)(r->bytes + at);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
	r->h.nlmsg_len = (uint32_t)(at + NLA_ALIGN(a->nla_len));
	return 0;
}

/**
 * nlquery_feed() - see nlquery.h.
 * Return: 0; -EBADMSG, -EOVERFLOW, or @fn's -errno. No errno means "absent".
 */
int nlquery_feed(struct nlquery_answer *a, const void *buf, size_t len, nlquery_msg_fn fn, void *arg)
{
	const struct nlmsghdr *h = buf;
	size_t rem = len;

	while (!a->done && rem >= sizeof(*h)) {
		size_t mlen = h->nlmsg_len, step;

		if (mlen < sizeof(*h) || mlen > rem)
			return -EBADMSG;
		step = NLMSG_ALIGN(mlen) < rem ? NLMSG_ALIGN(mlen) : rem;
		a->messages++;
		if (h->nlmsg_seq == a->seq) {
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				a->intr = true;
			switch (h->nlmsg_type) {
			case NLMSG_NOOP:
				break;
			case NLMSG_OVERRUN:
				return -EOVERFLOW;
			case NLMSG_ERROR: {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (mlen < NLMSG_LENGTH(sizeof(e->error)))
					return -EBADMSG;
				/* 0 is an acknowledgement; a positive error is nonsense, read as a protocol error. */
				a->kerr = e->error > 0 ? -EPROTO : e->error;
				a->done = true;
				break;
			}
			case NLMSG_DONE:
				/* Since 4.x a dump's DONE carries its error (0 when it went well); older ones may not. */
				if (mlen >= NLMSG_LENGTH(sizeof(int))) {
					int err;

					memcpy(&err, NLMSG_DATA(h), sizeof(err));
					a->kerr = err > 0 ? -EPROTO : err;
				}
				a->done = true;
				break;
			default:
				if (h->nlmsg_type >= RTM_BASE) {
					int r = fn(h, arg);

					if (r < 0)
						return r;
					if (!a->dump)
						a->done = true;
				}
				break;
			}
		}
		rem -= step;
		h = (const struct nlmsghdr *)((const unsigned char *)h + step);
	}
	if (!a->done && rem)
		return -EBADMSG;
	if (a->done && a->intr && a->kerr == 0)
		a->kerr = -EINTR;
	return 0;
}

/**
 * nlquery_run() - see nlquery.h.
 * Return: 0 (the kernel's answer in @ret_kerr), or -errno: -EAGAIN, -EMSGSIZE, -EBADMSG, the
 * socket's error, @fn's error. No errno means "absent": an absent object is the kernel's answer.
 */
int nlquery_run(struct nlquery *q, struct nlquery_req *r, nlquery_msg_fn fn, void *arg, int *ret_kerr)
{
	struct nlquery_answer a = { .seq = q->seq++, .dump = (r->h.nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	r->h.nlmsg_seq = a.seq;
	do
		n = sendto(q->fd, r->bytes, r->h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	q->stats.requests++;
	while (!a.done) {
		struct sockaddr_nl from;
		struct iovec iov = { .iov_base = q->buf, .iov_len = NLQUERY_BUF };
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1 };
		int r2;

		n = recvmsg(q->fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		}
		q->stats.datagrams++;
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		if (mh.msg_namelen < sizeof(from) || from.nl_pid != 0)
			continue;       /* only the kernel answers; anything else is not ours to read */
		r2 = nlquery_feed(&a, q->buf, (size_t)n, fn, arg);
		q->stats.messages = q->stats.messages + a.messages;
		a.messages = 0;
		if (r2 < 0)
			return r2;
		if (n == 0)
			return -EBADMSG;
	}
	*ret_kerr = a.kerr;
	return 0;
}
