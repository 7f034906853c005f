/* fuzz_watchevent.c - watch event lines: the parser alone, then a stream of them cut into lines and fed to a reflector. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/kubefeed.h"
#include "probes/kube/linebuf.h"
#include "probes/kube/reflector.h"
#include "probes/kube/watchevent.h"

static const char fuzz_list[] = "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[{\"metadata\":"
	"{\"name\":\"p1\",\"namespace\":\"ml\",\"resourceVersion\":\"4\"}}]}";

int fuzz_one(const uint8_t *data, size_t size)
{
	struct reflector_config cfg = { .path = "/api/v1/pods", .kind = "Pod", .max_objects = 64, .seed = 1 };
	struct reflector *r = NULL;
	struct watchevent ev;
	struct linebuf lb;
	const char *line;
	uint64_t now = 1000, wake;
	char err[256], *path;
	size_t len, off = 0;
	int k;

	/* The whole input as one line. */
	if (watchevent_parse((const char *)data, size, &ev, err, sizeof(err)) == 0) {
		if (!ev.name || !ev.ns || ((ev.type == WATCHEVENT_BOOKMARK || ev.type == WATCHEVENT_ERROR) && ev.name[0]))
			abort();        /* only named events have a name ("" when it cannot key a store) */
		if (ev.type != WATCHEVENT_ERROR && !watchevent_rv_valid(ev.resource_version))
			abort();
		watchevent_free(&ev);
	}

	/* The input as a stream: lines (at most 4 KiB) in pieces of up to 97 bytes into a watching reflector. */
	if (reflector_new(&cfg, &r) < 0)
		return 0;
	path = NULL;
	if (reflector_next(r, now, &path, &wake) == REFLECTOR_LIST)
		reflector_list_done(r, now, 200, fuzz_list, sizeof(fuzz_list) - 1, 1, 0);
	free(path);
	path = NULL;
	reflector_next(r, now, &path, &wake);
	free(path);
	linebuf_init(&lb, 4096);
	while (off < size) {
		size_t n = size - off < 97 ? size - off : 97;

		if (linebuf_feed(&lb, (const char *)data + off, n) < 0)
			break;
		off += n;
		while ((k = linebuf_next(&lb, &line, &len)) != 0) {
			if (k < 0)
				continue;
			if (strlen(line) != len)
				continue;       /* a NUL inside: the stream client passes it on; JSON stops there */
			if (reflector_watch_line(r, now++, line, len) != 0) {
				/* Closed: whatever comes next (a relist) must be asked for without a crash. */
				path = NULL;
				reflector_next(r, now + 600000, &path, &wake);
				free(path);
				reflector_watch_done(r, now, 200, 0, 1, 0);
			}
		}
	}
	if (reflector_synced(r)) {
		struct obs_kube kube = { 0 };

		/* The store's objects as the daemon hands them to the pod parser. */
		kubefeed_pods(r, &kube);
		obs_kube_free(&kube);
	}
	linebuf_free(&lb);
	reflector_free(r);
	return 0;
}
