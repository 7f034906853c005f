/* treemarks.c - the marks of the human report's PCIe tree: the findings the checks made on each row's part. */
#include <stdio.h>

#include "report/render/treemarks.h"

void treemarks_row(const struct profile *p, enum mark_on on, size_t idx, struct treerow *r)
{
	for (size_t i = 0; i < p->n_marks; i++) {
		const struct mark *f = &p->marks[i];
		enum check_status st = p->checks[f->check].status;
		char host[MARK_HOST_MAX];

		if (f->on != on || f->idx != idx || (st != CHECK_FAIL && st != CHECK_WARN))
			continue;
		treerow_add(r, 0, "%s %s: %.*s%s%s", st == CHECK_FAIL ? "FAIL" : "WARN", check_id_name(f->check),
			    (int)f->at, f->text, treerow_clean(f->host, host, sizeof(host)), f->text + f->at);
	}
}
