/* procnet.c - pure parsers of a network namespace's /proc/<pid>/net/{unix,udp,dev}: RxDM sockets, DXS flows, byte counters. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/procnet.h"
#include "probes/host/procstat.h"
#include "probes/model/errmsg.h"

#define PROCNET_SO_ACCEPTCON 0x00010000u        /* __SO_ACCEPTCON: a listening socket */
#define PROCNET_SOCK_STREAM 1u
#define PROCNET_SS_UNCONNECTED 1u
#define PROCNET_SS_CONNECTED 3u
#define PROCNET_TCP_ESTABLISHED 1u

/* The lines of one file; a line is handed out without its '\n'. */
struct procnet_lines {
	const char *p, *end;
	size_t no;              /* the number of the line last handed out, from 1 */
	bool cut;
};

/* 1: @ret_line/@ret_len is the next line; 0: the end (a cut last line dropped); -EBADMSG. */
static int procnet_next(struct procnet_lines *it, const char **ret_line, size_t *ret_len, char *err, size_t errlen)
{
	const char *nl;

	if (it->p >= it->end)
		return 0;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	if (!nl) {
		if (it->cut) {
			it->p = it->end;
			return 0;
		}
		return errmsg_set(err, errlen, -EBADMSG, "line %zu: no end of line", it->no + 1);
	}
	it->no++;
	*ret_line = it->p;
	*ret_len = (size_t)(nl - it->p);
	it->p = nl + 1;
	if (*ret_len > PROCNET_LINE_MAX)
		return errmsg_set(err, errlen, -EBADMSG, "line %zu: longer than %d bytes", it->no, PROCNET_LINE_MAX);
	return 1;
}

/* A cursor over one line's fields. */
struct procnet_cur {
	const char *p, *end;
};

static int procnet_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Exactly @digits hex digits (at most 8). */
static bool procnet_hex(struct procnet_cur *c, int digits, uint32_t *ret)
{
	uint32_t v = 0;

	if (c->end - c->p < digits)
		return false;
	for (int i = 0; i < digits; i++) {
		int d = procnet_hexval(c->p[i]);

		if (d < 0)
			return false;
		v = v << 4 | (uint32_t)d;
	}
	c->p += digits;
	*ret = v;
	return true;
}

static bool procnet_char(struct procnet_cur *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return false;
	c->p++;
	return true;
}

static void procnet_spaces(struct procnet_cur *c)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
}

/* A decimal number of 1..20 digits that fits 64 bits (procstat_number()). */
static bool procnet_u64(struct procnet_cur *c, uint64_t *ret)
{
	unsigned long long v;

	if (procstat_number(c->p, c->end, &v, &c->p) < 0)
		return false;
	*ret = v;
	return true;
}

static bool procnet_prefix(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(line, prefix, n) == 0;
}

/* ---- net/unix ---- */

/* An address as inet_pton() reads it: family (4 or 6, sorting IPv4 first) and bytes. */
struct procnet_addr {
	unsigned char family;
	unsigned char bin[16];
	char text[OBS_TRANSPORT_ADDR_MAX];
};

static bool procnet_addr_read(const char *s, size_t len, struct procnet_addr *ret)
{
	char text[OBS_TRANSPORT_ADDR_MAX];

	if (!len || len >= sizeof(text))
		return false;
	memcpy(text, s, len);
	text[len] = '\0';
	memset(ret, 0, sizeof(*ret));
	if (inet_pton(AF_INET, text, ret->bin) == 1)
		ret->family = 4;
	else if (inet_pton(AF_INET6, text, ret->bin) == 1)
		ret->family = 6;
	else
		return false;
	memcpy(ret->text, text, len + 1);
	return true;
}

static int procnet_addr_cmp(const void *a, const void *b)
{
	const struct procnet_addr *x = a, *y = b;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	return memcmp(x->bin, y->bin, sizeof(x->bin));
}

/*
 * The NIC address of a net/unix path (@len bytes) if it is an RxDM buffer-op name: abstract
 * "@rxdm_uds_buf_op:<ip>" (its NUL padding printed as '@'), or the file-based form
 * "<prefix>/rxdm_uds_buf_op:<ip>" (FILE_BASED_UDS_PATH_PREFIX); <ip> as inet_pton() reads it.
 */
static bool procnet_unix_addr(const char *path, size_t len, struct procnet_addr *ret)
{
	static const char name[] = PROCNET_BUF_OP_NAME;
	const size_t nlen = sizeof(name) - 1;
	const char *s;
	size_t n;

	if (!len || len > PROCNET_UNIX_PATH_MAX)
		return false;
	if (path[0] == '@') {
		/* Abstract: '@' + name, the NULs of the bound length printed as '@'. */
		if (len < 1 + nlen || memcmp(path + 1, name, nlen) != 0)
			return false;
		s = path + 1 + nlen;
		n = len - 1 - nlen;
		while (n && s[n - 1] == '@')
			n--;
	} else {
		/* File-based: the last component is the name. */
		const char *base = path + len;

		while (base > path && base[-1] != '/')
			base--;
		n = len - (size_t)(base - path);
		if (n < nlen || memcmp(base, name, nlen) != 0)
			return false;
		s = base + nlen;
		n -= nlen;
	}
	return procnet_addr_read(s, n, ret);
}

enum procnet_unix_kind {
	PROCNET_UNIX_OTHER = 0,
	PROCNET_UNIX_LISTENER,
	PROCNET_UNIX_CLIENT,
};

/* The socket line last read, counted once the next line shows its path ended there. */
struct procnet_unix_pending {
	bool valid;
	enum procnet_unix_kind kind;
	struct procnet_addr addr;
	size_t path_len;        /* 0: no path, nothing can follow it */
};

struct procnet_unix_state {
	struct procnet_unix u;
	struct procnet_addr seen[PROCNET_ADDRS_MAX];
	size_t n_seen;
	size_t n_unseen;        /* client lines whose address did not fit in seen[] */
};

static void procnet_unix_commit(struct procnet_unix_state *s, const struct procnet_unix_pending *p)
{
	if (!p->valid)
		return;
	s->u.sockets++;
	if (p->kind == PROCNET_UNIX_LISTENER) {
		s->u.listeners++;
	} else if (p->kind == PROCNET_UNIX_CLIENT) {
		s->u.clients++;
		for (size_t i = 0; i < s->n_seen; i++)
			if (procnet_addr_cmp(&s->seen[i], &p->addr) == 0)
				return;
		if (s->n_seen < PROCNET_ADDRS_MAX)
			s->seen[s->n_seen++] = p->addr;
		else
			s->n_unseen++;
	}
}

/* One socket line into @ret; false when @line is not one (then it may be the rest of a path). */
static bool procnet_unix_line(const char *line, size_t len, struct procnet_unix_pending *ret)
{
	struct procnet_cur c = { line, line + len };
	uint32_t ref, proto, flags, type, st;
	uint64_t inode;
	int ptr = 0;

	while (c.p < c.end && procnet_hexval(*c.p) >= 0 && ptr <= 16) {
		c.p++;
		ptr++;
	}
	if (ptr < 1 || ptr > 16 || !procnet_char(&c, ':') || !procnet_char(&c, ' ') ||
	    !procnet_hex(&c, 8, &ref) || !procnet_char(&c, ' ') || !procnet_hex(&c, 8, &proto) ||
	    !procnet_char(&c, ' ') || !procnet_hex(&c, 8, &flags) || !procnet_char(&c, ' ') ||
	    !procnet_hex(&c, 4, &type) || !procnet_char(&c, ' ') || !procnet_hex(&c, 2, &st) ||
	    !procnet_char(&c, ' '))
		return false;
	procnet_spaces(&c);
	if (!procnet_u64(&c, &inode))
		return false;
	memset(ret, 0, sizeof(*ret));
	ret->valid = true;
	if (c.p == c.end)
		return true;
	if (!procnet_char(&c, ' ') || c.p == c.end || c.end - c.p > PROCNET_UNIX_PATH_MAX)
		return false;
	ret->path_len = (size_t)(c.end - c.p);
	if (type != PROCNET_SOCK_STREAM || !procnet_unix_addr(c.p, ret->path_len, &ret->addr))
		return true;
	if (flags == PROCNET_SO_ACCEPTCON && st == PROCNET_SS_UNCONNECTED)
		ret->kind = PROCNET_UNIX_LISTENER;
	else if (flags == 0 && st == PROCNET_SS_CONNECTED)
		ret->kind = PROCNET_UNIX_CLIENT;
	return true;
}

int procnet_unix_parse(const char *buf, size_t len, bool cut, struct procnet_unix *ret, char *err, size_t errlen)
{
	static const char header[] = "Num       RefCount Protocol Flags    Type St Inode Path";
	struct procnet_lines it = { buf, buf + len, 0, cut };
	struct procnet_unix_pending pend = { 0 }, next;
	struct procnet_unix_state *s;
	const char *line;
	size_t n;
	int r;

	r = procnet_next(&it, &line, &n, err, errlen);
	if (r <= 0 || n != sizeof(header) - 1 || memcmp(line, header, n) != 0)
		return r < 0 ? r : errmsg_set(err, errlen, -EBADMSG, "line 1: not the net/unix header");
	s = calloc(1, sizeof(*s));
	if (!s)
		return errmsg_set(err, errlen, -ENOMEM, "out of memory");
	while ((r = procnet_next(&it, &line, &n, err, errlen)) > 0) {
		if (procnet_unix_line(line, n, &next)) {
			procnet_unix_commit(s, &pend);
			pend = next;
			continue;
		}
		/* Not a socket line: the rest of the last path, which held a '\n'. */
		if (!pend.valid || !pend.path_len || pend.path_len + 1 + n > PROCNET_UNIX_PATH_MAX) {
			r = errmsg_set(err, errlen, -EBADMSG, "line %zu: not a socket line", it.no);
			break;
		}
		pend.path_len += 1 + n;
		pend.kind = PROCNET_UNIX_OTHER;
	}
	if (r < 0) {
		free(s);
		return r;
	}
	procnet_unix_commit(s, &pend);
	qsort(s->seen, s->n_seen, sizeof(s->seen[0]), procnet_addr_cmp);
	for (size_t i = 0; i < s->n_seen && i < OBS_TRANSPORT_RAILS_MAX; i++)
		memcpy(s->u.rails[s->u.n_rails++], s->seen[i].text, OBS_TRANSPORT_ADDR_MAX);
	s->u.n_rails_dropped = s->n_seen - s->u.n_rails + s->n_unseen;
	*ret = s->u;
	free(s);
	return 0;
}

/* ---- net/udp ---- */

int procnet_udp_parse(const char *buf, size_t len, bool cut, struct procnet_udp *ret, char *err, size_t errlen)
{
	static const unsigned char dxs[4] = { 169, 254, 169, 254 };
	struct procnet_lines it = { buf, buf + len, 0, cut };
	struct procnet_udp u = { 0 };
	uint32_t dxs_native;
	const char *line;
	size_t n;
	int r;

	/* The kernel prints the __be32 as a host integer: compare with the same bytes read so. */
	memcpy(&dxs_native, dxs, sizeof(dxs_native));
	r = procnet_next(&it, &line, &n, err, errlen);
	if (r > 0) {
		struct procnet_cur c = { line, line + n };

		procnet_spaces(&c);
		if (!procnet_prefix(c.p, (size_t)(c.end - c.p), "sl  local_address rem_address   st "))
			r = 0;
	}
	if (r <= 0)
		return r < 0 ? r : errmsg_set(err, errlen, -EBADMSG, "line 1: not the net/udp header");
	while ((r = procnet_next(&it, &line, &n, err, errlen)) > 0) {
		struct procnet_cur c = { line, line + n };
		uint32_t laddr, lport, raddr, rport, st;
		uint64_t slot;

		procnet_spaces(&c);
		if (!procnet_u64(&c, &slot) || !procnet_char(&c, ':') || !procnet_char(&c, ' ') ||
		    !procnet_hex(&c, 8, &laddr) || !procnet_char(&c, ':') || !procnet_hex(&c, 4, &lport) ||
		    !procnet_char(&c, ' ') || !procnet_hex(&c, 8, &raddr) || !procnet_char(&c, ':') ||
		    !procnet_hex(&c, 4, &rport) || !procnet_char(&c, ' ') || !procnet_hex(&c, 2, &st) ||
		    !procnet_char(&c, ' '))
			return errmsg_set(err, errlen, -EBADMSG, "line %zu: not a socket line", it.no);
		u.sockets++;
		if (raddr == dxs_native && rport == PROCNET_DXS_PORT && st == PROCNET_TCP_ESTABLISHED &&
		    lport != PROCNET_RXDM_PORT)
			u.flows++;
	}
	if (r < 0)
		return r;
	*ret = u;
	return 0;
}

/* ---- net/dev ---- */

static bool procnet_ifname_char(char ch)
{
	/* dev_valid_name(): no '/', ':' or blank; and nothing a terminal would act on. */
	return ch > ' ' && ch < 0x7f && ch != '/' && ch != ':';
}

/* Insert @d in @ret's sorted list, the last by name dropped beyond the cap; -EEXIST for a name twice. */
static int procnet_dev_insert(struct procnet_dev *ret, const struct obs_transport_dev *d)
{
	size_t i = 0;

	while (i < ret->n && strcmp(ret->v[i].name, d->name) < 0)
		i++;
	if (i < ret->n && strcmp(ret->v[i].name, d->name) == 0)
		return -EEXIST;
	if (ret->n == OBS_TRANSPORT_DEVS_MAX) {
		ret->n_dropped++;
		if (i == ret->n)
			return 0;
		ret->n--;
	}
	memmove(&ret->v[i + 1], &ret->v[i], (ret->n - i) * sizeof(ret->v[0]));
	ret->v[i] = *d;
	ret->n++;
	return 0;
}

int procnet_dev_parse(const char *buf, size_t len, bool cut, struct procnet_dev *ret, char *err, size_t errlen)
{
	struct procnet_lines it = { buf, buf + len, 0, cut };
	struct procnet_dev *d;
	const char *line;
	size_t n, lines = 0;
	int r;

	r = procnet_next(&it, &line, &n, err, errlen);
	if (r > 0 && procnet_prefix(line, n, "Inter-|"))
		r = procnet_next(&it, &line, &n, err, errlen);
	else if (r > 0)
		r = 0;
	if (r <= 0 || !procnet_prefix(line, n, " face |"))
		return r < 0 ? r : errmsg_set(err, errlen, -EBADMSG, "line %zu: not the net/dev header", it.no ? it.no : 1);
	d = calloc(1, sizeof(*d));
	if (!d)
		return errmsg_set(err, errlen, -ENOMEM, "out of memory");
	while ((r = procnet_next(&it, &line, &n, err, errlen)) > 0) {
		struct procnet_cur c = { line, line + n };
		struct obs_transport_dev dev = { 0 };
		const char *name;
		uint64_t v[16];
		size_t nl;

		if (++lines > PROCNET_DEVS_SEEN_MAX) {
			r = errmsg_set(err, errlen, -EBADMSG, "line %zu: more than %d interfaces", it.no,
				       PROCNET_DEVS_SEEN_MAX);
			break;
		}
		procnet_spaces(&c);
		name = c.p;
		while (c.p < c.end && procnet_ifname_char(*c.p))
			c.p++;
		nl = (size_t)(c.p - name);
		if (!nl || nl >= sizeof(dev.name) || !procnet_char(&c, ':')) {
			r = errmsg_set(err, errlen, -EBADMSG, "line %zu: not an interface name and ':'", it.no);
			break;
		}
		memcpy(dev.name, name, nl);
		for (int i = 0; i < 16 && r > 0; i++) {
			procnet_spaces(&c);
			if (c.p == c.end)
				r = errmsg_set(err, errlen, -EBADMSG, "line %zu (%s): %d counters, 16 expected",
					       it.no, dev.name, i);
			else if (!procnet_u64(&c, &v[i]) || (c.p != c.end && *c.p != ' '))
				r = errmsg_set(err, errlen, -EBADMSG, "line %zu (%s): counter %d is not a number",
					       it.no, dev.name, i + 1);
		}
		if (r > 0 && c.p != c.end)
			r = errmsg_set(err, errlen, -EBADMSG, "line %zu (%s): more than 16 counters", it.no, dev.name);
		if (r < 0)
			break;
		dev.rx_bytes = v[0];
		dev.tx_bytes = v[8];
		if (procnet_dev_insert(d, &dev) < 0) {
			r = errmsg_set(err, errlen, -EBADMSG, "line %zu: interface %s twice", it.no, dev.name);
			break;
		}
	}
	if (r == 0)
		*ret = *d;
	free(d);
	return r;
}
