/* test_node_event.c - the Node's Event: only on a transition of ready, profile or runtime; its reason, type and bounded note. */
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
#include "report/render/node_event.h"

#define T0 "2026-01-20T10:00:00Z"

/* The node carries @profile, @runtime, @ready (NULL: absent). */
static void carry(struct kube_annotation cur[KUBE_ANN__COUNT], const char *profile, const char *runtime,
		  const char *ready)
{
	const char *v[KUBE_ANN__COUNT] = { [KUBE_ANN_PROFILE] = profile, [KUBE_ANN_RUNTIME] = runtime,
					   [KUBE_ANN_READY] = ready };

	for (int i = 0; i < KUBE_ANN__COUNT; i++) {
		cur[i].present = v[i] != NULL;
		cur[i].value = (char *)v[i];
	}
}

static void test_transitions(void **state)
{
	struct kube_annotation cur[KUBE_ANN__COUNT];
	struct annotations want;
	struct node_event ev;
	struct profile p;

	/* Ready, as the node says: nothing to tell (a restarted agent posts nothing). */
	profbuild_init(&p, PROFILE_TCPXO, "tcpxo: ready (8/8 GPUs paired, 13 checks)");
	assert_int_equal(annotations_build(&p, true, T0, true, &want), 0);
	carry(cur, "tcpxo", "torch-distributed-tcpxo", "true");
	assert_false(node_event_build(&p, &want, cur, &ev));
	annotations_free(&want);

	/* Ready -> not ready: Warning FabricNotReady naming the summary, the failed checks and the change. */
	profbuild_init(&p, PROFILE_TCPXO, "tcpxo: not ready: links: eth3 is down");
	profbuild_fail(&p, CHECK_LINKS);
	profbuild_fail(&p, CHECK_APERTURE_DEVICES);
	assert_int_equal(annotations_build(&p, true, T0, true, &want), 0);
	assert_true(node_event_build(&p, &want, cur, &ev));
	assert_string_equal(ev.type, "Warning");
	assert_string_equal(ev.reason, "FabricNotReady");
	assert_string_equal(ev.action, "Check");
	assert_string_equal(ev.note, "tcpxo: not ready: links: eth3 is down. Changed: ready true→false. "
			    "Failed checks: links, aperture-devices.");
	annotations_free(&want);

	/* Back to ready: Normal FabricReady. */
	carry(cur, "tcpxo", "torch-distributed-tcpxo", "false");
	profbuild_init(&p, PROFILE_TCPXO, "tcpxo: ready (8/8 GPUs paired, 13 checks)");
	assert_int_equal(annotations_build(&p, true, T0, true, &want), 0);
	assert_true(node_event_build(&p, &want, cur, &ev));
	assert_string_equal(ev.type, "Normal");
	assert_string_equal(ev.reason, "FabricReady");
	assert_string_equal(ev.note, "tcpxo: ready (8/8 GPUs paired, 13 checks). Changed: ready false→true.");
	annotations_free(&want);

	/* A profile change alone is a transition (none -> tcpx, not ready either way). */
	carry(cur, "none", NULL, "false");
	profbuild_init(&p, PROFILE_TCPX, "tcpxo: not ready: version-pair: skew");
	profbuild_fail(&p, CHECK_VERSION_PAIR);
	assert_int_equal(annotations_build(&p, true, T0, true, &want), 0);
	assert_true(node_event_build(&p, &want, cur, &ev));
	assert_string_equal(ev.note, "tcpxo: not ready: version-pair: skew. Changed: profile none→tcpx, "
			    "runtime (none)→torch-distributed-tcpx. Failed checks: version-pair.");
	annotations_free(&want);

	/* An incomplete observation of a none node writes no profile: no profile transition from it. */
	carry(cur, "tcpxo", "torch-distributed-tcpxo", "false");
	profbuild_init(&p, PROFILE_NONE, "tcpxo: not ready: gpus: the PCI bus could not be read");
	profbuild_fail(&p, CHECK_GPUS);
	assert_int_equal(annotations_build(&p, false, T0, true, &want), 0);
	assert_false(node_event_build(&p, &want, cur, &ev));
	annotations_free(&want);
}

/* The note stays within 1 KiB, printable, whatever the summary carries. */
static void test_note_bound(void **state)
{
	struct kube_annotation cur[KUBE_ANN__COUNT];
	struct annotations want;
	struct node_event ev;
	struct profile p;
	char *summary = malloc(3000);

	assert_non_null(summary);
	memset(summary, 'x', 2999);
	summary[2999] = '\0';
	summary[10] = '\n';
	profbuild_init(&p, PROFILE_TCPXO, summary);
	profbuild_fail(&p, CHECK_LINKS);
	carry(cur, NULL, NULL, NULL);
	assert_int_equal(annotations_build(&p, true, T0, true, &want), 0);
	assert_true(node_event_build(&p, &want, cur, &ev));
	assert_true(strlen(ev.note) <= NODE_EVENT_NOTE_MAX);
	assert_null(strchr(ev.note, '\n'));
	assert_string_equal(ev.note + strlen(ev.note) - 3, "…");
	annotations_free(&want);
	free(summary);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transitions),
		cmocka_unit_test(test_note_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
