/* fuzz_attach.c - the workload checker: any bytes as a Pod (kubepod_parse), judged on a TCPXO and a TCPX node, with its Event. */
#include <stdio.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/kubepod.h"
#include "probes/model/json.h"
#include "report/checks/attach_judge.h"
#include "report/render/pod_event.h"

static void fuzz_attach_node(struct attach_node *n, enum profile_kind kind)
{
	unsigned nics = kind == PROFILE_TCPXO ? 8 : 4;

	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->gpus = 8;
	n->gpu_nics = nics;
	n->ifaces_known = true;
	for (unsigned i = 0; i < nics; i++) {
		snprintf(n->ifaces[i].name, sizeof(n->ifaces[i].name), "eth%u", i + 1);
		snprintf(n->ifaces[i].network, sizeof(n->ifaces[i].network), "gpu-nic-%u", i);
	}
	n->n_ifaces = nics;
	snprintf(n->installer, sizeof(n->installer), "v1.0.15");
	snprintf(n->expected_daemon, sizeof(n->expected_daemon), "v1.0.21");
	for (unsigned i = 0; i < 8; i++)
		snprintf(n->devices[n->n_devices++], ATTACH_DEVNAME_MAX, "/dev/nvidia%u", i);
	snprintf(n->devices[n->n_devices++], ATTACH_DEVNAME_MAX, "/dev/nvidiactl");
	n->injector = kind == PROFILE_TCPXO ? ATTACH_INJECTOR_RUNNING : ATTACH_INJECTOR_ABSENT;
	n->plugin_files_known = true;
	snprintf(n->plugin_files[n->n_plugin_files++], ATTACH_FILE_MAX, "a3plus_tuner_config.textproto");
}

int fuzz_one(const uint8_t *data, size_t size)
{
	static const enum profile_kind kinds[] = { PROFILE_TCPXO, PROFILE_TCPX };
	struct json *v = NULL;
	struct pod p = { 0 };
	char err[256];

	if (json_parse((const char *)data, size, &v) < 0)
		return 0;
	if (kubepod_parse(v, "pod", &p, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			struct attach_node n;
			struct attach_result r;
			struct pod_event ev;

			fuzz_attach_node(&n, kinds[i]);
			attach_pod_selected(&p);
			if (attach_judge(&p, &n, &r) < 0)
				continue;
			pod_event_build(&r, n.kind, &ev);
			attach_result_free(&r);
		}
		obs_pod_free(&p);
	}
	json_free(v);
	return 0;
}
