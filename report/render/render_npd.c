/* render_npd.c - pure: --once's one line for a node-problem-detector custom plugin. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/render_npd.h"

int render_npd(const struct profile *p, const char *unknown_why, struct strbuf *out)
{
	struct strbuf sb = { 0 };
	const char *text;
	char *line;

	if (unknown_why) {
		strbuf_appendf(&sb, "tcpxo: unknown: %s", unknown_why);
		if (sb.oom)
			return -ENOMEM;
		text = sb.s;
	} else {
		text = p->summary ? p->summary : "tcpxo: unknown: no verdict";
	}
	/* strbuf_printable() ends a cut line in "…" (3 bytes): cut 3 bytes sooner. */
	line = strbuf_printable(text, strlen(text) > RENDER_NPD_MAX ? RENDER_NPD_MAX - 3 : RENDER_NPD_MAX);
	strbuf_free(&sb);
	if (!line)
		return -ENOMEM;
	strbuf_appendf(out, "%s\n", line);
	free(line);
	return out->oom ? -ENOMEM : 0;
}
