/* test_imageref.c - image reference parsing and release tag normalisation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/imageref.h"
#include "probes/model/obs_pod.h"

#define D21 "sha256:8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d"
#define REG "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo"

static void test_parse_tag(void **state)
{
	struct imageref r;

	assert_int_equal(imageref_parse(REG "/tcpgpudmarxd-dev:v1.0.21", &r), 0);
	assert_string_equal(r.registry, "us-docker.pkg.dev");
	assert_string_equal(r.path, "gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev");
	assert_string_equal(r.tag, "v1.0.21");
	assert_string_equal(r.digest, "");
	assert_string_equal(imageref_basename(&r), "tcpgpudmarxd-dev");
}

static void test_parse_tag_and_digest(void **state)
{
	struct imageref r;

	assert_int_equal(imageref_parse(REG "/tcpgpudmarxd-dev:v1.0.21@" D21, &r), 0);
	assert_string_equal(r.tag, "v1.0.21");
	assert_string_equal(r.digest, D21);
}

static void test_parse_digest_only(void **state)
{
	struct imageref r;

	assert_int_equal(imageref_parse(REG "/tcpgpudmarxd-dev@" D21, &r), 0);
	assert_string_equal(r.tag, "");
	assert_string_equal(r.digest, D21);
	assert_string_equal(imageref_basename(&r), "tcpgpudmarxd-dev");
}

static void test_parse_registry_port(void **state)
{
	struct imageref r;

	assert_int_equal(imageref_parse("registry.local:5000/team/tcpgpudmarxd-dev:v1.0.21", &r), 0);
	assert_string_equal(r.registry, "registry.local:5000");
	assert_string_equal(r.path, "team/tcpgpudmarxd-dev");
	assert_string_equal(r.tag, "v1.0.21");

	/* A port without a tag: the ':' belongs to the registry. */
	assert_int_equal(imageref_parse("localhost:5000/tcpgpudmarxd-dev", &r), 0);
	assert_string_equal(r.registry, "localhost:5000");
	assert_string_equal(r.tag, "");

	assert_int_equal(imageref_parse("localhost/repo", &r), 0);
	assert_string_equal(r.registry, "localhost");
	/* No registry: Docker Hub style. */
	assert_int_equal(imageref_parse("library/busybox:1.36", &r), 0);
	assert_string_equal(r.registry, "");
	assert_string_equal(r.path, "library/busybox");
	assert_int_equal(imageref_parse("busybox", &r), 0);
	assert_string_equal(r.path, "busybox");
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"", ":v1", "repo:", "repo@", "repo@sha256:abc", "Repo:v1", "repo:-v1", "repo::v1",
		"repo@sha512:" "8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d",
		"repo@" D21 "@" D21, "repo@SHA256:8D9E10FD589A34AB8A0AA64F7E70AD075C8F1C69BEA176350F8D211367697E3D",
		"host:abc/repo", "host:123456/repo", "/repo", "repo/", "a//b", "a/-b", "a/b_", "re po:v1",
		"repo:v1 ", "repo:v1\n", "host..x/repo", "-host.x/repo",
	};
	struct imageref r;
	char longref[700];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = imageref_parse(bad[i], &r);

		if (rc != -EINVAL)
			fail_msg("'%s' parsed (%d)", bad[i], rc);
	}
	assert_int_equal(imageref_parse(NULL, &r), -EINVAL);
	memset(longref, 'a', sizeof(longref) - 1);
	longref[sizeof(longref) - 1] = '\0';
	assert_int_equal(imageref_parse(longref, &r), -EINVAL);
	/* A 129-character tag is one too many. */
	strcpy(longref, "repo:");
	memset(longref + 5, 't', 129);
	longref[5 + 129] = '\0';
	assert_int_equal(imageref_parse(longref, &r), -EINVAL);
	longref[5 + 128] = '\0';
	assert_int_equal(imageref_parse(longref, &r), 0);
}

static void test_digest_of(void **state)
{
	char buf[IMAGEREF_DIGEST_MAX];

	assert_int_equal(imageref_digest_of(REG "/tcpgpudmarxd-dev@" D21, buf, sizeof(buf)), 0);
	assert_string_equal(buf, D21);
	assert_int_equal(imageref_digest_of("docker-pullable://" REG "/x@" D21, buf, sizeof(buf)), 0);
	assert_string_equal(buf, D21);
	/* A bare config digest is not a repository digest. */
	assert_int_equal(imageref_digest_of(D21, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(imageref_digest_of("", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(imageref_digest_of(NULL, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(imageref_digest_of("x@sha256:12", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(imageref_digest_of("x@" D21, buf, 10), -ENOSPC);
}

static void test_normalize(void **state)
{
	static const char *const cases[][2] = {
		{ "v1.0.09", "v1.0.9" }, { "v1.0.9", "v1.0.9" }, { "v1.0.9-1", "v1.0.9" },
		{ "v1.0.13_1", "v1.0.13" }, { "v1.0.6-sctp", "v1.0.6" }, { "1.0.4", "v1.0.4" },
		{ "v1.0.21", "v1.0.21" }, { "V2", "v2" }, { "v1.2.3.4", "v1.2.3.4" },
	};
	static const char *const bad[] = {
		"latest", "v1.0.x", "v1.0.9-rc1", "v", "", "v1..2", "v1.0.9-", "v1.0.9_", "v1.2.3.4.5",
		"v1234567890.0", "v1.0.9-1-1", "v1.0.9-sctp-1",
	};
	char buf[IMAGEREF_VERSION_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(imageref_version_normalize(cases[i][0], buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i][1]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (imageref_version_normalize(bad[i], buf, sizeof(buf)) != -EINVAL)
			fail_msg("'%s' normalised to '%s'", bad[i], buf);
	assert_int_equal(imageref_version_normalize("v1.0.21", buf, 4), -ENOSPC);
}

static void test_equal_and_cmp(void **state)
{
	assert_true(imageref_version_equal("v1.0.09", "v1.0.9"));
	assert_true(imageref_version_equal("v1.0.13_1", "v1.0.13"));
	assert_true(imageref_version_equal("v1.0.9-1", "v1.0.9"));
	assert_false(imageref_version_equal("v1.0.20", "v1.0.21"));
	assert_false(imageref_version_equal("v1.0.2", "v1.0.20"));
	assert_true(imageref_version_equal("latest", "latest"));
	assert_false(imageref_version_equal("latest", "v1.0.1"));
	assert_false(imageref_version_equal(NULL, "v1"));

	assert_true(imageref_version_cmp("v1.0.9", "v1.0.10") < 0);
	assert_true(imageref_version_cmp("v1.0.21", "v1.0.20") > 0);
	assert_true(imageref_version_cmp("v1.0.21", "latest") < 0);
	assert_true(imageref_version_cmp("v1.0", "v1.0.0") < 0);
	assert_int_equal(imageref_version_cmp("v1.0.21", "v1.0.21"), 0);
}

static void expect_kind(const char *ref, enum imageref_component c, enum imageref_fabric f)
{
	struct imageref r;

	assert_int_equal(imageref_parse(ref, &r), 0);
	if (imageref_component(&r) != c || imageref_fabric(&r) != f)
		fail_msg("%s: component %d fabric %d, expected %d %d", ref, imageref_component(&r),
			 imageref_fabric(&r), c, f);
}

/* TCPX and TCPXO images share basenames: the folder tells them apart. */
static void test_component_and_fabric(void **state)
{
	expect_kind("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21",
		    IMAGEREF_DAEMON, IMAGEREF_FABRIC_TCPXO);
	expect_kind("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12",
		    IMAGEREF_DAEMON, IMAGEREF_FABRIC_TCPX);
	expect_kind("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15",
		    IMAGEREF_INSTALLER, IMAGEREF_FABRIC_TCPXO);
	expect_kind("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9",
		    IMAGEREF_INSTALLER, IMAGEREF_FABRIC_TCPX);
	/* A mirror that flattened or renamed the folder: ours, fabric unknown. */
	expect_kind("registry.local:5000/tcpgpudmarxd-dev:v1.0.21", IMAGEREF_DAEMON, IMAGEREF_FABRIC_UNKNOWN);
	expect_kind("registry.local/mirror/tcpgpudmarxd-dev:v1.0.21", IMAGEREF_DAEMON, IMAGEREF_FABRIC_UNKNOWN);
	expect_kind("r.io/x-gpudirect-tcpxo/tcpgpudmarxd-dev:v1", IMAGEREF_DAEMON, IMAGEREF_FABRIC_UNKNOWN);
	expect_kind("gpudirect-tcpxo/tcpgpudmarxd-dev", IMAGEREF_DAEMON, IMAGEREF_FABRIC_TCPXO);
	expect_kind("nvcr.io/nvidia/pytorch:24.07-py3", IMAGEREF_OTHER, IMAGEREF_FABRIC_UNKNOWN);
	expect_kind("tcpgpudmarxd-dev-extra", IMAGEREF_OTHER, IMAGEREF_FABRIC_UNKNOWN);
}

/* The daemon by its image and folder; a GPU container: GPUs, not the daemon, not a plain init container. */
static void test_daemon_and_gpu_container(void **state)
{
	char img[] = REG "/tcpgpudmarxd-dev:v1.0.21", other[] = "nvcr.io/nvidia/pytorch:24.01-py3";
	struct pod_container c = { .image = img, .gpu_limit = 8, .gpu_request = POD_GPUS_ABSENT };
	enum imageref_fabric fab = IMAGEREF_FABRIC_UNKNOWN;

	assert_true(imageref_is_daemon(img, &fab));
	assert_int_equal(fab, IMAGEREF_FABRIC_TCPXO);
	assert_true(imageref_is_daemon("mirror.example.com/tcpgpudmarxd-dev:v1.0.21", &fab));
	assert_int_equal(fab, IMAGEREF_FABRIC_UNKNOWN);
	assert_false(imageref_is_daemon(other, NULL));
	assert_false(imageref_is_daemon(NULL, NULL));
	assert_false(imageref_is_daemon("not a reference", NULL));
	/* A daemon that asks for GPUs is still the daemon: NCCL does not run in it. */
	assert_false(imageref_gpu_container(&c));
	c.image = other;
	assert_true(imageref_gpu_container(&c));
	c.init = true;
	assert_false(imageref_gpu_container(&c));
	c.sidecar = true;
	assert_true(imageref_gpu_container(&c));
	c.gpu_limit = POD_GPUS_ABSENT;
	assert_false(imageref_gpu_container(&c));
	c.gpu_request = 0;
	assert_false(imageref_gpu_container(&c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_tag),
		cmocka_unit_test(test_parse_tag_and_digest),
		cmocka_unit_test(test_parse_digest_only),
		cmocka_unit_test(test_parse_registry_port),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_digest_of),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_equal_and_cmp),
		cmocka_unit_test(test_component_and_fabric),
		cmocka_unit_test(test_daemon_and_gpu_container),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
