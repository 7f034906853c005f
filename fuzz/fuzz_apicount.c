/* fuzz_apicount.c - the API request counters (a method line, then a path) and the /metrics page over them and a pod named by the input. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/apicount.h"
#include "report/render/metrics.h"

/* Every line of the page is a comment or one sample whose label values keep their quotes escaped. */
static void fuzz_check_page(const char *page)
{
	for (const char *p = page; *p;) {
		const char *nl = strchr(p, '\n');
		size_t quotes = 0;

		if (!nl)
			abort();        /* the page ends with a newline */
		if (*p != '#' && strncmp(p, "tcpxo_", 6) != 0)
			abort();
		for (const char *q = p; q < nl; q++) {
			if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
				abort();        /* control and non-ASCII bytes never reach the page */
			if (*q == '\\')
				q++;
			else if (*q == '"')
				quotes++;
		}
		if (quotes % 2)
			abort();
		p = nl + 1;
	}
}

int fuzz_one(const uint8_t *data, size_t size)
{
	static struct apicount counts;
	char *s = fuzz_strndup(data, size), *path, resource[APICOUNT_RESOURCE_MAX];
	struct metrics_pod pod = { .verdict = ATTACH_PARTIAL };
	struct metrics_input in = { .version = "0.1.0", .evaluated = true, .api = &counts, .pods = &pod, .n_pods = 1 };
	struct strbuf sb = { 0 };

	if (!s)
		return 0;
	memset(&counts, 0, sizeof(counts));
	path = strchr(s, '\n');
	if (path)
		*path++ = '\0';
	apicount_resource(path ? path : s, resource, sizeof(resource));
	if (strlen(resource) >= sizeof(resource))
		abort();
	apicount_add(&counts, s, path ? path : s, (long)size * 7 % 700);
	apicount_add(&counts, s, path ? path : s, 0);
	if (counts.n < 1 || counts.n > 2)
		abort();
	pod.ns = s;
	pod.name = path ? path : s;
	in.version = s;
	if (metrics_render(&in, &sb) == 0 && sb.s)
		fuzz_check_page(sb.s);
	strbuf_free(&sb);
	free(s);
	return 0;
}
