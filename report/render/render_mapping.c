/* render_mapping.c - the eth1..eth8 -> Network mapping as the runtime renderer takes it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int render_mapping(const struct profile_iface *v, size_t n, enum render_mapping_format f, char **ret)
{
	struct profile_iface s[IFACEMAP_ENTRIES];
	struct strbuf sb = { 0 };
	char *json, *text;
	int r;

	r = ifacemap_validate(v, n, NULL);
	if (r < 0)
		return r;
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
		json = ifacemap_to_json(s, IFACEMAP_ENTRIES);
		if (!json)
			return -ENOMEM;
		strbuf_appendf(&sb, "%s\n", json);
		free(json);
		break;
	}
	text = strbuf_take(&sb);
	if (!text)
		return -ENOMEM;
	*ret = text;
	return 0;
}
