/* probe_status.h - whether one probe produced its part of the observation, and why not. */
#pragma once

#define OBS_MSG_MAX 512         /* one probe error or finding */

/* The result of running one probe: did it produce its part of the observation? */
enum probe_state {
	PROBE_NOT_RUN = 0,      /* not attempted (e.g. no API configured) */
	PROBE_OK,
	PROBE_FAILED,           /* attempted, could not observe: message says why */
};

struct probe_status {
	enum probe_state state;
	int err;                        /* -errno when FAILED */
	char message[OBS_MSG_MAX];      /* path and reason, for the report */
};

/* Set a probe status to FAILED with a formatted message. */
void probe_status_fail(struct probe_status *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
