/* rtresult.c - the runtime check's finding names, the finding list and its lifecycle. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/rtresult.h"

static const char *const rtresult_names[RTRESULT__COUNT] = {
	[RTRESULT_NAME] = "name",
	[RTRESULT_NETWORKS_PUBLISHED] = "networks-published",
	[RTRESULT_MAPPING] = "mapping",
	[RTRESULT_DAEMON_PIN] = "daemon-pin",
	[RTRESULT_ENV_PIN] = "env-pin",
	[RTRESULT_GPUS] = "gpus",
	[RTRESULT_SCHEDULING] = "scheduling",
	[RTRESULT_EMPTY_MAPPING] = "empty-mapping",
};

const char *rtresult_id_name(enum rtresult_id id)
{
	return NAME_OF(rtresult_names, id);
}

int rtresult_add(struct rtresult *r, const char *id, const char *job, struct finding *f)
{
	struct rtresult_finding *v, *e;

	v = realloc(r->findings, (r->n_findings + 1) * sizeof(*v));
	if (!v)
		goto oom;
	r->findings = v;
	e = &v[r->n_findings];
	*e = (struct rtresult_finding){ .id = id, .status = f->status, .message = f->message, .remedy = f->remedy };
	/* A remedy is for what fails or warns. */
	if (e->status < CHECK_WARN && e->remedy) {
		free(e->remedy);
		e->remedy = f->remedy = NULL;
	}
	if (job && !(e->job = strdup(job)))
		goto oom;
	if (!e->message)
		goto oom;
	r->n_findings++;
	*f = (struct finding){ 0 };
	return 0;
oom:
	free(f->message);
	free(f->remedy);
	*f = (struct finding){ 0 };
	return -ENOMEM;
}

size_t rtresult_count(const struct rtresult *r, enum check_status status)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		n += r->findings[i].status == status;
	return n;
}

const struct rtresult_finding *rtresult_first(const struct rtresult *r, enum check_status status)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (r->findings[i].status == status)
			return &r->findings[i];
	return NULL;
}

void rtresult_free(struct rtresult *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_findings; i++) {
		free(r->findings[i].job);
		free(r->findings[i].message);
		free(r->findings[i].remedy);
	}
	free(r->findings);
	free(r->runtime);
	free(r->summary);
	memset(r, 0, sizeof(*r));
}
