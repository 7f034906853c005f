/* stresult.c - the fleet status's result: release it. */
#include <stdlib.h>
#include <string.h>

#include "report/checks/stresult.h"

void stresult_free(struct stresult *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_nodes; i++) {
		struct stresult_node *n = &r->nodes[i];

		for (size_t k = 0; k < n->n_causes; k++)
			free(n->causes[k]);
		free(n->causes);
		free(n->name);
		free(n->profile);
		free(n->machine);
		free(n->heartbeat);
	}
	free(r->nodes);
	for (size_t i = 0; i < r->n_causes; i++) {
		free(r->causes[i].id);
		free(r->causes[i].nodes);
	}
	free(r->causes);
	memset(r, 0, sizeof(*r));
}
