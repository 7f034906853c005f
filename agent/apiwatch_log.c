/* apiwatch_log.c - what happened to a watched resource: counted for the loop, kept for the facts, logged once after each step. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/apiwatch_log.h"
#include "probes/kube/httpcheck.h"

const char *const apiwatch_name[APIWATCH__COUNT] = { "nodes", "pods", "networks", "resourceslices" };

const char *const apiwatch_path[APIWATCH__COUNT] = {
	"/api/v1/nodes", "/api/v1/pods", "/apis/networking.gke.io/v1/networks", KUBE_RESOURCE_SLICES,
};

void apiwatch_note(struct apiwatch_one *o)
{
	unsigned long g = reflector_generation(o->r);

	if (g != o->seen_gen) {
		o->seen_gen = g;
		o->aw->changes++;
	}
}

/* A line other than "API error" to log after the step; @said its error (NULL: none). */
static void apiwatch_report(struct apiwatch_one *o, enum log_level level, const char *msg, const char *said)
{
	o->report = level;
	o->report_msg = msg;
	o->report_err = said != NULL;
	o->report_wait = false;
	if (said)
		snprintf(o->said, sizeof(o->said), "%s", said);
}

void apiwatch_failed(struct apiwatch_one *o, long status, int err, const char *why, const char *said,
		     enum log_level level)
{
	o->fails++;
	o->status = status;
	o->err = err ? err : -EIO;
	if (strcmp(o->why, why) != 0 || !o->why_seq) {
		snprintf(o->why, sizeof(o->why), "%s", why);
		o->why_seq++;
		if (!o->ever_fed)
			o->aw->changes++;
	}
	apiwatch_report(o, level, "API error", said && *said ? said : why);
}

void apiwatch_expired(struct apiwatch_one *o)
{
	apiwatch_report(o, LOG_LEVEL_INFO, "API watch expired: relisting", reflector_error(o->r));
	o->report_wait = true;
}

void apiwatch_why(const struct apiwatch_one *o, const struct http_stream_end *end, char *buf, size_t len)
{
	if (end->status && (end->status < 200 || end->status > 299))
		httpcheck_status_error(buf, len, "GET", apiwatch_path[o->which], end->status, end->body, end->len);
	else
		snprintf(buf, len, "%s", reflector_error(o->r));
}

void apiwatch_recovered(struct apiwatch_one *o)
{
	if (o->fails && o->report == APIWATCH_NO_REPORT)
		apiwatch_report(o, LOG_LEVEL_INFO, "API answering again", NULL);
	o->fails = 0;
}

void apiwatch_log(struct apiwatch_one *o, uint64_t now)
{
	char op[32], code[16], fails[16], retry[80] = "";

	if (o->report == APIWATCH_NO_REPORT)
		return;
	snprintf(op, sizeof(op), "%s %s", o->s_watch ? "watch" : "list", apiwatch_name[o->which]);
	if (o->wake != UINT64_MAX)
		log_delay_text(o->wake > now ? o->wake - now : 0, retry, sizeof(retry));
	if (strcmp(o->report_msg, "API error") != 0) {
		log_emit(o->report, o->report_msg, "op", op, "error", o->report_err ? o->said : NULL,
			 "retry_in", o->report_wait && retry[0] ? retry : NULL, NULL);
	} else {
		snprintf(code, sizeof(code), "%ld", o->status);
		snprintf(fails, sizeof(fails), "%u", o->fails);
		log_emit(o->report, "API error", "op", op, "status", o->status ? code : "none", "error", o->said,
			 "failures", fails, "retry_in", retry[0] ? retry : NULL, NULL);
	}
	o->report = APIWATCH_NO_REPORT;
}
