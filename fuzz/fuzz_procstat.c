/* fuzz_procstat.c - /proc/<pid>/stat, /proc/stat's btime, /proc/<pid>/limits: the first byte picks the parser. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/host/procstat.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	unsigned long long v = 0;
	struct procstat ps = { 0 };
	char err[128];
	int r;

	if (size < 1)
		return 0;
	size--;
	switch (data[0] % 3) {
	case 0:
		r = procstat_parse_stat(text, size, 100, 4096, 1700000000, &ps, err, sizeof(err));
		if (r == 0 && (ps.have != (PROCSTAT_CPU | PROCSTAT_START | PROCSTAT_RESIDENT | PROCSTAT_VIRTUAL) ||
			       !isfinite(ps.cpu_seconds) || ps.cpu_seconds < 0 || ps.start_time < 1700000000))
			abort();
		if (r != 0 && (r != -EBADMSG || ps.have || !memchr(err, '\0', sizeof(err))))
			abort();
		break;
	case 1:
		r = procstat_parse_btime(text, size, &v);
		if ((r == 0 && !v) || (r != 0 && r != -ENOENT && r != -EBADMSG))
			abort();
		break;
	default:
		r = procstat_parse_limits(text, size, &v);
		if (r != 0 && r != -ENOENT && r != -EBADMSG)
			abort();
		break;
	}
	return 0;
}
