/* fuzz_timeparse.c - a node's lastHeartbeatTime text: log_time_parse(), and that what it accepts prints back the same. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/log.h"
#include "fuzz/fuzz.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), back[48];
	time_t t;

	if (!s)
		return 0;
	if (log_time_parse(s, &t) == 0) {
		const struct timespec ts = { .tv_sec = t };

		/* Accepted: the seconds print back as the input's first 19 characters, then Z. */
		log_time_text(&ts, 0, back, sizeof(back));
		if (strlen(back) != 20 || strncmp(back, s, 19) != 0 || back[19] != 'Z')
			abort();
	}
	free(s);
	return 0;
}
