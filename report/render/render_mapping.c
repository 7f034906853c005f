/* render_mapping.c - the eth1..eth8 -> Network mapping as the runtime renderer takes it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"
#include "report/checks/ifacemap.h"
#include "report/render/render_mapping.h"

/* "tcpxoInterfaces:" and its list, at @indent columns (networks passed the renderer's rules: DNS labels, safe unquoted in YAML). */
static void render_mapping_yaml(struct strbuf *sb, const struct profile_iface *s, int indent)
{
	strbuf_appendf(sb, "%*stcpxoInterfaces:\n", indent, "");
	for (size_t i = 0; i < IFACEMAP_ENTRIES; i++)
		strbuf_appendf(sb, "%*s  - interfaceName: %s\n%*s    network: %s\n", indent, "", s[i].name, indent, "",
			       s[i].network);
}

struct json *render_mapping_value(const struct profile_iface *v, size_t n)
{
	struct json *arr = json_new_array();
	int r = 0;

	for (size_t i = 0; arr && i < n; i++) {
		struct json *e = json_new_object();

		r |= json_add_string(e, "interfaceName", v[i].name);
		r |= json_add_string(e, "network", v[i].network);
		r |= json_append(arr, e);
	}
	if (r < 0) {
		json_free(arr);
		return NULL;
	}
	return arr;
}

char *render_mapping_json(const struct profile_iface *v, size_t n)
{
	struct profile_iface *s = malloc((n ? n : 1) * sizeof(*s));
	struct json *arr = NULL;
	char *out = NULL;

	if (s) {
		memcpy(s, v, n * sizeof(*s));
		ifacemap_sort(s, n);
		arr = render_mapping_value(s, n);
	}
	if (arr)
		out = json_print(arr, false);
	free(s);
	json_free(arr);
	return out;
}

int render_mapping(const struct profile_iface *v, size_t n, enum render_mapping_format f, char **ret)
{
	struct profile_iface s[IFACEMAP_ENTRIES];
	struct strbuf sb = { 0 };
	char *json;

	if (n != IFACEMAP_ENTRIES)
		return -EINVAL;
	memcpy(s, v, sizeof(s));
	ifacemap_sort(s, IFACEMAP_ENTRIES);
	switch (f) {
	case RENDER_MAPPING_FLAG:
		for (size_t i = 0; i < IFACEMAP_ENTRIES; i++)
			strbuf_appendf(&sb, "%s%s=%s", i ? "," : "", s[i].name, s[i].network);
		strbuf_append(&sb, "\n");
		break;
	case RENDER_MAPPING_YAML:
		render_mapping_yaml(&sb, s, 0);
		break;
	case RENDER_MAPPING_AICRCONFIG:
		/*
		 * What `aicr recipe --config` reads: AICR takes the mapping at recipe time only and
		 * refuses any bundle-time --set of kubeflow-trainer.tcpxoInterfaces.
		 */
		strbuf_append(&sb, "apiVersion: " RENDER_MAPPING_AICRCONFIG_VERSION "\nkind: AICRConfig\nspec:\n"
			      "  recipe:\n    configuration:\n      gke:\n");
		render_mapping_yaml(&sb, s, 8);
		break;
	case RENDER_MAPPING_JSON:
		json = render_mapping_json(s, IFACEMAP_ENTRIES);
		if (!json)
			return -ENOMEM;
		strbuf_appendf(&sb, "%s\n", json);
		free(json);
		break;
	}
	*ret = strbuf_take(&sb);
	return *ret ? 0 : -ENOMEM;
}
