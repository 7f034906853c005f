/* profile.c - the verdict's names and lifecycle: profile and NIC-state names, the parts' marks, free. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"
#include "report/checks/profile.h"

const char *profile_kind_name(enum profile_kind k)
{
	switch (k) {
	case PROFILE_NONE: return "none";
	case PROFILE_TCPX: return "tcpx";
	case PROFILE_TCPXO: return "tcpxo";
	case PROFILE_RDMA: return "rdma";
	}
	return "none";
}

const char *profile_fabric_name(enum profile_kind k)
{
	return k == PROFILE_TCPX ? "TCPX" : k == PROFILE_RDMA ? "RDMA" : "TCPXO";
}

unsigned profile_nic_mtu(enum profile_kind k)
{
	return k == PROFILE_RDMA ? PROFILE_RDMA_NIC_MTU : PROFILE_GPU_NIC_MTU;
}

const char *profile_runtime_name(enum profile_kind k)
{
	switch (k) {
	case PROFILE_NONE: return NULL;
	case PROFILE_TCPX: return "torch-distributed-tcpx";
	case PROFILE_TCPXO: return "torch-distributed-tcpxo";
	case PROFILE_RDMA: return "torch-distributed-rdma";       /* AICR's pending name (PR #2859) */
	}
	return NULL;
}

const char *nic_state_name(enum nic_state s)
{
	switch (s) {
	case NIC_STATE_UNKNOWN: return NULL;
	case NIC_STATE_UP: return "up";
	case NIC_STATE_DOWN: return "down";
	case NIC_STATE_IN_POD: return "in-pod";
	case NIC_STATE_MISSING: return "missing";
	}
	return NULL;
}

int profile_mark(struct profile *p, enum check_id id, enum mark_on on, size_t idx, const char *host,
		 const char *tail, const char *fmt, ...)
{
	struct mark *v = realloc(p->marks, (p->n_marks + 1) * sizeof(*v)), *f;
	va_list ap;

	if (!v)
		return -ENOMEM;
	p->marks = v;
	f = &v[p->n_marks++];
	*f = (struct mark){ .check = id, .on = on, .idx = idx };
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	f->at = strlen(f->text);
	snprintf(f->host, sizeof(f->host), "%s", host ? host : "");
	snprintf(f->text + f->at, sizeof(f->text) - f->at, "%s", tail ? tail : "");
	return 0;
}

void profile_nic_label(const struct profile_nic *n, struct strbuf *sb)
{
	if (*n->name)
		strbuf_appendf(sb, "%s (%s)", n->bdf, n->name);
	else
		strbuf_appendf(sb, "%s", n->bdf);
}

const struct profile_nic *profile_nic_by_bdf(const struct profile *p, const char *bdf)
{
	if (!bdf || !*bdf)
		return NULL;
	for (size_t i = 0; i < p->n_nics; i++)
		if (strcmp(p->nics[i].bdf, bdf) == 0)
			return &p->nics[i];
	return NULL;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->summary);
	free(p->gpus);
	free(p->nics);
	free(p->switches);
	free(p->ifaces);
	for (size_t i = 0; i < p->n_daemons; i++)
		free(p->daemons[i]);
	free(p->daemons);
	free(p->marks);
	for (size_t i = 0; i < CHECK__COUNT; i++)
		finding_free(&p->checks[i]);
	*p = (struct profile){ 0 };
}
