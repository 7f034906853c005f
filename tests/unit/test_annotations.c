/* test_annotations.c - annotation values, the attachment bound and the idempotent merge patch. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/kubeparse.h"
#include "probes/model/json.h"
#include "report/render/annotations.h"

/* A node without any of our labels (annotation-only tests build with labels off: nothing to remove). */
static const struct kube_annotation no_labels[KUBE_LABEL__COUNT];

#define T0 "2026-01-20T10:00:00Z"
#define T1 "2026-01-20T11:30:00Z"

static const char *const nic_bdfs[8] = {
	"0000:06:00.0", "0000:07:00.0", "0000:0d:00.0", "0000:0e:00.0",
	"0000:86:00.0", "0000:87:00.0", "0000:8d:00.0", "0000:8e:00.0",
};

/* A ready TCPXO profile with the mapping, v1.0.15/v1.0.21, all checks passing. */
static struct profile *profile_new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->kind = PROFILE_TCPXO;
	p->ready = true;
	p->gpus = calloc(8, sizeof(*p->gpus));
	p->nics = calloc(8, sizeof(*p->nics));
	p->ifaces = calloc(8, sizeof(*p->ifaces));
	p->daemons = calloc(1, sizeof(*p->daemons));
	assert_true(p->gpus && p->nics && p->ifaces && p->daemons);
	for (int i = 0; i < 8; i++) {
		snprintf(p->gpus[i].bdf, sizeof(p->gpus[i].bdf), "0000:%02x:00.0", (i < 4 ? 0x04 : 0x84) + (i % 4 < 2 ? i % 2 : 7 + i % 2));
		p->gpus[i].nic = i;
		strcpy(p->nics[i].bdf, nic_bdfs[i]);
		snprintf(p->nics[i].name, sizeof(p->nics[i].name), "eth%d", i + 1);
		/* Mapping stored out of order: the value is sorted anyway. */
		snprintf(p->ifaces[7 - i].name, sizeof(p->ifaces[7 - i].name), "eth%d", i + 1);
		snprintf(p->ifaces[7 - i].network, sizeof(p->ifaces[7 - i].network), "gpu-nic-%d", i);
	}
	p->n_gpus = p->n_nics = p->n_paired = p->n_ifaces = 8;
	strcpy(p->installer, "v1.0.15");
	strcpy(p->expected_daemon, "v1.0.21");
	p->daemons[0] = strdup("v1.0.21");
	p->n_daemons = 1;
	for (int i = 0; i < CHECK__COUNT; i++) {
		p->checks[i].status = CHECK_PASS;
		p->checks[i].message = strdup("ok");
	}
	return p;
}

static void profile_del(struct profile *p)
{
	for (int i = 0; i < CHECK__COUNT; i++) {
		free(p->checks[i].message);
		free(p->checks[i].remedy);
	}
	for (size_t i = 0; i < p->n_daemons; i++)
		free(p->daemons[i]);
	free(p->daemons);
	free(p->gpus);
	free(p->nics);
	free(p->ifaces);
	free(p);
}

static void set_check(struct profile *p, enum check_id id, enum check_status st, const char *msg)
{
	free(p->checks[id].message);
	p->checks[id].status = st;
	p->checks[id].message = strdup(msg);
	if (st == CHECK_FAIL)
		p->ready = false;
}

/* What the node carries after a patch: apply @a's keys to @cur like an API server. */
static void apply(struct kube_annotation cur[KUBE_ANN__COUNT], const char *patch, const char *prefix)
{
	struct json *root;
	const struct json *ann;
	char key[300];

	assert_int_equal(json_parse(patch, strlen(patch), &root), 0);
	ann = json_get(json_get(root, "metadata"), "annotations");
	assert_int_equal(json_type(ann), JSON_OBJECT);
	assert_int_equal(json_size(root), 1);
	for (int i = 0; i < KUBE_ANN__COUNT; i++) {
		const struct json *v;

		assert_int_equal(kubeparse_ann_key(prefix, (enum kube_ann_key)i, key, sizeof(key)), 0);
		v = json_get(ann, key);
		if (!v)
			continue;
		free(cur[i].value);
		cur[i].value = NULL;
		cur[i].present = json_type(v) == JSON_STRING;
		if (cur[i].present)
			cur[i].value = strdup(json_string(v));
	}
	json_free(root);
}

static void cur_free(struct kube_annotation cur[KUBE_ANN__COUNT])
{
	for (int i = 0; i < KUBE_ANN__COUNT; i++) {
		free(cur[i].value);
		cur[i].value = NULL;
		cur[i].present = false;
	}
}

static void test_build_ready(void **state)
{
	struct profile *p = profile_new();
	struct annotations a;
	struct json *att;

	assert_int_equal(annotations_build(p, true, T0, false, &a), 0);
	for (int i = 0; i < KUBE_ANN__COUNT; i++)
		assert_true(a.set[i]);
	assert_string_equal(a.value[KUBE_ANN_PROFILE], "tcpxo");
	assert_string_equal(a.value[KUBE_ANN_RUNTIME], "torch-distributed-tcpxo");
	assert_string_equal(a.value[KUBE_ANN_READY], "true");
	assert_string_equal(a.value[KUBE_ANN_INTERFACES],
			    "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"},{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"},"
			    "{\"interfaceName\":\"eth3\",\"network\":\"gpu-nic-2\"},{\"interfaceName\":\"eth4\",\"network\":\"gpu-nic-3\"},"
			    "{\"interfaceName\":\"eth5\",\"network\":\"gpu-nic-4\"},{\"interfaceName\":\"eth6\",\"network\":\"gpu-nic-5\"},"
			    "{\"interfaceName\":\"eth7\",\"network\":\"gpu-nic-6\"},{\"interfaceName\":\"eth8\",\"network\":\"gpu-nic-7\"}]");
	assert_int_equal(json_parse(a.value[KUBE_ANN_ATTACHMENT], strlen(a.value[KUBE_ANN_ATTACHMENT]), &att), 0);
	assert_string_equal(json_get_string(att, "schema"), "fabric.aicr.run/v1");
	assert_string_equal(json_get_string(att, "agentVersion"), TCPXO_VERSION);
	assert_string_equal(json_get_string(att, "changedAt"), T0);
	assert_string_equal(json_get_string(json_get(att, "versions"), "installer"), "v1.0.15");
	assert_string_equal(json_get_string(json_get(att, "versions"), "expectedDaemon"), "v1.0.21");
	assert_int_equal(json_size(json_get(json_get(att, "versions"), "daemons")), 1);
	assert_int_equal(json_size(json_get(att, "pairs")), 8);
	assert_string_equal(json_get_string(json_first(json_get(att, "pairs")), "nic"), "eth1");
	assert_string_equal(json_get_string(json_first(json_get(att, "pairs")), "nicPci"), "0000:06:00.0");
	assert_int_equal(json_size(json_get(att, "checks")), 0);       /* only failed/warned ones */
	assert_null(json_get(att, "truncated"));
	json_free(att);
	annotations_free(&a);
	annotations_free(&a);
	annotations_free(NULL);
	profile_del(p);
}

static void test_build_not_ready(void **state)
{
	struct profile *p = profile_new();
	struct annotations a;
	struct json *att;
	const struct json *c;

	set_check(p, CHECK_VERSION_PAIR, CHECK_FAIL, "daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)");
	set_check(p, CHECK_NETWORKS, CHECK_FAIL, "eth5: network 'vpc-extra-subnet' does not contain 'gpu-nic'");
	set_check(p, CHECK_MACHINE_TYPE, CHECK_WARN, "no label");
	p->n_ifaces = 0;
	assert_int_equal(annotations_build(p, true, T0, false, &a), 0);
	assert_string_equal(a.value[KUBE_ANN_READY], "false");
	/* networks failed: interfaces is removed (fail closed). */
	assert_true(a.set[KUBE_ANN_INTERFACES]);
	assert_null(a.value[KUBE_ANN_INTERFACES]);
	assert_int_equal(json_parse(a.value[KUBE_ANN_ATTACHMENT], strlen(a.value[KUBE_ANN_ATTACHMENT]), &att), 0);
	assert_int_equal(json_size(json_get(att, "checks")), 3);
	/* Failures first, in check order, then warnings. */
	c = json_first(json_get(att, "checks"));
	assert_string_equal(json_get_string(c, "id"), "networks");
	assert_string_equal(json_get_string(c, "status"), "fail");
	c = json_next(c);
	assert_string_equal(json_get_string(c, "id"), "version-pair");
	assert_string_equal(json_get_string(c, "message"),
			    "daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)");
	assert_string_equal(json_get_string(json_next(c), "status"), "warn");
	json_free(att);
	annotations_free(&a);

	/*
	 * A warning (AICR's naming rule) still describes the real mapping: the networks check keeps
	 * its rows (test_check_kube: none when it fails), and what it keeps is published.
	 */
	set_check(p, CHECK_NETWORKS, CHECK_WARN, "renderer naming rule: ...");
	p->n_ifaces = 8;
	assert_int_equal(annotations_build(p, true, T0, false, &a), 0);
	assert_non_null(a.value[KUBE_ANN_INTERFACES]);
	assert_non_null(strstr(a.value[KUBE_ANN_INTERFACES], "\"interfaceName\":\"eth8\""));
	annotations_free(&a);
	profile_del(p);
}

static void test_build_none(void **state)
{
	struct profile *p = profile_new();
	struct annotations a;

	p->kind = PROFILE_NONE;
	p->ready = false;
	assert_int_equal(annotations_build(p, true, T0, false, &a), 0);
	assert_string_equal(a.value[KUBE_ANN_PROFILE], "none");
	assert_true(a.set[KUBE_ANN_RUNTIME]);
	assert_null(a.value[KUBE_ANN_RUNTIME]);
	assert_string_equal(a.value[KUBE_ANN_READY], "false");
	annotations_free(&a);

	/* Incomplete observation: "none" and removals are not written. */
	set_check(p, CHECK_NETWORKS, CHECK_SKIP, "node not read from the API");
	p->n_ifaces = 0;                /* what the check keeps when it skips */
	assert_int_equal(annotations_build(p, false, T0, false, &a), 0);
	assert_false(a.set[KUBE_ANN_PROFILE]);
	assert_false(a.set[KUBE_ANN_RUNTIME]);
	assert_false(a.set[KUBE_ANN_INTERFACES]);
	assert_true(a.set[KUBE_ANN_READY]);
	assert_true(a.set[KUBE_ANN_ATTACHMENT]);
	annotations_free(&a);

	/* Incomplete but tcpxo: known values are still written. */
	p->kind = PROFILE_TCPXO;
	assert_int_equal(annotations_build(p, false, T0, false, &a), 0);
	assert_string_equal(a.value[KUBE_ANN_PROFILE], "tcpxo");
	assert_string_equal(a.value[KUBE_ANN_RUNTIME], "torch-distributed-tcpxo");
	assert_false(a.set[KUBE_ANN_INTERFACES]);
	annotations_free(&a);
	profile_del(p);
}

static void test_diff_idempotent(void **state)
{
	struct kube_annotation cur[KUBE_ANN__COUNT] = { { 0 } };
	struct profile *p = profile_new();
	struct annotations a;
	char *patch = NULL;

	assert_int_equal(annotations_build(p, true, T0, false, &a), 0);
	assert_int_equal(annotations_diff(&a, cur, no_labels, NULL, &patch, NULL), 5);
	assert_non_null(strstr(patch, "{\"metadata\":{\"annotations\":{\"fabric.aicr.run/profile\":\"tcpxo\","
				      "\"fabric.aicr.run/runtime\":\"torch-distributed-tcpxo\",\"fabric.aicr.run/ready\":\"true\","));
	apply(cur, patch, NULL);
	free(patch);
	annotations_free(&a);

	/* Same observation an hour later: nothing to write, the node keeps the old changedAt. */
	assert_int_equal(annotations_build(p, true, T1, false, &a), 0);
	patch = (char *)1;
	assert_int_equal(annotations_diff(&a, cur, no_labels, NULL, &patch, NULL), 0);
	assert_null(patch);
	assert_non_null(strstr(cur[KUBE_ANN_ATTACHMENT].value, T0));
	annotations_free(&a);

	/* The version pair breaks: ready and attachment change, nothing else. */
	set_check(p, CHECK_VERSION_PAIR, CHECK_FAIL, "daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)");
	free(p->daemons[0]);
	p->daemons[0] = strdup("v1.0.20");
	assert_int_equal(annotations_build(p, true, T1, false, &a), 0);
	assert_int_equal(annotations_diff(&a, cur, no_labels, NULL, &patch, NULL), 2);
	assert_non_null(strstr(patch, "\"fabric.aicr.run/ready\":\"false\""));
	assert_non_null(strstr(patch, T1));
	assert_null(strstr(patch, "fabric.aicr.run/profile"));
	apply(cur, patch, NULL);
	free(patch);
	annotations_free(&a);
	assert_int_equal(annotations_build(p, true, "2026-01-20T12:00:00Z", false, &a), 0);
	assert_int_equal(annotations_diff(&a, cur, no_labels, NULL, &patch, NULL), 0);
	annotations_free(&a);

	/* The node loses its profile: runtime and interfaces are removed with null. */
	p->kind = PROFILE_NONE;
	set_check(p, CHECK_NETWORKS, CHECK_SKIP, "no GPU NICs observed");
	p->n_ifaces = 0;
	assert_int_equal(annotations_build(p, true, T1, false, &a), 0);
	assert_int_equal(annotations_diff(&a, cur, no_labels, NULL, &patch, NULL), 3);
	assert_non_null(strstr(patch, "\"fabric.aicr.run/profile\":\"none\""));
	assert_non_null(strstr(patch, "\"fabric.aicr.run/runtime\":null"));
	assert_non_null(strstr(patch, "\"fabric.aicr.run/interfaces\":null"));
	apply(cur, patch, NULL);
	free(patch);
	assert_false(cur[KUBE_ANN_RUNTIME].present);
	/* ...and a second run does not null them again. */
	assert_int_equal(annotations_diff(&a, cur, no_labels, NULL, &patch, NULL), 0);
	annotations_free(&a);
	cur_free(cur);
	profile_del(p);
}

static void test_diff_compares_json_content(void **state)
{
	struct kube_annotation cur[KUBE_ANN__COUNT] = { { 0 } };
	struct profile *p = profile_new();
	struct annotations a;
	char *patch = NULL;

	assert_int_equal(annotations_build(p, true, T0, false, &a), 0);
	for (int i = 0; i < KUBE_ANN__COUNT; i++) {
		cur[i].present = true;
		cur[i].value = strdup(a.value[i]);
	}
	/* Someone pretty-printed the interfaces value: same content, no write. */
	free(cur[KUBE_ANN_INTERFACES].value);
	{
		struct json *v;

		assert_int_equal(json_parse(a.value[KUBE_ANN_INTERFACES], strlen(a.value[KUBE_ANN_INTERFACES]), &v), 0);
		cur[KUBE_ANN_INTERFACES].value = json_print(v, true);
		json_free(v);
	}
	assert_int_equal(annotations_diff(&a, cur, no_labels, NULL, &patch, NULL), 0);

	/* Garbage, or a value too long to have been kept, is rewritten. */
	free(cur[KUBE_ANN_ATTACHMENT].value);
	cur[KUBE_ANN_ATTACHMENT].value = strdup("{not json");
	free(cur[KUBE_ANN_READY].value);
	cur[KUBE_ANN_READY].value = NULL;
	assert_int_equal(annotations_diff(&a, cur, no_labels, NULL, &patch, NULL), 2);
	free(patch);

	/* Other prefix: the keys follow it. */
	assert_int_equal(annotations_diff(&a, cur, no_labels, "example.com/", &patch, NULL), 2);
	assert_non_null(strstr(patch, "\"example.com/ready\":\"true\""));
	free(patch);
	assert_int_equal(annotations_diff(&a, cur, no_labels, "bad", &patch, NULL), -EINVAL);
	annotations_free(&a);
	cur_free(cur);
	profile_del(p);
}

static void test_cleanup_patch(void **state)
{
	char *patch = NULL;

	assert_int_equal(annotations_cleanup_patch(NULL, &patch), 0);
	assert_string_equal(patch, "{\"metadata\":{\"annotations\":{\"fabric.aicr.run/profile\":null,"
				   "\"fabric.aicr.run/runtime\":null,\"fabric.aicr.run/ready\":null,"
				   "\"fabric.aicr.run/interfaces\":null,\"fabric.aicr.run/attachment\":null},"
				   "\"labels\":{\"fabric.aicr.run/profile\":null,\"fabric.aicr.run/ready\":null}}}");
	free(patch);
	assert_int_equal(annotations_cleanup_patch("example.com/", &patch), 0);
	assert_non_null(strstr(patch, "\"example.com/attachment\":null"));
	assert_non_null(strstr(patch, "\"labels\":{\"example.com/profile\":null,\"example.com/ready\":null}"));
	free(patch);
	assert_int_equal(annotations_cleanup_patch("example.com", &patch), -EINVAL);
}

static void test_attachment_bound(void **state)
{
	struct profile *p = profile_new();
	char big[3000], *att = NULL;
	struct json *v;

	/* Every check failing with a long message (multi-byte text included). */
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = "ab\xc3\xa9"[i % 4];
	big[sizeof(big) - 1] = '\0';
	for (int i = 0; i < CHECK__COUNT; i++)
		set_check(p, (enum check_id)i, i % 2 ? CHECK_WARN : CHECK_FAIL, big);
	assert_int_equal(annotations_attachment(p, T0, &att), 0);
	assert_true(strlen(att) < ANNOTATIONS_ATTACHMENT_MAX);
	assert_int_equal(json_parse(att, strlen(att), &v), 0);
	/* Messages were cut on a character boundary with a visible mark. */
	{
		const char *m = json_get_string(json_first(json_get(v, "checks")), "message");

		assert_non_null(m);
		assert_true(strlen(m) <= ANNOTATIONS_MESSAGE_MAX);
		assert_string_equal(m + strlen(m) - 3, "...");
		assert_true(((unsigned char)m[strlen(m) - 4] & 0xc0) != 0xc0);
	}
	/* Failures survive longer than warnings. */
	if (json_get(v, "truncated")) {
		const struct json *last = json_first(json_get(v, "checks"));

		while (json_next(last))
			last = json_next(last);
		assert_string_equal(json_get_string(last, "status"), "fail");
	}
	json_free(v);
	free(att);

	/* Absurdly many daemons: everything but the essentials goes, marked truncated. */
	for (size_t i = 0; i < p->n_daemons; i++)
		free(p->daemons[i]);
	free(p->daemons);
	p->daemons = calloc(400, sizeof(*p->daemons));
	for (int i = 0; i < 400; i++) {
		char tag[32];

		snprintf(tag, sizeof(tag), "v1.0.%d", 1000 + i);
		p->daemons[i] = strdup(tag);
	}
	p->n_daemons = 400;
	assert_int_equal(annotations_attachment(p, T0, &att), 0);
	assert_true(strlen(att) < ANNOTATIONS_ATTACHMENT_MAX);
	assert_int_equal(json_parse(att, strlen(att), &v), 0);
	assert_true(json_get(v, "truncated") != NULL);
	assert_null(json_get(json_get(v, "versions"), "daemons"));
	assert_string_equal(json_get_string(json_get(v, "versions"), "installer"), "v1.0.15");
	json_free(v);
	free(att);

	assert_int_equal(annotations_attachment(p, NULL, &att), -EINVAL);
	memset(big, 'x', 100);
	big[100] = '\0';
	assert_int_equal(annotations_attachment(p, big, &att), -EINVAL);
	profile_del(p);
}

/* Our labels: the same values as profile and ready, in the same merge patch; --no-labels removes ours. */
static void test_labels(void **state)
{
	struct kube_annotation cur[KUBE_ANN__COUNT] = { { 0 } }, lab[KUBE_LABEL__COUNT] = { { 0 } };
	struct profile *p = profile_new();
	struct annotations a;
	unsigned n_labels = 99;
	char *patch = NULL;

	assert_int_equal(annotations_build(p, true, T0, true, &a), 0);
	assert_true(a.label_set[KUBE_LABEL_PROFILE] && a.label_set[KUBE_LABEL_READY]);
	assert_string_equal(a.label[KUBE_LABEL_PROFILE], "tcpxo");
	assert_string_equal(a.label[KUBE_LABEL_READY], "true");
	assert_int_equal(annotations_diff(&a, cur, lab, NULL, &patch, &n_labels), 7);
	assert_int_equal(n_labels, 2);
	assert_non_null(strstr(patch, "},\"labels\":{\"fabric.aicr.run/profile\":\"tcpxo\",\"fabric.aicr.run/ready\":\"true\"}}}"));
	free(patch);
	/* What the node carries after the write: the next diff is empty. */
	annotations_remember(&a, cur, lab);
	assert_string_equal(lab[KUBE_LABEL_READY].value, "true");
	assert_true(lab[KUBE_LABEL_PROFILE].present);
	patch = (char *)1;
	assert_int_equal(annotations_diff(&a, cur, lab, NULL, &patch, &n_labels), 0);
	assert_null(patch);
	assert_int_equal(n_labels, 0);
	annotations_free(&a);

	/* Not ready: the ready label follows, alone; the profile label stays. */
	set_check(p, CHECK_LINKS, CHECK_FAIL, "eth3 is down");
	assert_int_equal(annotations_build(p, true, T1, true, &a), 0);
	assert_int_equal(annotations_diff(&a, cur, lab, "fabric.aicr.run/", &patch, &n_labels), 3);
	assert_int_equal(n_labels, 1);
	assert_non_null(strstr(patch, "\"labels\":{\"fabric.aicr.run/ready\":\"false\"}"));
	free(patch);
	annotations_remember(&a, cur, lab);
	annotations_free(&a);

	/* Incomplete and none: the profile label is not written as none (as the annotation). */
	p->kind = PROFILE_NONE;
	assert_int_equal(annotations_build(p, false, T1, true, &a), 0);
	assert_false(a.label_set[KUBE_LABEL_PROFILE]);
	assert_true(a.label_set[KUBE_LABEL_READY]);
	annotations_free(&a);
	p->kind = PROFILE_TCPXO;

	/* --no-labels: ours are removed, once. */
	assert_int_equal(annotations_build(p, true, T1, false, &a), 0);
	assert_true(a.label_set[KUBE_LABEL_PROFILE] && a.label_set[KUBE_LABEL_READY]);
	assert_null(a.label[KUBE_LABEL_PROFILE]);
	assert_int_equal(annotations_diff(&a, cur, lab, NULL, &patch, &n_labels), 2);
	assert_string_equal(patch, "{\"metadata\":{\"labels\":{\"fabric.aicr.run/profile\":null,\"fabric.aicr.run/ready\":null}}}");
	free(patch);
	annotations_remember(&a, cur, lab);
	assert_false(lab[KUBE_LABEL_READY].present);
	assert_int_equal(annotations_diff(&a, cur, lab, NULL, &patch, &n_labels), 0);
	annotations_free(&a);

	/* A label someone else set to another value is put back. */
	lab[KUBE_LABEL_READY].present = true;
	lab[KUBE_LABEL_READY].value = strdup("maybe");
	assert_int_equal(annotations_build(p, true, T1, true, &a), 0);
	assert_int_equal(annotations_diff(&a, cur, lab, NULL, &patch, &n_labels), 2);
	assert_non_null(strstr(patch, "\"fabric.aicr.run/ready\":\"false\""));
	free(patch);
	annotations_free(&a);
	cur_free(cur);
	for (int i = 0; i < KUBE_LABEL__COUNT; i++)
		free(lab[i].value);
	profile_del(p);
}

/* A transition is a change of profile, runtime or ready from what the node carries; nothing else. */
static void test_transition(void **state)
{
	struct kube_annotation cur[KUBE_ANN__COUNT] = { { 0 } }, lab[KUBE_LABEL__COUNT] = { { 0 } };
	struct profile *p = profile_new();
	struct annotations a;

	assert_int_equal(annotations_build(p, true, T0, true, &a), 0);
	assert_true(annotations_transition(&a, cur));   /* a node that carries nothing yet */
	annotations_remember(&a, cur, lab);
	assert_false(annotations_transition(&a, cur));
	annotations_free(&a);
	/* A new check message or interfaces: not a transition. */
	set_check(p, CHECK_DAEMON_ARGS, CHECK_WARN, "--num_nics was retired");
	assert_int_equal(annotations_build(p, true, T1, true, &a), 0);
	assert_false(annotations_transition(&a, cur));
	annotations_free(&a);
	set_check(p, CHECK_LINKS, CHECK_FAIL, "eth3 is down");
	assert_int_equal(annotations_build(p, true, T1, true, &a), 0);
	assert_true(annotations_transition(&a, cur));
	annotations_remember(&a, cur, lab);
	annotations_free(&a);
	/* Profile none: runtime removed, profile changed. */
	p->kind = PROFILE_NONE;
	assert_int_equal(annotations_build(p, true, T1, true, &a), 0);
	assert_true(annotations_transition(&a, cur));
	annotations_remember(&a, cur, lab);
	assert_false(cur[KUBE_ANN_RUNTIME].present);
	assert_false(annotations_transition(&a, cur));
	annotations_free(&a);
	cur_free(cur);
	for (int i = 0; i < KUBE_LABEL__COUNT; i++)
		free(lab[i].value);
	profile_del(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_ready),
		cmocka_unit_test(test_build_not_ready),
		cmocka_unit_test(test_build_none),
		cmocka_unit_test(test_diff_idempotent),
		cmocka_unit_test(test_diff_compares_json_content),
		cmocka_unit_test(test_cleanup_patch),
		cmocka_unit_test(test_attachment_bound),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_transition),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
