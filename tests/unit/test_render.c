/* test_render.c - the JSON and human reports of an evaluated observation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probes/model/json.h"
#include "report/checks/evaluate.h"
#include "report/render/render.h"
#include "tests/unit/obsbuild.h"

static char *render_mega(bool human, void (*tweak)(struct observation *))
{
	struct observation o;
	struct profile p;
	char *out = NULL;
	size_t len = 0;

	ob_a3mega(&o, true);
	strcpy(o.node, "gke-a3mega-pool-1a2b");
	if (tweak)
		tweak(&o);
	assert_int_equal(profile_evaluate(&o, &p), 0);
	if (human) {
		FILE *f = open_memstream(&out, &len);

		assert_int_equal(render_human(&o, &p, NULL, f), 0);
		fclose(f);
	} else {
		out = render_json(&o, &p, NULL);
	}
	profile_free(&p);
	observation_free(&o);
	return out;
}

static void test_json_shape(void **state)
{
	char *t = render_mega(false, NULL);
	const struct json *g, *n, *c;
	struct json *v;
	double d;
	bool b;

	assert_non_null(t);
	assert_int_equal(t[strlen(t) - 1], '\n');
	assert_int_equal(json_parse(t, strlen(t), &v), 0);
	assert_string_equal(json_get_string(v, "schema"), "fabric.aicr.run/v1");
	assert_string_equal(json_get_string(v, "node"), "gke-a3mega-pool-1a2b");
	assert_string_equal(json_get_string(v, "profile"), "tcpxo");
	assert_string_equal(json_get_string(v, "runtime"), "torch-distributed-tcpxo");
	assert_true(json_bool(json_get(v, "ready"), &b) && b);
	assert_int_equal(json_type(json_get(v, "machineType")), JSON_NULL);  /* unknown without the API */
	assert_int_equal(json_size(json_get(v, "gpus")), 8);
	g = json_first(json_get(v, "gpus"));
	assert_string_equal(json_get_string(g, "pci"), "0000:04:00.0");
	assert_string_equal(json_get_string(g, "device"), "10de:2330");
	assert_string_equal(json_get_string(g, "nic"), "eth1");
	assert_true(json_number(json_get(g, "numa"), &d) && d == 0);
	n = json_first(json_get(v, "nics"));
	assert_string_equal(json_get_string(n, "name"), "eth1");
	assert_string_equal(json_get_string(n, "pci"), "0000:06:00.0");
	assert_string_equal(json_get_string(n, "device"), "1ae0:0042");
	assert_string_equal(json_get_string(n, "state"), "up");
	assert_string_equal(json_get_string(n, "ipv4"), "10.0.16.3/32");
	assert_true(json_number(json_get(n, "mtu"), &d) && d == 8244);
	assert_int_equal(json_type(json_get(n, "network")), JSON_NULL);
	assert_string_equal(json_string(json_first(json_get(n, "gpus"))), "0000:04:00.0");
	assert_int_equal(json_type(json_get(v, "interfaces")), JSON_NULL);
	assert_int_equal(json_size(json_get(v, "checks")), 13);
	/* Without workloads judged (no pod list), the member is null. */
	assert_int_equal(json_type(json_get(v, "workloads")), JSON_NULL);
	c = json_first(json_get(v, "checks"));
	assert_string_equal(json_get_string(c, "id"), "machine-type");
	c = json_next(c);
	assert_string_equal(json_get_string(c, "id"), "gpus");
	assert_string_equal(json_get_string(c, "status"), "pass");
	assert_int_equal(json_type(json_get(c, "remedy")), JSON_NULL);
	json_free(v);
	free(t);
}

static void test_json_deterministic(void **state)
{
	char *a = render_mega(false, NULL), *b = render_mega(false, NULL);

	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void eth3_down(struct observation *o)
{
	((struct obs_link *)observation_link_find(o, "eth3"))->oper = LINK_OPER_DOWN;
}

static void test_human(void **state)
{
	char *t = render_mega(true, NULL);

	assert_true(strncmp(t, "tcpxo: ready (8/8 GPUs paired, 13 checks", 40) == 0);
	assert_non_null(strstr(t, "  0000:04:00.0  0     eth1   0000:06:00.0  up"));
	assert_non_null(strstr(t, "  pairing           pass    8/8 GPUs paired 1:1"));
	free(t);
	t = render_mega(true, eth3_down);
	assert_true(strncmp(t, "tcpxo: not ready: links: eth3 is down", 37) == 0);
	assert_non_null(strstr(t, "  links             FAIL    eth3 is down"));
	assert_non_null(strstr(t, "remedy: bring the interface up"));
	free(t);
}

static void hostile_name(struct observation *o)
{
	strcpy(o->node, "evil\n\x1b[31mnode");
}

static void test_human_sanitises(void **state)
{
	char *t = render_mega(true, hostile_name);

	assert_null(strchr(t, '\x1b'));
	assert_non_null(strstr(t, "node evil??[31mnode"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_json_deterministic),
		cmocka_unit_test(test_human),
		cmocka_unit_test(test_human_sanitises),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
