/* fuzz_podcgroup.c - /proc/<pid>/cgroup text: a pod found has a hex uid with '-' and a container id of letters and digits. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/host/podcgroup.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	struct podcgroup pc;
	char err[256];
	int r = podcgroup_parse((const char *)data, size, &pc, err, sizeof(err));

	if (r == 1) {
		if (!pc.uid[0] || strspn(pc.uid, "0123456789abcdefABCDEF-") != strlen(pc.uid))
			abort();
		if (strspn(pc.container_id, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
		    strlen(pc.container_id))
			abort();
	} else if (r != 0 && r != -EBADMSG) {
		abort();
	}
	if (r < 0 && !memchr(err, '\0', sizeof(err)))
		abort();
	{
		char *s = fuzz_strndup(data, size);

		if (s) {
			const char *id = podcgroup_container_id(s);

			if (id && (!*id || id < s || id > s + strlen(s)))
				abort();
			free(s);
		}
	}
	return 0;
}
