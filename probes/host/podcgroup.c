/* podcgroup.c - the pod and container a process belongs to, from its /proc/<pid>/cgroup (pure). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "probes/host/podcgroup.h"
#include "probes/model/errmsg.h"

/* One path component: [s, s + n). */
struct podcgroup_comp {
	const char *s;
	size_t n;
};

#define PODCGROUP_COMPS_MAX 64

static bool podcgroup_is(const struct podcgroup_comp *c, const char *text)
{
	return c->n == strlen(text) && memcmp(c->s, text, c->n) == 0;
}

static bool podcgroup_starts(const struct podcgroup_comp *c, const char *prefix)
{
	size_t n = strlen(prefix);

	return c->n >= n && memcmp(c->s, prefix, n) == 0;
}

static bool podcgroup_ends(const struct podcgroup_comp *c, const char *suffix)
{
	size_t n = strlen(suffix);

	return c->n >= n && memcmp(c->s + c->n - n, suffix, n) == 0;
}

/* A pod uid from @s (@n bytes) whose '-' the systemd driver wrote as @dash; false when it is none. */
static bool podcgroup_uid(const char *s, size_t n, char dash, char ret[OBS_TRANSPORT_UID_MAX])
{
	if (!n || n >= OBS_TRANSPORT_UID_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == dash)
			ret[i] = '-';
		else if (isxdigit((unsigned char)s[i]))
			ret[i] = s[i];
		else
			return false;
	}
	ret[n] = '\0';
	return true;
}

/* A container id: letters and digits only; "" when @n bytes of @s are not one. */
static void podcgroup_id(const char *s, size_t n, char ret[PODCGROUP_ID_MAX])
{
	ret[0] = '\0';
	if (!n || n >= PODCGROUP_ID_MAX)
		return;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
			return;
	memcpy(ret, s, n);
	ret[n] = '\0';
}

/* The systemd driver's pod slice: kubepods[-burstable|-besteffort]-pod<uid_>.slice. */
static bool podcgroup_systemd_pod(const struct podcgroup_comp *c, char uid[OBS_TRANSPORT_UID_MAX])
{
	static const char *const prefixes[] = { "kubepods-pod", "kubepods-burstable-pod", "kubepods-besteffort-pod" };

	if (!podcgroup_ends(c, ".slice"))
		return false;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t p = strlen(prefixes[i]);

		if (podcgroup_starts(c, prefixes[i]) && c->n > p + 6)
			return podcgroup_uid(c->s + p, c->n - p - 6, '_', uid);
	}
	return false;
}

/* The cgroupfs driver's pod directory: pod<uid> under kubepods, its QoS level, or ".." (a cgroup namespace). */
static bool podcgroup_cgroupfs_pod(const struct podcgroup_comp *parent, const struct podcgroup_comp *c,
				   char uid[OBS_TRANSPORT_UID_MAX])
{
	if (!parent || !(podcgroup_is(parent, "kubepods") || podcgroup_is(parent, "burstable") ||
			 podcgroup_is(parent, "besteffort") || podcgroup_is(parent, "..")))
		return false;
	return podcgroup_starts(c, "pod") && podcgroup_uid(c->s + 3, c->n - 3, '-', uid);
}

enum podcgroup_found {
	PODCGROUP_NONE = 0,
	PODCGROUP_POD,
	PODCGROUP_CONMON,
};

/* The pod a cgroup path (@n bytes) names, if any. */
static enum podcgroup_found podcgroup_path(const char *path, size_t n, struct podcgroup *ret)
{
	struct podcgroup_comp comps[PODCGROUP_COMPS_MAX];
	size_t nc = 0;

	for (size_t i = 0; i < n && nc < PODCGROUP_COMPS_MAX;) {
		size_t j = i;

		while (j < n && path[j] != '/')
			j++;
		if (j > i)
			comps[nc++] = (struct podcgroup_comp){ path + i, j - i };
		i = j + 1;
	}
	for (size_t i = 0; i < nc; i++) {
		const struct podcgroup_comp *next = i + 1 < nc ? &comps[i + 1] : NULL;
		struct podcgroup p = { 0 };

		if (podcgroup_systemd_pod(&comps[i], p.uid)) {
			static const char *const scopes[] = { "cri-containerd-", "docker-", "crio-" };

			if (next && podcgroup_starts(next, "crio-conmon-"))
				return PODCGROUP_CONMON;
			for (size_t k = 0; next && k < sizeof(scopes) / sizeof(scopes[0]); k++) {
				size_t pl = strlen(scopes[k]);

				if (podcgroup_starts(next, scopes[k]) && podcgroup_ends(next, ".scope") &&
				    next->n > pl + 6) {
					podcgroup_id(next->s + pl, next->n - pl - 6, p.container_id);
					break;
				}
			}
		} else if (podcgroup_cgroupfs_pod(i ? &comps[i - 1] : NULL, &comps[i], p.uid)) {
			if (next)
				podcgroup_id(next->s, next->n, p.container_id);
		} else {
			continue;
		}
		*ret = p;
		return PODCGROUP_POD;
	}
	return PODCGROUP_NONE;
}

int podcgroup_parse(const char *buf, size_t len, struct podcgroup *ret, char *err, size_t errlen)
{
	struct podcgroup found = { 0 };
	const char *p = buf, *end = buf + len;
	bool have = false, conmon = false;
	size_t no = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *c1, *c2;
		struct podcgroup pc;
		size_t n = (size_t)(e - p), i = 0;

		if (++no > PODCGROUP_LINES_MAX)
			return errmsg_set(err, errlen, -EBADMSG, "more than %d lines", PODCGROUP_LINES_MAX);
		if (n > PODCGROUP_LINE_MAX)
			return errmsg_set(err, errlen, -EBADMSG, "line %zu: longer than %d bytes", no, PODCGROUP_LINE_MAX);
		/* N:controllers:path, the path absolute (or relative to a cgroup namespace: "/.."). */
		while (i < n && i < 10 && p[i] >= '0' && p[i] <= '9')
			i++;
		c1 = i ? memchr(p + i, ':', n - i) : NULL;
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
		if (!i || c1 != p + i || !c2 || c2 + 1 >= e || c2[1] != '/' || memchr(p, '\0', n))
			return errmsg_set(err, errlen, -EBADMSG, "line %zu: not \"N:controllers:/path\"", no);
		switch (podcgroup_path(c2 + 1, (size_t)(e - c2 - 1), &pc)) {
		case PODCGROUP_POD:
			if (have && strcmp(found.uid, pc.uid) != 0)
				return errmsg_set(err, errlen, -EBADMSG, "line %zu: pod %s, line before: pod %s",
						  no, pc.uid, found.uid);
			if (!have)
				found = pc;
			have = true;
			break;
		case PODCGROUP_CONMON:
			conmon = true;
			break;
		case PODCGROUP_NONE:
			break;
		}
		p = nl ? nl + 1 : end;
	}
	if (!have || conmon)
		return 0;
	*ret = found;
	return 1;
}

const char *podcgroup_container_id(const char *s)
{
	const char *sep;

	if (!s)
		return NULL;
	sep = strstr(s, "://");
	if (sep)
		s = sep + 3;
	return *s ? s : NULL;
}
