/* fuzz_trainruntime.c - any bytes as a runtime manifest (JSON or YAML, trainruntime_find), judged against a TCPXO and a TCPX fleet, rendered. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/trainruntime.h"
#include "report/fleet/fleet.h"
#include "report/fleet/runtime.h"
#include "report/render/render_runtime.h"

#define FUZZ_RT_MAP "[{\\\"interfaceName\\\":\\\"eth1\\\",\\\"network\\\":\\\"gpu-nic-1\\\"}," \
	"{\\\"interfaceName\\\":\\\"eth2\\\",\\\"network\\\":\\\"gpu-nic-2\\\"},{\\\"interfaceName\\\":\\\"eth3\\\",\\\"network\\\":\\\"gpu-nic-3\\\"}," \
	"{\\\"interfaceName\\\":\\\"eth4\\\",\\\"network\\\":\\\"gpu-nic-4\\\"},{\\\"interfaceName\\\":\\\"eth5\\\",\\\"network\\\":\\\"gpu-nic-5\\\"}," \
	"{\\\"interfaceName\\\":\\\"eth6\\\",\\\"network\\\":\\\"gpu-nic-6\\\"},{\\\"interfaceName\\\":\\\"eth7\\\",\\\"network\\\":\\\"gpu-nic-7\\\"}," \
	"{\\\"interfaceName\\\":\\\"eth8\\\",\\\"network\\\":\\\"gpu-nic-8\\\"}]"
#define FUZZ_RT_ATT(inst, exp, nic2) "{\\\"versions\\\":{\\\"installer\\\":\\\"" inst "\\\",\\\"expectedDaemon\\\":\\\"" exp "\\\"}," \
	"\\\"pairs\\\":[{\\\"gpu\\\":\\\"a\\\",\\\"nic\\\":\\\"eth1\\\"},{\\\"gpu\\\":\\\"b\\\",\\\"nic\\\":\\\"" nic2 "\\\"}]}"
#define FUZZ_RT_NODE(name, profile, extra) "{\"kind\":\"Node\",\"metadata\":{\"name\":\"" name "\",\"labels\":{" \
	"\"cloud.google.com/gke-nodepool\":\"a3\"},\"annotations\":{\"fabric.aicr.run/profile\":\"" profile "\"," \
	"\"fabric.aicr.run/ready\":\"true\"" extra "}},\"spec\":{\"taints\":[{\"key\":\"nvidia.com/gpu\"," \
	"\"effect\":\"NoSchedule\"}]}}"

/* Two TCPXO nodes on two installer releases and a TCPX node: every group and the disagreement paths. */
static const char fuzz_rt_nodes[] = "{\"kind\":\"NodeList\",\"items\":["
	FUZZ_RT_NODE("a", "tcpxo", ",\"fabric.aicr.run/interfaces\":\"" FUZZ_RT_MAP "\",\"fabric.aicr.run/attachment\":\""
		     FUZZ_RT_ATT("v1.0.15", "v1.0.21", "eth2") "\"") ","
	FUZZ_RT_NODE("b", "tcpxo", ",\"fabric.aicr.run/interfaces\":\"" FUZZ_RT_MAP "\",\"fabric.aicr.run/attachment\":\""
		     FUZZ_RT_ATT("v1.0.14", "v1.0.20", "eth2") "\"") ","
	FUZZ_RT_NODE("c", "tcpx", ",\"fabric.aicr.run/attachment\":\"" FUZZ_RT_ATT("v3.1.12", "v2.0.15", "eth1") "\"")
	"]}";

static void fuzz_rt_judge(const struct trainruntime *rt, struct coherence *f, enum profile_kind kind)
{
	struct fleet_facts ff = { 0 };
	struct obs_kube nets = { 0 };
	struct rtresult res = { 0 };
	char buf[1 << 16], err[512];
	FILE *out;

	nets.networks_fetch.state = KUBE_FETCH_OK;
	if (fleet_facts(f, kind, &ff, err, sizeof(err)) == 0 && runtime_judge(rt, &ff, &nets, NULL, "fabric.aicr.run/", &res) == 0) {
		free(render_runtime_json(&res));
		out = fmemopen(buf, sizeof(buf), "w");
		if (out) {
			render_runtime_human(&res, out);
			fclose(out);
		}
		runtime_fabric_of(rt);
	}
	rtresult_free(&res);
	fleet_facts_free(&ff);
}

int fuzz_one(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "torch-distributed-tcpxo", "torch-distributed-tcpx" };
	struct coherence *f = NULL;
	char msg[512];

	if (fleet_new("fabric.aicr.run/", &f) < 0)
		return 0;
	if (coherence_add_nodelist(f, fuzz_rt_nodes, sizeof(fuzz_rt_nodes) - 1, NULL, msg, sizeof(msg)) == 3) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			struct trainruntime rt = { 0 };

			if (trainruntime_find((const char *)data, size, names[i], &rt, msg, sizeof(msg)) < 0)
				continue;
			fuzz_rt_judge(&rt, f, i ? PROFILE_TCPX : PROFILE_TCPXO);
			trainruntime_free(&rt);
		}
	}
	coherence_free(f);
	return 0;
}
