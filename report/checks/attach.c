/* attach.c - workload attachment's names, lifecycle and the finding accumulator. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probes/model/obs_host.h"
#include "probes/kube/imageref.h"
#include "probes/model/json.h"
#include "probes/model/strbuf.h"
#include "report/checks/attach.h"

int attach_gpu_finding(const struct attach_pod *w, struct finding *f, attach_gpu_fn one, const char *remedy,
		       const char *pass)
{
	struct finding_acc a = { 0 };
	size_t n_gpu = 0;

	for (size_t i = 0; i < w->p->n_containers; i++) {
		const struct pod_container *c = &w->p->containers[i];
		char q[96];

		if (!imageref_gpu_container(c))
			continue;
		n_gpu++;
		one(w, c, attach_quote(c->name, q, sizeof(q)), remedy, &a);
	}
	if (!n_gpu)
		finding_acc_skip(&a, "no GPU container");
	return finding_acc_finish(&a, f, "%s", pass);
}

const char *attach_verdict_name(enum attach_verdict v)
{
	static const char *const names[ATTACH_VERDICT__COUNT] = {
		[ATTACH_ATTACHED] = "attached", [ATTACH_PARTIAL] = "partial",
		[ATTACH_UNATTACHED] = "unattached", [ATTACH_NOT_FABRIC] = "not-fabric",
	};

	return NAME_OF(names, v);
}

void attach_result_free(struct attach_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < ATTACH__COUNT; i++)
		finding_free(&r->findings[i]);
	*r = (struct attach_result){ 0 };
}

int attach_ifaces_list(const struct pod *p, struct json **ret)
{
	const char *v = obs_pod_kv(&p->annotations, ATTACH_IFACES_KEY);

	*ret = NULL;
	if (!v)
		return 0;
	if (strlen(v) > ATTACH_ANN_MAX || json_parse(v, strlen(v), ret) < 0 || json_type(*ret) != JSON_ARRAY) {
		json_free(*ret);
		*ret = NULL;
		return -1;
	}
	return 1;
}

const char *attach_quote(const char *s, char *buf, size_t len)
{
	obs_host_quote(s ? s : "", buf, len);
	return buf;
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
	enum imageref_fabric fab;

	if (!imageref_is_daemon(c->image, &fab))
		return false;
	if (ret_fabric) {
		switch (fab) {
		case IMAGEREF_FABRIC_TCPXO: *ret_fabric = PROFILE_TCPXO; break;
		case IMAGEREF_FABRIC_TCPX: *ret_fabric = PROFILE_TCPX; break;
		case IMAGEREF_FABRIC_UNKNOWN: *ret_fabric = PROFILE_NONE; break;
		}
	}
	return true;
}
