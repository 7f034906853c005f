/* fuzz_nodelist.c - the streaming NodeList scanner alone: every item's facts (labels, taints, annotations, our condition), every error path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/nodelist.h"
#include "probes/model/errmsg.h"

/* Touch every kept string, so a field left dangling or unterminated is caught by ASan. */
static int fuzz_nodelist_item(void *ctx, size_t idx, const struct nodelist_item *it, char *err, size_t errlen)
{
	const struct jsonscan_field *f[] = { &it->name, &it->itype, &it->accelerator, &it->pool, &it->profile,
					     &it->ready, &it->interfaces, &it->attachment, &it->condition.status,
					     &it->condition.heartbeat };
	size_t *total = ctx;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i]->s)
			*total += strlen(f[i]->s);
	for (size_t i = 0; i < it->n_taints; i++) {
		const struct nodelist_taint *t = &it->taints[i];

		*total += (t->key.s ? strlen(t->key.s) : 0) + (t->value.s ? strlen(t->value.s) : 0) +
			  (t->effect.s ? strlen(t->effect.s) : 0);
	}
	/* Stop at the fifth item now and then: the caller-refused path frees what was kept. */
	if (idx == 4 && (*total & 1))
		return errmsg_set(err, errlen, -EINVAL, "refused by the fuzzer");
	return 0;
}

int fuzz_one(const uint8_t *data, size_t size)
{
	size_t total = 0;
	char err[512], *cont = NULL;

	if (nodelist_scan((const char *)data, size, "fabric.aicr.run/", fuzz_nodelist_item, &total, &cont, err,
			  sizeof(err)) >= 0)
		free(cont);
	return 0;
}
