/* rtresult.c - the runtime check's finding list and its lifecycle. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/rtresult.h"

int rtresult_add(struct rtresult *r, const char *id, const char *job, struct finding *f)
{
	struct rtresult_finding *v = realloc(r->findings, (r->n_findings + 1) * sizeof(*v));
	char *j = NULL;

	if (v)
		r->findings = v;
	if (!v || !f->message || (job && !(j = strdup(job)))) {
		finding_free(f);
		return -ENOMEM;
	}
	/* A remedy is for what fails or warns. */
	if (f->status < CHECK_WARN) {
		free(f->remedy);
		f->remedy = NULL;
	}
	v[r->n_findings++] = (struct rtresult_finding){ .id = id, .job = j, .f = *f };
	*f = (struct finding){ 0 };
	return 0;
}

size_t rtresult_count(const struct rtresult *r, enum check_status status)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		n += r->findings[i].f.status == status;
	return n;
}

const struct rtresult_finding *rtresult_first(const struct rtresult *r, enum check_status status)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (r->findings[i].f.status == status)
			return &r->findings[i];
	return NULL;
}

void rtresult_free(struct rtresult *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_findings; i++) {
		free(r->findings[i].job);
		finding_free(&r->findings[i].f);
	}
	free(r->findings);
	free(r->runtime);
	free(r->summary);
	memset(r, 0, sizeof(*r));
}
