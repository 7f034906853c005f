/* test_condition.c - the FabricReady condition: value, bounds, the status patches, what the node then carries. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/profbuild.h"
#include "probes/model/json.h"
#include "report/render/condition.h"

#define T0 "2026-01-20T10:00:00Z"
#define T1 "2026-01-20T11:30:00Z"

/* The one condition entry of a status patch. */
static struct json *entry_of(const char *patch, struct json **root)
{
	const struct json *list;

	assert_int_equal(json_parse(patch, strlen(patch), root), 0);
	assert_int_equal(json_size(*root), 1);
	list = json_get(json_get(*root, "status"), "conditions");
	assert_int_equal(json_type(list), JSON_ARRAY);
	assert_int_equal(json_size(list), 1);
	assert_int_equal(json_size(json_get(*root, "status")), 1);
	return (struct json *)json_first(list);
}

static void test_build(void **state)
{
	struct profile p;
	struct condition c;

	profbuild_init(&p, PROFILE_TCPXO, "tcpxo: ready (8/8 GPUs paired, 13 checks)");
	condition_build(&p, &c);
	assert_string_equal(c.status, "True");
	assert_string_equal(c.reason, "TCPXOReady");
	assert_string_equal(c.message, "tcpxo: ready (8/8 GPUs paired, 13 checks)");

	profbuild_init(&p, PROFILE_TCPX, "tcpxo: ready (profile tcpx, 8/8 GPUs paired, 13 checks)");
	condition_build(&p, &c);
	assert_string_equal(c.reason, "TCPXReady");

	/* Not ready: the first failed check, in CamelCase. */
	profbuild_init(&p, PROFILE_TCPXO, "tcpxo: not ready: links: eth3 is down");
	profbuild_fail(&p, CHECK_VERSION_PAIR);
	profbuild_fail(&p, CHECK_LINKS);
	condition_build(&p, &c);
	assert_string_equal(c.status, "False");
	assert_string_equal(c.reason, "Links");
	assert_string_equal(c.message, "tcpxo: not ready: links: eth3 is down");

	/* Profile none is False too: its first failed check (a CPU node: MachineType). */
	profbuild_init(&p, PROFILE_NONE, "tcpxo: not ready: machine-type: n2-standard-8 is not an A3 machine type");
	profbuild_fail(&p, CHECK_MACHINE_TYPE);
	profbuild_fail(&p, CHECK_GPUS);
	condition_build(&p, &c);
	assert_string_equal(c.status, "False");
	assert_string_equal(c.reason, "MachineType");
	/* ... and NoFabric should no check have failed. */
	profbuild_init(&p, PROFILE_NONE, "tcpxo: not ready: profile none");
	condition_build(&p, &c);
	assert_string_equal(c.reason, "NoFabric");
}

static void test_reason_of(void **state)
{
	static const char *const want[CHECK__COUNT] = {
		"MachineType", "Gpus", "GpuNics", "Pairing", "Links", "Networks", "ApertureDevices",
		"DeviceNodes", "NvidiaHostPath", "PluginFiles", "VersionPair", "DaemonArgs", "DaemonPod",
	};
	char buf[CONDITION_REASON_MAX], small[5];

	for (int i = 0; i < CHECK__COUNT; i++) {
		condition_reason_of((enum check_id)i, buf, sizeof(buf));
		assert_string_equal(buf, want[i]);
	}
	condition_reason_of(CHECK_VERSION_PAIR, small, sizeof(small));
	assert_string_equal(small, "Vers");
}

/* The message: printable, at most CONDITION_MESSAGE_MAX bytes, cut on a character boundary. */
static void test_message_bounds(void **state)
{
	char *summary = malloc(4000);
	struct profile p;
	struct condition c;
	size_t n;

	assert_non_null(summary);
	strcpy(summary, "tcpxo: not ready: networks: line\none\ttab ");
	n = strlen(summary);
	while (n + 2 < 3999) {
		memcpy(summary + n, "é", 2);   /* two bytes each: a cut may fall inside one */
		n += 2;
	}
	summary[n] = '\0';
	profbuild_init(&p, PROFILE_TCPXO, summary);
	profbuild_fail(&p, CHECK_NETWORKS);
	condition_build(&p, &c);
	assert_true(strlen(c.message) <= CONDITION_MESSAGE_MAX);
	assert_true(strlen(c.message) > CONDITION_MESSAGE_MAX - 8);
	assert_null(strchr(c.message, '\n'));
	assert_null(strchr(c.message, '\t'));
	assert_non_null(strstr(c.message, "line?one?tab"));
	n = strlen(c.message);
	assert_string_equal(c.message + n - 3, "…");
	assert_int_equal((unsigned char)c.message[n - 4] & 0xc0, 0x80);    /* the last é is whole */
	free(summary);

	condition_unknown("no PCI bus under /host/sys/bus/pci", &c);
	assert_string_equal(c.status, "Unknown");
	assert_string_equal(c.reason, "ObservationFailed");
	assert_string_equal(c.message, "the node could not be observed: no PCI bus under /host/sys/bus/pci");
	condition_unknown(NULL, &c);
	assert_string_equal(c.message, "the node could not be observed: ");
}

/* Merged by type; lastTransitionTime only when the status changes; the node keeps its own otherwise. */
static void test_patch_and_remember(void **state)
{
	struct kube_condition have = { 0 };
	struct profile p;
	struct condition c;
	struct json *root;
	const struct json *e;
	char *patch = NULL;

	profbuild_init(&p, PROFILE_TCPXO, "tcpxo: ready (8/8 GPUs paired, 13 checks)");
	condition_build(&p, &c);
	assert_true(condition_differs(&c, &have));
	assert_int_equal(condition_patch(&c, &have, T0, &patch), 0);
	e = entry_of(patch, &root);
	assert_string_equal(json_get_string(e, "type"), "FabricReady");
	assert_string_equal(json_get_string(e, "status"), "True");
	assert_string_equal(json_get_string(e, "reason"), "TCPXOReady");
	assert_string_equal(json_get_string(e, "message"), "tcpxo: ready (8/8 GPUs paired, 13 checks)");
	assert_string_equal(json_get_string(e, "lastHeartbeatTime"), T0);
	assert_string_equal(json_get_string(e, "lastTransitionTime"), T0);
	assert_int_equal(json_size(e), 6);
	json_free(root);
	free(patch);
	assert_int_equal(condition_remember(&have, &c, T0), 0);
	assert_false(condition_differs(&c, &have));
	assert_string_equal(have.last_transition, T0);

	/* Same status, another message: no new transition time. */
	profbuild_init(&p, PROFILE_TCPXO, "tcpxo: ready (8/8 GPUs paired, 13 checks, 1 warn)");
	condition_build(&p, &c);
	assert_true(condition_differs(&c, &have));
	assert_int_equal(condition_patch(&c, &have, T1, &patch), 0);
	e = entry_of(patch, &root);
	assert_null(json_get(e, "lastTransitionTime"));
	assert_string_equal(json_get_string(e, "lastHeartbeatTime"), T1);
	json_free(root);
	free(patch);
	assert_int_equal(condition_remember(&have, &c, T1), 0);
	assert_string_equal(have.last_transition, T0);
	assert_string_equal(have.last_heartbeat, T1);   /* every status patch is a heartbeat */

	/* False: a transition. */
	profbuild_init(&p, PROFILE_TCPXO, "tcpxo: not ready: links: eth3 is down");
	profbuild_fail(&p, CHECK_LINKS);
	condition_build(&p, &c);
	assert_int_equal(condition_patch(&c, &have, T1, &patch), 0);
	e = entry_of(patch, &root);
	assert_string_equal(json_get_string(e, "lastTransitionTime"), T1);
	json_free(root);
	free(patch);
	assert_int_equal(condition_remember(&have, &c, T1), 0);
	assert_string_equal(have.status, "False");

	/* What the node says too long to keep (or someone's edit) differs; a bad time is refused. */
	have.message_long = true;
	assert_true(condition_differs(&c, &have));
	have.message_long = false;
	snprintf(have.reason, sizeof(have.reason), "Edited");
	assert_true(condition_differs(&c, &have));
	assert_int_equal(condition_patch(&c, &have, NULL, &patch), -EINVAL);
	obs_kube_condition_clear(&have);
	assert_false(have.present);
}

static void test_cleanup_patch(void **state)
{
	char *patch = NULL;

	assert_int_equal(condition_cleanup_patch(&patch), 0);
	assert_string_equal(patch, "{\"status\":{\"conditions\":[{\"$patch\":\"delete\",\"type\":\"FabricReady\"}]}}");
	free(patch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_reason_of),
		cmocka_unit_test(test_message_bounds),
		cmocka_unit_test(test_patch_and_remember),
		cmocka_unit_test(test_cleanup_patch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
