/* attach.c - workload attachment's names, lifecycle and the finding accumulator. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/obs_host.h"
#include "probes/kube/imageref.h"
#include "probes/model/strbuf.h"
#include "report/checks/attach.h"

static const char *const attach_finding_names[ATTACH__COUNT] = {
	[ATTACH_ALL_GPUS] = "all-gpus",
	[ATTACH_DAEMON_SIDECAR] = "daemon-sidecar",
	[ATTACH_DAEMON_VERSION] = "daemon-version",
	[ATTACH_DAEMON_ARGS] = "daemon-args",
	[ATTACH_DAEMON_MOUNTS] = "daemon-mounts",
	[ATTACH_DEVICE_INJECTION] = "device-injection",
	[ATTACH_INTERFACES] = "interfaces",
	[ATTACH_APERTURE] = "aperture",
	[ATTACH_PLUGIN_PATH] = "plugin-path",
	[ATTACH_NCCL_ENV] = "nccl-env",
	[ATTACH_IPC_LOCK] = "ipc-lock",
};

const char *attach_finding_name(enum attach_finding_id id)
{
	if ((unsigned)id >= ATTACH__COUNT)
		return "unknown";
	return attach_finding_names[id];
}

const char *attach_verdict_name(enum attach_verdict v)
{
	switch (v) {
	case ATTACH_ATTACHED: return "attached";
	case ATTACH_PARTIAL: return "partial";
	case ATTACH_UNATTACHED: return "unattached";
	case ATTACH_NOT_FABRIC: return "not-fabric";
	case ATTACH_VERDICT__COUNT: break;
	}
	return "unknown";
}

const char *attach_runtime(enum profile_kind kind)
{
	return profile_runtime_name(kind);
}

void attach_result_free(struct attach_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < ATTACH__COUNT; i++) {
		free(r->findings[i].message);
		free(r->findings[i].remedy);
	}
	*r = (struct attach_result){ 0 };
}

static void attach_acc_vadd(struct attach_acc *a, enum check_status st, const char *remedy, const char *fmt,
			    va_list ap)
{
	if (a->msg.len)
		strbuf_append(&a->msg, "; ");
	strbuf_vappendf(&a->msg, fmt, ap);
	if (st > a->status || (st == a->status && !a->remedy)) {
		if (st > a->status || remedy) {
			free(a->remedy);
			a->remedy = NULL;
			if (remedy && !(a->remedy = strdup(remedy)))
				a->msg.oom = true;
		}
		a->status = st;
	}
}

void attach_acc_add(struct attach_acc *a, enum check_status st, const char *remedy, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	attach_acc_vadd(a, st, remedy, fmt, ap);
	va_end(ap);
}

void attach_acc_skip(struct attach_acc *a, const char *fmt, ...)
{
	va_list ap;

	a->skip = true;
	if (a->msg.len)
		strbuf_append(&a->msg, "; ");
	va_start(ap, fmt);
	strbuf_vappendf(&a->msg, fmt, ap);
	va_end(ap);
}

int attach_acc_finish(struct attach_acc *a, struct attach_finding *f, const char *pass, ...)
{
	enum check_status st = a->status;
	char *msg = NULL;
	va_list ap;
	int r = -ENOMEM;

	if (a->msg.oom)
		goto out;
	if (a->msg.len) {
		msg = strbuf_take(&a->msg);
	} else {
		va_start(ap, pass);
		msg = strbuf_vprintf(pass, ap);
		va_end(ap);
	}
	if (!msg)
		goto out;
	/* Nothing worse than a note: a pass, unless something could not be judged (a skip). */
	if (st <= CHECK_PASS)
		st = a->skip ? CHECK_SKIP : CHECK_PASS;
	free(f->message);
	free(f->remedy);
	f->status = st;
	f->message = msg;
	f->remedy = st >= CHECK_WARN ? a->remedy : NULL;
	if (st >= CHECK_WARN)
		a->remedy = NULL;
	msg = NULL;
	r = 0;
out:
	free(msg);
	strbuf_free(&a->msg);
	free(a->remedy);
	*a = (struct attach_acc){ 0 };
	return r;
}

int attach_finding_set(struct attach_finding *f, enum check_status st, const char *remedy, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = check_text_vset(&f->status, &f->message, &f->remedy, st, remedy, fmt, ap);
	va_end(ap);
	return r;
}

const char *attach_quote(const char *s, char *buf, size_t len)
{
	obs_host_quote(s ? s : "", buf, len);
	return buf;
}

void attach_device_key(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", ATTACH_DEVICE_PREFIX, name ? name : "");
}

static const struct attach_fabric attach_fabrics[] = {
	{ PROFILE_TCPXO, "gpudirect-tcpxo", "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev",
	  "tcpxo-daemon", "/fts/entrypoint_rxdm_container.sh", "/fts/entrypoint_rxdm_container.sh --num_hops=2",
	  true, "NCCL_FASTRAK_", "NCCL_GPUDIRECTTCPX_", "torch-distributed-tcpxo", 8 },
	{ PROFILE_TCPX, "gpudirect-tcpx", "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev",
	  "tcpx-daemon", "/tcpgpudmarxd/build/app/tcpgpudmarxd",
	  "/tcpgpudmarxd/build/app/tcpgpudmarxd --gpu_nic_preset a3vm --gpu_shmem_type fd --uds_path /run/tcpx",
	  false, "NCCL_GPUDIRECTTCPX_", "NCCL_FASTRAK_", "torch-distributed-tcpx", 4 },
};

const struct attach_fabric *attach_fabric_of(enum profile_kind kind)
{
	for (size_t i = 0; i < sizeof(attach_fabrics) / sizeof(attach_fabrics[0]); i++)
		if (attach_fabrics[i].kind == kind)
			return &attach_fabrics[i];
	return NULL;
}

void attach_runtime_hint(const struct attach_fabric *fab, char *buf, size_t len)
{
	snprintf(buf, len, "or, in a TrainJob, reference runtimeRef %s", fab ? fab->runtime : "torch-distributed-tcpxo");
}

void attach_remedy(const struct attach_node *n, char *buf, size_t len, const char *fmt, ...)
{
	char hint[96];
	size_t k;
	va_list ap;

	if (!len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	attach_runtime_hint(attach_fabric_of(n->kind), hint, sizeof(hint));
	k = strlen(buf);
	snprintf(buf + k, len - k, "; %s", hint);
}

/* Equal paths, ignoring trailing slashes. */
static bool attach_path_equal(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && memcmp(a, b, la) == 0;
}

bool attach_path_has(const char *list, const char *dir)
{
	const char *s = list;

	if (!list || !dir)
		return false;
	for (;;) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n && attach_path_equal(s, n, dir))
			return true;
		if (!e)
			return false;
		s = e + 1;
	}
}

bool attach_nvidia_lib64(const struct pod *p, const struct pod_container *c, char *buf, size_t len)
{
	const struct pod_mount *m = obs_pod_mount_of_host(p, c, ATTACH_NVIDIA_HOST);

	if (m && m->path) {
		size_t n = strlen(m->path);

		while (n > 1 && m->path[n - 1] == '/')
			n--;
		snprintf(buf, len, "%.*s/lib64", (int)n, m->path);
		return true;
	}
	m = obs_pod_mount_of_host(p, c, ATTACH_NVIDIA_HOST "/lib64");
	if (m && m->path) {
		snprintf(buf, len, "%s", m->path);
		return true;
	}
	return false;
}

const char **attach_argv(const struct pod_container *c, size_t *ret_n)
{
	size_t n = c->n_command + c->n_args;
	const char **v;

	*ret_n = 0;
	if (!n || !(v = calloc(n, sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < c->n_command; i++)
		v[i] = c->command[i];
	for (size_t i = 0; i < c->n_args; i++)
		v[c->n_command + i] = c->args[i];
	*ret_n = n;
	return v;
}

bool attach_argv_mentions(const struct pod_container *c, const char *needle)
{
	for (size_t i = 0; i < c->n_command; i++)
		if (strstr(c->command[i], needle))
			return true;
	for (size_t i = 0; i < c->n_args; i++)
		if (strstr(c->args[i], needle))
			return true;
	return false;
}

bool attach_is_daemon(const struct pod_container *c, enum profile_kind *ret_fabric)
{
	struct imageref ref;

	if (!c->image || imageref_parse(c->image, &ref) < 0 || imageref_component(&ref) != IMAGEREF_DAEMON)
		return false;
	if (ret_fabric) {
		switch (imageref_fabric(&ref)) {
		case IMAGEREF_FABRIC_TCPXO: *ret_fabric = PROFILE_TCPXO; break;
		case IMAGEREF_FABRIC_TCPX: *ret_fabric = PROFILE_TCPX; break;
		case IMAGEREF_FABRIC_UNKNOWN: *ret_fabric = PROFILE_NONE; break;
		}
	}
	return true;
}

bool attach_is_gpu_container(const struct pod_container *c)
{
	if (obs_pod_container_gpus(c) <= 0 || attach_is_daemon(c, NULL))
		return false;
	/* A plain init container ends before the workload starts: not where NCCL runs. */
	return !c->init || c->sidecar;
}
