/* ifacemap.c - parse, validate and print the renderer's eth1..eth8 -> Network mapping. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "report/checks/ifacemap.h"

#define IFACEMAP_PARSE_MAX 64

static bool ifacemap_dns_label(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63 || !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
			return false;
	}
	return s[n - 1] != '-';
}

/* "eth<N>" with N in 1..8: N; otherwise 0. */
static int ifacemap_eth_index(const char *name)
{
	if (strncmp(name, "eth", 3) != 0 || name[3] < '1' || name[3] > '8' || name[4])
		return 0;
	return name[3] - '0';
}

int ifacemap_validate(const struct profile_iface *v, size_t n, struct strbuf *why)
{
	struct strbuf local = { 0 };
	struct strbuf *sb = why ? why : &local;
	bool seen[IFACEMAP_ENTRIES + 1] = { false };
	size_t start = sb->len;
	int bad = 0;

#define IFACEMAP_BAD(...) do { \
		strbuf_appendf(sb, "%s", bad++ ? "; " : (sb->len > start ? "; " : "")); \
		strbuf_appendf(sb, __VA_ARGS__); \
	} while (0)

	if (n != IFACEMAP_ENTRIES)
		IFACEMAP_BAD("%zu entries, the renderer needs exactly %d (eth1..eth8)", n, IFACEMAP_ENTRIES);
	for (size_t i = 0; i < n; i++) {
		const char *net = v[i].network;
		int k = ifacemap_eth_index(v[i].name);

		if (!k)
			IFACEMAP_BAD("interface '%s' is not one of eth1..eth8", v[i].name);
		else if (seen[k])
			IFACEMAP_BAD("%s appears more than once", v[i].name);
		else
			seen[k] = true;
		if (!*net) {
			IFACEMAP_BAD("%s has no network", v[i].name);
			continue;
		}
		if (strcmp(net, "default") == 0)
			IFACEMAP_BAD("%s is on network 'default', which is eth0's", v[i].name);
		else if (strlen(net) > IFACEMAP_NET_MAX)
			IFACEMAP_BAD("%s: network '%s' is longer than %d characters", v[i].name, net, IFACEMAP_NET_MAX);
		else if (!ifacemap_dns_label(net))
			IFACEMAP_BAD("%s: network '%s' is not a DNS label", v[i].name, net);
		for (size_t j = 0; j < i; j++)
			if (strcmp(v[j].network, net) == 0) {
				IFACEMAP_BAD("%s and %s share network '%s'", v[j].name, v[i].name, net);
				break;
			}
	}
	for (int k = 1; k <= IFACEMAP_ENTRIES && n; k++)
		if (!seen[k])
			IFACEMAP_BAD("eth%d is missing", k);
#undef IFACEMAP_BAD
	if (sb->oom) {
		strbuf_free(&local);
		return -ENOMEM;
	}
	strbuf_free(&local);
	return bad ? -EINVAL : 0;
}

int ifacemap_renderer_names(const struct profile_iface *v, size_t n, struct strbuf *why)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		if (strstr(v[i].network, IFACEMAP_NAME_RULE))
			continue;
		if (why && !bad)
			strbuf_append(why, "AICR's renderer requires '" IFACEMAP_NAME_RULE "' in each Network name: ");
		if (why)
			strbuf_appendf(why, "%s'%s'", bad ? ", " : "", v[i].network);
		bad++;
	}
	if (why && bad)
		strbuf_append(why, bad == 1 ? " does not contain it" : " do not contain it");
	if (why && why->oom)
		return -ENOMEM;
	return bad ? -EINVAL : 0;
}

static int ifacemap_cmp(const void *a, const void *b)
{
	const struct profile_iface *x = a, *y = b;
	unsigned long nx = 0, ny = 0;
	bool ex = strncmp(x->name, "eth", 3) == 0, ey = strncmp(y->name, "eth", 3) == 0;

	if (ex)
		nx = strtoul(x->name + 3, NULL, 10);
	if (ey)
		ny = strtoul(y->name + 3, NULL, 10);
	if (ex && ey && nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(x->name, y->name);
}

void ifacemap_sort(struct profile_iface *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), ifacemap_cmp);
}

int ifacemap_parse(const char *text, size_t len, struct profile_iface **ret, size_t *ret_n)
{
	struct profile_iface *v = NULL;
	struct json *root = NULL;
	size_t n = 0, cap;
	int r;

	r = json_parse(text, len, &root);
	if (r < 0)
		return r;
	r = -EINVAL;
	if (json_type(root) != JSON_ARRAY)
		goto out;
	cap = json_size(root);
	if (cap > IFACEMAP_PARSE_MAX)
		goto out;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v) {
		r = -ENOMEM;
		goto out;
	}
	for (const struct json *e = json_first(root); e; e = json_next(e)) {
		const char *name = json_get_string(e, "interfaceName");
		const char *net = json_get_string(e, "network");

		if (!name || !net || strlen(name) >= sizeof(v[n].name) || strlen(net) >= sizeof(v[n].network))
			goto out;
		strcpy(v[n].name, name);
		strcpy(v[n].network, net);
		n++;
	}
	ifacemap_sort(v, n);
	*ret = v;
	*ret_n = n;
	v = NULL;
	r = 0;
out:
	free(v);
	json_free(root);
	return r;
}
