/* fuzz_coherence.c - a NodeList (kubectl get nodes -o json / one API page): collect, judge, format. */
#include <stdlib.h>

#include "fuzz/fuzz.h"
#include "report/fleet/coherence.h"
#include "report/checks/ifacemap.h"
#include "report/render/render_mapping.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	struct coherence_result res = { 0 };
	struct coherence *c = NULL;
	char err[512], *cont = NULL, *out;

	if (coherence_new("fabric.aicr.run/", &c) < 0)
		abort();        /* the default prefix is valid: failing here would fuzz nothing */
	/* Twice: the second page adds the same node names again (duplicates across pages). */
	if (coherence_add_nodelist(c, (const char *)data, size, &cont, err, sizeof(err)) >= 0) {
		free(cont);
		cont = NULL;
		coherence_add_nodelist(c, (const char *)data, size, &cont, err, sizeof(err));
	}
	if (coherence_evaluate(c, &res, err, sizeof(err)) == 0 && res.coherent) {
		/* The renderer takes a coherent mapping as judged valid: it must be. */
		if (ifacemap_validate(res.ifaces, res.n_ifaces, NULL) != 0)
			abort();
		for (int f = RENDER_MAPPING_FLAG; f <= RENDER_MAPPING_AICRCONFIG; f++)
			if (render_mapping(res.ifaces, res.n_ifaces, (enum render_mapping_format)f, &out) == 0)
				free(out);
	}
	coherence_result_free(&res);
	coherence_reset(c);
	coherence_free(c);
	free(cont);
	return 0;
}
