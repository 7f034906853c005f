/* imageref.c - parse image references and normalise release tags (pure). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/imageref.h"
#include "probes/model/obs_pod.h"

#define IMAGEREF_SHA256_HEX 64

static bool imageref_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool imageref_word(char c)
{
	return imageref_lower_alnum(c) || (c >= 'A' && c <= 'Z') || c == '_';
}

/* [a-z0-9]+ ((\.|_|__|-+) [a-z0-9]+)* over s[0..n). */
static bool imageref_path_component(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0 || !imageref_lower_alnum(s[0]) || !imageref_lower_alnum(s[n - 1]))
		return false;
	while (i < n) {
		if (imageref_lower_alnum(s[i])) {
			i++;
			continue;
		}
		/* A separator run: '.', '_', '__' or any number of '-'. */
		if (s[i] == '.') {
			i++;
		} else if (s[i] == '_') {
			i++;
			if (i < n && s[i] == '_')
				i++;
		} else if (s[i] == '-') {
			while (i < n && s[i] == '-')
				i++;
		} else {
			return false;
		}
		if (i >= n || !imageref_lower_alnum(s[i]))
			return false;
	}
	return true;
}

/* host[:port] with host labels of [A-Za-z0-9-] joined by '.'; no IPv6 literals. */
static bool imageref_registry(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t hn = colon ? (size_t)(colon - s) : n;

	if (hn == 0 || s[0] == '.' || s[0] == '-' || s[hn - 1] == '.' || s[hn - 1] == '-')
		return false;
	for (size_t i = 0; i < hn; i++) {
		char c = s[i];

		if (!(imageref_lower_alnum(c) || (c >= 'A' && c <= 'Z') || c == '-' || c == '.'))
			return false;
		if (c == '.' && i + 1 < hn && s[i + 1] == '.')
			return false;
	}
	if (colon) {
		size_t pn = n - hn - 1;

		if (pn == 0 || pn > 5 || strspn(colon + 1, "0123456789") < pn)
			return false;
	}
	return true;
}

static bool imageref_tag_ok(const char *s, size_t n)
{
	if (n == 0 || n > IMAGEREF_TAG_MAX - 1 || !imageref_word(s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!imageref_word(s[i]) && s[i] != '.' && s[i] != '-')
			return false;
	return true;
}

static bool imageref_digest_ok(const char *s, size_t n)
{
	return n == 7 + IMAGEREF_SHA256_HEX && strncmp(s, "sha256:", 7) == 0 &&
	       strspn(s + 7, "0123456789abcdef") >= IMAGEREF_SHA256_HEX;
}

/* The last @c in [@s, @end), or NULL (memrchr() is a GNU extension). */
static const char *imageref_last(const char *s, const char *end, char c)
{
	while (end > s)
		if (*--end == c)
			return end;
	return NULL;
}

int imageref_parse(const char *ref, struct imageref *ret)
{
	struct imageref r = { 0 };
	const char *at, *slash, *colon, *name_end, *first_end, *p;
	size_t n;

	if (!ref)
		return -EINVAL;
	n = strnlen(ref, IMAGEREF_MAX);
	if (n == 0 || n >= IMAGEREF_MAX)
		return -EINVAL;

	at = strchr(ref, '@');
	name_end = at ? at : ref + n;
	if (at) {
		if (strchr(at + 1, '@') || !imageref_digest_ok(at + 1, (size_t)(ref + n - at - 1)))
			return -EINVAL;
		memcpy(r.digest, at + 1, (size_t)(ref + n - at - 1));
	}

	/* A ':' after the last '/' starts the tag; one before it belongs to a registry port. */
	slash = imageref_last(ref, name_end, '/');
	colon = imageref_last(ref, name_end, ':');
	if (colon && (!slash || colon > slash)) {
		if (!imageref_tag_ok(colon + 1, (size_t)(name_end - colon - 1)))
			return -EINVAL;
		memcpy(r.tag, colon + 1, (size_t)(name_end - colon - 1));
		name_end = colon;
	}

	p = ref;
	first_end = memchr(ref, '/', (size_t)(name_end - ref));
	if (first_end) {
		size_t fn = (size_t)(first_end - ref);

		if (memchr(ref, '.', fn) || memchr(ref, ':', fn) ||
		    (fn == 9 && strncmp(ref, "localhost", 9) == 0)) {
			if (fn >= sizeof(r.registry) || !imageref_registry(ref, fn))
				return -EINVAL;
			memcpy(r.registry, ref, fn);
			p = first_end + 1;
		}
	}
	if (p >= name_end)
		return -EINVAL;
	for (const char *c = p; c < name_end;) {
		const char *e = memchr(c, '/', (size_t)(name_end - c));

		if (!e)
			e = name_end;
		if (!imageref_path_component(c, (size_t)(e - c)))
			return -EINVAL;
		c = e == name_end ? e : e + 1;
		if (e != name_end && c == name_end)
			return -EINVAL;         /* trailing '/' */
	}
	memcpy(r.path, p, (size_t)(name_end - p));
	*ret = r;
	return 0;
}

const char *imageref_basename(const struct imageref *r)
{
	const char *s = strrchr(r->path, '/');

	return s ? s + 1 : r->path;
}

int imageref_digest_of(const char *s, char *buf, size_t len)
{
	const char *at;
	size_t n;

	if (!s)
		return -ENOENT;
	n = strnlen(s, IMAGEREF_MAX);
	if (n >= IMAGEREF_MAX)
		return -EINVAL;
	at = strrchr(s, '@');
	if (!at)
		return -ENOENT;
	n = strlen(at + 1);
	if (!imageref_digest_ok(at + 1, n))
		return -EINVAL;
	if (len < n + 1)
		return -ENOSPC;
	memcpy(buf, at + 1, n + 1);
	return 0;
}

#define IMAGEREF_VERSION_PARTS 4

/* Parse a release tag into numeric parts; Return: number of parts, or -EINVAL. */
static int imageref_version_parts(const char *tag, unsigned long parts[IMAGEREF_VERSION_PARTS])
{
	const char *p = tag;
	int n = 0;

	if (!tag || strnlen(tag, IMAGEREF_TAG_MAX) >= IMAGEREF_TAG_MAX)
		return -EINVAL;
	if (*p == 'v' || *p == 'V')
		p++;
	for (;;) {
		unsigned long v = 0;
		int digits = 0;

		while (*p >= '0' && *p <= '9') {
			if (++digits > 9)
				return -EINVAL;
			v = v * 10 + (unsigned long)(*p - '0');
			p++;
		}
		if (!digits || n == IMAGEREF_VERSION_PARTS)
			return -EINVAL;
		parts[n++] = v;
		if (*p != '.')
			break;
		p++;
	}
	/* One optional build suffix: "-sctp", or '-'/'_' followed by digits. */
	if (*p == '\0')
		return n;
	if (strcmp(p, "-sctp") == 0)
		return n;
	if ((*p == '-' || *p == '_') && p[1]) {
		size_t k = strspn(p + 1, "0123456789");

		if (k > 0 && k <= 9 && p[1 + k] == '\0')
			return n;
	}
	return -EINVAL;
}

int imageref_version_normalize(const char *tag, char *buf, size_t len)
{
	unsigned long parts[IMAGEREF_VERSION_PARTS];
	char out[IMAGEREF_VERSION_MAX * 2];
	size_t o = 0;
	int n = imageref_version_parts(tag, parts);

	if (n < 0)
		return n;
	out[o++] = 'v';
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, sizeof(out) - o, i ? ".%lu" : "%lu", parts[i]);
	if (o + 1 > len)
		return -ENOSPC;
	memcpy(buf, out, o + 1);
	return 0;
}

/* Versions numerically, 0 for the same release however written; non-versions after them, by strcmp. */
static int imageref_version_order(const char *a, const char *b)
{
	unsigned long pa[IMAGEREF_VERSION_PARTS] = { 0 }, pb[IMAGEREF_VERSION_PARTS] = { 0 };
	int na = imageref_version_parts(a, pa), nb = imageref_version_parts(b, pb);

	if (na < 0 || nb < 0)
		return na >= 0 ? -1 : nb >= 0 ? 1 : strcmp(a, b);
	for (int i = 0; i < IMAGEREF_VERSION_PARTS; i++)
		if (pa[i] != pb[i])
			return pa[i] < pb[i] ? -1 : 1;
	return na == nb ? 0 : na < nb ? -1 : 1;
}

bool imageref_version_equal(const char *a, const char *b)
{
	return a && b && imageref_version_order(a, b) == 0;
}

int imageref_version_cmp(const char *a, const char *b)
{
	int c = imageref_version_order(a, b);

	return c ? c : strcmp(a, b);
}

enum imageref_component imageref_component(const struct imageref *r)
{
	const char *base = imageref_basename(r);

	if (strcmp(base, "nccl-plugin-gpudirecttcpx-dev") == 0)
		return IMAGEREF_INSTALLER;
	if (strcmp(base, "tcpgpudmarxd-dev") == 0)
		return IMAGEREF_DAEMON;
	return IMAGEREF_OTHER;
}

enum imageref_fabric imageref_fabric(const struct imageref *r)
{
	const char *base = imageref_basename(r), *dir;
	size_t len;

	if (base == r->path)
		return IMAGEREF_FABRIC_UNKNOWN;
	/* The folder component: from after the '/' before it (or the start) to the '/' at base - 1. */
	dir = base - 1;
	while (dir > r->path && dir[-1] != '/')
		dir--;
	len = (size_t)(base - 1 - dir);
	if (len == strlen("gpudirect-tcpxo") && memcmp(dir, "gpudirect-tcpxo", len) == 0)
		return IMAGEREF_FABRIC_TCPXO;
	if (len == strlen("gpudirect-tcpx") && memcmp(dir, "gpudirect-tcpx", len) == 0)
		return IMAGEREF_FABRIC_TCPX;
	return IMAGEREF_FABRIC_UNKNOWN;
}

bool imageref_is_daemon(const char *image, enum imageref_fabric *ret_fabric)
{
	struct imageref ref;

	if (!image || imageref_parse(image, &ref) < 0 || imageref_component(&ref) != IMAGEREF_DAEMON)
		return false;
	if (ret_fabric)
		*ret_fabric = imageref_fabric(&ref);
	return true;
}

bool imageref_gpu_container(const struct pod_container *c)
{
	if (obs_pod_container_gpus(c) <= 0 || imageref_is_daemon(c->image, NULL))
		return false;
	/* A plain init container ends before the workload starts: not where NCCL runs. */
	return !c->init || c->sidecar;
}
