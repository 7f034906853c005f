/* profile.c - the verdict's names and lifecycle: check, status, profile and NIC-state names, check_set, free. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"
#include "report/checks/profile.h"

static const char *const profile_check_names[CHECK__COUNT] = {
	[CHECK_MACHINE_TYPE] = "machine-type",
	[CHECK_GPUS] = "gpus",
	[CHECK_GPU_NICS] = "gpu-nics",
	[CHECK_PAIRING] = "pairing",
	[CHECK_LINKS] = "links",
	[CHECK_NETWORKS] = "networks",
	[CHECK_APERTURE_DEVICES] = "aperture-devices",
	[CHECK_DEVICE_NODES] = "device-nodes",
	[CHECK_NVIDIA_HOST_PATH] = "nvidia-host-path",
	[CHECK_PLUGIN_FILES] = "plugin-files",
	[CHECK_VERSION_PAIR] = "version-pair",
	[CHECK_DAEMON_ARGS] = "daemon-args",
	[CHECK_DAEMON_POD] = "daemon-pod",
};

const char *check_id_name(enum check_id id)
{
	if ((unsigned)id >= CHECK__COUNT)
		return "unknown";
	return profile_check_names[id];
}

const char *check_status_name(enum check_status s)
{
	switch (s) {
	case CHECK_SKIP: return "skip";
	case CHECK_PASS: return "pass";
	case CHECK_WARN: return "warn";
	case CHECK_FAIL: return "fail";
	}
	return "skip";
}

const char *profile_kind_name(enum profile_kind k)
{
	switch (k) {
	case PROFILE_NONE: return "none";
	case PROFILE_TCPX: return "tcpx";
	case PROFILE_TCPXO: return "tcpxo";
	}
	return "none";
}

const char *profile_runtime_name(enum profile_kind k)
{
	switch (k) {
	case PROFILE_NONE: return NULL;
	case PROFILE_TCPX: return "torch-distributed-tcpx";
	case PROFILE_TCPXO: return "torch-distributed-tcpxo";
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

int check_text_vset(enum check_status *status, char **message, char **remedy, enum check_status st,
		    const char *remedy_in, const char *fmt, va_list ap)
{
	char *msg = NULL, *rem = NULL;

	msg = strbuf_vprintf(fmt, ap);
	if (!msg)
		return -ENOMEM;
	if (remedy_in && !(rem = strdup(remedy_in))) {
		free(msg);
		return -ENOMEM;
	}
	free(*message);
	free(*remedy);
	*status = st;
	*message = msg;
	*remedy = rem;
	return 0;
}

int check_set(struct check *c, enum check_status status, const char *remedy, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = check_text_vset(&c->status, &c->message, &c->remedy, status, remedy, fmt, ap);
	va_end(ap);
	return r;
}

int profile_find(struct profile *p, enum check_id id, enum finding_on on, size_t idx, const char *host,
		 const char *tail, const char *fmt, ...)
{
	struct finding *v = realloc(p->findings, (p->n_findings + 1) * sizeof(*v)), *f;
	va_list ap;

	if (!v)
		return -ENOMEM;
	p->findings = v;
	f = &v[p->n_findings++];
	*f = (struct finding){ .check = id, .on = on, .idx = idx };
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	f->at = strlen(f->text);
	snprintf(f->host, sizeof(f->host), "%s", host ? host : "");
	snprintf(f->text + f->at, sizeof(f->text) - f->at, "%s", tail ? tail : "");
	return 0;
}

const struct profile_nic *profile_nic_by_name(const struct profile *p, const char *name)
{
	if (!name || !*name)
		return NULL;
	for (size_t i = 0; i < p->n_nics; i++)
		if (strcmp(p->nics[i].name, name) == 0)
			return &p->nics[i];
	return NULL;
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
	free(p->findings);
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		free(p->checks[i].message);
		free(p->checks[i].remedy);
	}
	*p = (struct profile){ 0 };
}
