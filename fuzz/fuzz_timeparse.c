/* fuzz_timeparse.c - the API's RFC 3339 times: timetext_parse(), and that a plain UTC time it accepts prints back the same. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/log.h"
#include "fuzz/fuzz.h"
#include "probes/model/timetext.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), back[48];
	long long t;

	if (!s)
		return 0;
	if (timetext_parse(s, &t) == 0) {
		const struct timespec ts = { .tv_sec = (time_t)t };
		size_t n = strlen(s);

		if (t < 0)
			abort();
		/* "...:SSZ" or "...:SS.fffZ" with seconds below 60: the seconds print back as its first 19 characters. */
		log_time_text(&ts, 0, back, sizeof(back));
		if ((s[n - 1] == 'Z' || s[n - 1] == 'z') && (s[17] != '6') && (s[10] == 'T') &&
		    (strlen(back) != 20 || strncmp(back, s, 19) != 0 || back[19] != 'Z'))
			abort();
	}
	free(s);
	return 0;
}
