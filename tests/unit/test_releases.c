/* test_releases.c - the built-in release table and the release file format (the file is read by agent/infile.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/fixture.h"

#include "probes/model/strbuf.h"
#include "report/checks/releases.h"
#include "report/checks/releases_env.h"

#define D15 "sha256:4c9f0de3f39455a2ea35e844e0fc92564ca5629f6b03250fde40e8160719dae4"
#define D21 "sha256:8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d"

static void test_builtin_pairs(void **state)
{
	/* Every row of REFERENCE §4 plus the source-only tags, queried as users write them. */
	static const char *const pairs[][2] = {
		{ "v1.0.15", "v1.0.21" }, { "v1.0.14", "v1.0.20" }, { "v1.0.12", "v1.0.18" },
		{ "v1.0.11", "v1.0.17" }, { "v1.0.9-1", "v1.0.15" }, { "v1.0.9", "v1.0.15" },
		{ "v1.0.8-1", "v1.0.14" }, { "v1.0.7", "v1.0.13_1" }, { "v1.0.6", "v1.0.12" },
		{ "v1.0.5", "v1.0.11" }, { "v1.0.4", "v1.0.10" }, { "v1.0.03", "v1.0.09" },
		{ "v1.0.2", "v1.0.8" }, { "v1.0.1", "v1.0.8" }, { "v1.0.0", "v1.0.6-sctp" },
		{ "v1.0.13", "v1.0.19" }, { "v1.0.16", "v1.0.23" }, { "v1.0.17", "v1.0.23" },
	};
	const struct releases *t = releases_builtin();

	assert_int_equal(t->n, 19);
	assert_string_equal(t->source, "built-in");
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const char *d = releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, pairs[i][0]);

		if (!d || strcmp(d, pairs[i][1]) != 0)
			fail_msg("installer %s: expected daemon %s, got %s", pairs[i][0], pairs[i][1], d ? d : "(none)");
	}
	assert_null(releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, "v1.0.99"));
	assert_null(releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, "latest"));
	assert_null(releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, ""));
	assert_null(releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, NULL));
	/* v1.0.1 is not v1.0.10 or v1.0.15. */
	assert_string_equal(releases_find_installer(t, RELEASES_FABRIC_TCPXO, "v1.0.1")->date, "2024-05-20");
	/* A TCPXO tag is not looked up among TCPX releases, nor the other way round. */
	assert_null(releases_expected_daemon(t, RELEASES_FABRIC_TCPX, "v1.0.15"));
	assert_null(releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, "v3.1.9"));
}

/* Google's GPUDirect-TCPX release notes and Cluster Toolkit's gpu_direct.tf. */
static void test_builtin_tcpx(void **state)
{
	const struct releases *t = releases_builtin();

	assert_string_equal(releases_expected_daemon(t, RELEASES_FABRIC_TCPX, "v3.1.9"), "v2.0.12");
	assert_string_equal(releases_expected_daemon(t, RELEASES_FABRIC_TCPX, "v3.1.12"), "v2.0.15");
	assert_string_equal(releases_find_installer(t, RELEASES_FABRIC_TCPX, "v3.1.9")->date, "2024-02-15");
	assert_null(releases_expected_daemon(t, RELEASES_FABRIC_TCPX, "v3.1.8"));
	assert_string_equal(releases_fabric_name(RELEASES_FABRIC_TCPX), "tcpx");
	assert_string_equal(releases_fabric_name(RELEASES_FABRIC_TCPXO), "tcpxo");
}

/* Each release's NCCL and file set, where Google's notes and the installer's source give them. */
static void test_builtin_file_sets(void **state)
{
	const struct releases *t = releases_builtin();
	const struct releases_row *r15 = releases_find_installer(t, RELEASES_FABRIC_TCPXO, "v1.0.15");
	const struct releases_row *r12 = releases_find_installer(t, RELEASES_FABRIC_TCPXO, "v1.0.12");
	const struct releases_row *r11 = releases_find_installer(t, RELEASES_FABRIC_TCPXO, "v1.0.11");
	const struct releases_row *r8 = releases_find_installer(t, RELEASES_FABRIC_TCPXO, "v1.0.8-1");
	static const char *const open_set[] = { "libnccl.so.2", "libnccl-net_internal.so", "nccl-env-profile.sh",
		"libnccl-tuner.so", "a3plus_tuner_config.textproto", "libnccl-net.so", "a3plus_guest_config.textproto" };

	assert_string_equal(r15->nccl, "2.28.7");
	assert_int_equal(r15->n_files, 7);
	for (size_t i = 0; i < 7; i++)
		assert_string_equal(r15->files[i], open_set[i]);
	assert_string_equal(r12->nccl, "2.26.5");
	assert_non_null(r12->files);
	/* Closed-source installers: the version from the notes, the set not published. */
	assert_string_equal(r11->nccl, "2.23.4");
	assert_null(r11->files);
	assert_string_equal(r8->nccl, "");
	assert_null(releases_find_installer(t, RELEASES_FABRIC_TCPX, "v3.1.9")->files);
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].files)
			assert_true(t->rows[i].n_files > 0);
}

static void test_builtin_digests(void **state)
{
	const struct releases *t = releases_builtin();

	assert_string_equal(releases_tag_by_digest(t, RELEASES_INSTALLER, D15), "v1.0.15");
	assert_string_equal(releases_tag_by_digest(t, RELEASES_DAEMON, D21), "v1.0.21");
	/* A digest names one component only. */
	assert_null(releases_tag_by_digest(t, RELEASES_DAEMON, D15));
	assert_null(releases_tag_by_digest(t, RELEASES_INSTALLER, D21));
	assert_null(releases_tag_by_digest(t, RELEASES_DAEMON, ""));
	assert_null(releases_tag_by_digest(t, RELEASES_DAEMON, NULL));
	releases_free((struct releases *)t);    /* ignored for the built-in table */
}

static const char good[] =
	"{\"schema\":\"fabric.aicr.run/releases/v1\",\"releases\":["
	"{\"date\":\"2026-03-01\",\"installer\":\"v1.0.18\",\"daemon\":\"v1.0.24\","
	"\"installerDigest\":\"" D15 "\",\"daemonDigest\":\"" D21 "\"},"
	"{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\"}]}";

static void test_parse_good(void **state)
{
	struct releases *t = NULL;
	char err[256] = "";

	assert_int_equal(releases_parse(good, strlen(good), &t, err, sizeof(err)), 0);
	assert_int_equal(t->n, 2);
	assert_string_equal(t->rows[0].date, "2026-03-01");
	assert_string_equal(releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, "v1.0.18"), "v1.0.24");
	assert_string_equal(releases_tag_by_digest(t, RELEASES_DAEMON, D21), "v1.0.24");
	assert_null(releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, "v1.0.14"));   /* the file replaces the built-in table */
	/* Files of the first format still load: no fabric means TCPXO, no nccl/files means unknown. */
	assert_int_equal(t->rows[1].fabric, RELEASES_FABRIC_TCPXO);
	assert_string_equal(t->rows[1].nccl, "");
	assert_null(t->rows[1].files);
	releases_free(t);
	releases_free(NULL);
}

/* The members added for TCPX and file sets: fabric, nccl, files. */
static void test_parse_fabric_and_files(void **state)
{
	static const char text[] =
		"{\"schema\":\"fabric.aicr.run/releases/v1\",\"releases\":["
		"{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"nccl\":\"2.28.7\","
		"\"files\":[\"libnccl-net.so\",\"a3plus_*_config.textproto\",\"nccl-env-profile.sh\"]},"
		"{\"fabric\":\"tcpx\",\"installer\":\"v1.0.15\",\"daemon\":\"v2.0.12\"},"
		"{\"fabric\":\"tcpxo\",\"installer\":\"v1.0.16\",\"daemon\":\"v1.0.23\"}]}";
	struct releases *t = NULL;
	char err[256] = "";

	assert_int_equal(releases_parse(text, strlen(text), &t, err, sizeof(err)), 0);
	assert_int_equal(t->n, 3);
	/* One installer tag may be listed once per fabric. */
	assert_string_equal(releases_expected_daemon(t, RELEASES_FABRIC_TCPXO, "v1.0.15"), "v1.0.21");
	assert_string_equal(releases_expected_daemon(t, RELEASES_FABRIC_TCPX, "v1.0.15"), "v2.0.12");
	assert_string_equal(t->rows[0].nccl, "2.28.7");
	assert_int_equal(t->rows[0].n_files, 3);
	assert_string_equal(t->rows[0].files[1], "a3plus_*_config.textproto");
	assert_null(t->rows[1].files);
	releases_free(t);
}

static void expect_bad(const char *text, const char *needle)
{
	struct releases *t = NULL;
	char err[256] = "";
	int r = releases_parse(text, strlen(text), &t, err, sizeof(err));

	if (r != -EINVAL)
		fail_msg("accepted (%d): %s", r, text);
	assert_null(t);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
}

#define S "{\"schema\":\"fabric.aicr.run/releases/v1\",\"releases\":"

static void test_parse_bad(void **state)
{
	expect_bad("", "not valid JSON");
	expect_bad("{\"schema\":", "not valid JSON");
	expect_bad("[]", "expected a JSON object");
	expect_bad("{\"schema\":\"fabric.aicr.run/releases/v2\",\"releases\":[]}", "schema");
	expect_bad("{\"releases\":[]}", "schema");
	expect_bad(S "[]}", "0 rows");
	expect_bad(S "{}}", "releases: expected an array");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\"}],\"extra\":1}", "unknown member \"extra\"");
	expect_bad(S "[1]}", "releases[0]: expected an object, got number");
	expect_bad(S "[{\"installer\":\"v1.0.15\"}]}", "required");
	expect_bad(S "[{\"installer\":15,\"daemon\":\"v1.0.21\"}]}", "releases[0].installer: expected a string");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"installerDigests\":\"x\"}]}",
		   "unknown member \"installerDigests\"");
	expect_bad(S "[{\"installer\":\"latest\",\"daemon\":\"v1.0.21\"}]}", "not release tags");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"date\":\"Jan 9\"}]}", "YYYY-MM-DD");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"daemonDigest\":\"sha256:abc\"}]}",
		   "digests must be");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\"},{\"installer\":\"v1.0.015\",\"daemon\":\"v1.0.20\"}]}",
		   "already listed");
	expect_bad(S "[{\"installer\":\"v1.0.15555555555555555555555555555555\",\"daemon\":\"v1\"}]}", "longer than");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"fabric\":\"rdma\"}]}",
		   "releases[0].fabric: expected \"tcpxo\" or \"tcpx\", got \"rdma\"");
	expect_bad(S "[{\"fabric\":\"tcpx\",\"installer\":\"v3.1.9\",\"daemon\":\"v2.0.12\"},"
		   "{\"fabric\":\"tcpx\",\"installer\":\"v3.1.09\",\"daemon\":\"v2.0.11\"}]}",
		   "releases[1]: tcpx installer v3.1.09 is already listed in releases[0]");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"nccl\":\"2.28.x\"}]}",
		   "releases[0].nccl: expected an NCCL version like 2.28.7");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"nccl\":\"2\"}]}", "nccl");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"files\":\"libnccl-net.so\"}]}",
		   "releases[0].files: expected an array, got string");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"files\":[]}]}", "0 entries");
	/* Names the host probe would never keep, paths, odd bytes: refused, naming the entry. */
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"files\":[\"libnccl-net.so\",\"libfoo.so\"]}]}",
		   "releases[0].files[1]: expected a file name in lib64");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"files\":[\"../libnccl.so\"]}]}",
		   "releases[0].files[0]");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"files\":[\"libnccl\\n.so\"]}]}",
		   "releases[0].files[0]");
	expect_bad(S "[{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"files\":[7]}]}", "releases[0].files[0]");
}

static void test_parse_row_limit(void **state)
{
	size_t cap = 64 + (RELEASES_ROWS_MAX + 1) * 64;
	char *text = malloc(cap);
	size_t o;

	assert_non_null(text);
	o = (size_t)snprintf(text, cap, "%s[", S);
	for (int i = 0; i <= RELEASES_ROWS_MAX; i++)
		o += (size_t)snprintf(text + o, cap - o, "%s{\"installer\":\"v2.%d\",\"daemon\":\"v3.%d\"}",
				      i ? "," : "", i, i);
	snprintf(text + o, cap - o, "]}");
	expect_bad(text, "257 rows");
	free(text);
}

/* Parse errors say what is wrong (the caller, agent/publish.c, names the file). */
static void test_parse_errors_named(void **state)
{
	struct releases *t = NULL;
	char err[512];

	assert_int_equal(releases_parse("{", 1, &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not valid JSON"));
	assert_null(t);
}

/* The value of @name in a set, or NULL. */
static const char *env_value(const struct releases_env *e, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].name, name) == 0)
			return e[i].value;
	return NULL;
}

/* Each release's NCCL set is its own release notes' (releases_env.c names them). */
static void test_env_sets(void **state)
{
	const struct releases_env *e, *latest;
	size_t n = 99, n_latest;

	/* v1.0.14 and v1.0.15: the same list, NCCL_NVLS_ENABLE=1 included (optional for workloads). */
	e = releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.15", &n);
	assert_int_equal(n, 25);
	assert_string_equal(env_value(e, n, "NCCL_NVLS_ENABLE"), "1");
	assert_string_equal(env_value(e, n, "NCCL_TUNER_CONFIG_PATH"), "a3plus_tuner_config.textproto");
	assert_null(env_value(e, n, "NCCL_ALGO"));
	assert_ptr_equal(releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.14", &n), e);
	latest = releases_env_latest(&n_latest);
	assert_ptr_equal(latest, e);
	/* v1.0.12: NVLSTree by default, NCCL_DYNAMIC_CHUNK_SIZE still there, no CUDA_VISIBLE_DEVICES. */
	e = releases_env_of(releases_builtin(), RELEASES_FABRIC_TCPXO, "v1.0.12", &n);
	assert_non_null(e);
	assert_string_equal(env_value(e, n, "NCCL_DYNAMIC_CHUNK_SIZE"), "524288");
	assert_null(env_value(e, n, "CUDA_VISIBLE_DEVICES"));
	assert_null(env_value(e, n, "NCCL_NVLS_ENABLE"));
	/*
	 * v1.0.11 and v1.0.9-1 (written v1.0.9): NCCL_ALGO=Ring,Tree and NCCL_NVLS_ENABLE=0, still
	 * NCCL_DYNAMIC_CHUNK_SIZE, none of v1.0.12's NVLSTree; the same set, not v1.0.12's.
	 */
	for (int k = 0; k < 2; k++) {
		const char *tag = k ? "v1.0.11" : "v1.0.9";

		e = releases_env_of(NULL, RELEASES_FABRIC_TCPXO, tag, &n);
		assert_non_null(e);
		assert_int_equal(n, 24);
		assert_string_equal(env_value(e, n, "NCCL_ALGO"), "Ring,Tree");
		assert_string_equal(env_value(e, n, "NCCL_NVLS_ENABLE"), "0");
		assert_string_equal(env_value(e, n, "NCCL_PROTO"), "Simple,LL128");
		assert_string_equal(env_value(e, n, "NCCL_DYNAMIC_CHUNK_SIZE"), "524288");
		assert_null(env_value(e, n, "NCCL_NVLSTREE_MAX_CHUNKSIZE"));
		assert_null(env_value(e, n, "CUDA_VISIBLE_DEVICES"));
	}
	assert_ptr_equal(releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.11", &n),
			 releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.9-1", &n));
	assert_ptr_not_equal(releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.11", &n),
			     releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.12", &n));
	/* Before LL128 (v1.0.8-1 and older): Simple; v1.0.2 has no tuner config, v1.0.0 no tuner. */
	e = releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.8-1", &n);
	assert_string_equal(env_value(e, n, "NCCL_PROTO"), "Simple");
	e = releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.2", &n);
	assert_null(env_value(e, n, "NCCL_TUNER_CONFIG_PATH"));
	assert_non_null(env_value(e, n, "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE"));
	e = releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.0", &n);
	assert_string_equal(env_value(e, n, "NCCL_ALGO"), "Ring");
	assert_null(env_value(e, n, "NCCL_TUNER_PLUGIN"));
	/* TCPX: the NCCL_GPUDIRECTTCPX_* family; v3.1.9 and v3.1.12 differ in NCCL_ALGO. */
	e = releases_env_of(NULL, RELEASES_FABRIC_TCPX, "v3.1.9", &n);
	assert_string_equal(env_value(e, n, "NCCL_ALGO"), "Ring");
	assert_string_equal(env_value(e, n, "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME"), "eth1,eth2,eth3,eth4");
	e = releases_env_of(NULL, RELEASES_FABRIC_TCPX, "v3.1.12", &n);
	assert_string_equal(env_value(e, n, "NCCL_ALGO"), "Ring,Tree");
	/* No notes for the source-only tags; nothing for unknown or other-fabric tags. */
	n = 7;
	assert_null(releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.16", &n));
	assert_int_equal(n, 0);
	assert_null(releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v1.0.13", &n));
	assert_null(releases_env_of(NULL, RELEASES_FABRIC_TCPXO, "v9.9.9", &n));
	assert_null(releases_env_of(NULL, RELEASES_FABRIC_TCPXO, NULL, &n));
	assert_null(releases_env_of(NULL, RELEASES_FABRIC_TCPX, "v1.0.15", &n));
}

static const char *env_kind(enum releases_env_kind k)
{
	switch (k) {
	case RELEASES_ENV_REQUIRED: return "required";
	case RELEASES_ENV_OPTIONAL: return "optional";
	case RELEASES_ENV_LIB_FILE: return "lib-file";
	}
	return "?";
}

static void env_print(struct strbuf *sb, const char *head, const struct releases_env *e, size_t n)
{
	strbuf_appendf(sb, "%s: %zu\n", head, n);
	for (size_t i = 0; i < n; i++)
		strbuf_appendf(sb, "  %s=%s %s\n", e[i].name, e[i].value, env_kind(e[i].kind));
}

/*
 * Every built-in release's set, resolved from the table of changes, is the whole set the table
 * stated before it became changes: fixtures/releases_env/sets.txt was printed by the old table
 * (one release after another, in the built-in table's order, then releases_env_latest()).
 */
static void test_env_sets_whole(void **state)
{
	const struct releases *t = releases_builtin();
	const char *top = getenv("TOPDIR");
	struct strbuf got = { 0 }, want = { 0 };
	const struct releases_env *e;
	char path[4096], buf[4096];
	size_t n, len;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/fixtures/releases_env/sets.txt", top && *top ? top : ".");
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s (run from the top of the tree, or set TOPDIR)", path, strerror(errno));
	while ((len = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_appendf(&want, "%.*s", (int)len, buf);
	fclose(f);
	for (size_t i = 0; i < t->n; i++) {
		char head[64];

		e = releases_env_of(NULL, t->rows[i].fabric, t->rows[i].installer, &n);
		snprintf(head, sizeof(head), "%s %s", releases_fabric_name(t->rows[i].fabric), t->rows[i].installer);
		env_print(&got, head, e, n);
	}
	e = releases_env_latest(&n);
	env_print(&got, "latest", e, n);
	assert_false(got.oom || want.oom);
	assert_non_null(want.s);
	assert_string_equal(got.s, want.s);
	strbuf_free(&got);
	strbuf_free(&want);
}

/* A --releases file's rows take the notes' set of the same release; releases it lacks have none. */
static void test_env_of_file_table(void **state)
{
	static const char text[] = "{\"schema\":\"fabric.aicr.run/releases/v1\",\"releases\":["
		"{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\"},{\"installer\":\"v1.0.18\",\"daemon\":\"v1.0.24\"}]}";
	struct releases *t = NULL;
	size_t n = 0;

	assert_int_equal(releases_parse(text, strlen(text), &t, NULL, 0), 0);
	assert_non_null(releases_env_of(t, RELEASES_FABRIC_TCPXO, "v1.0.15", &n));
	assert_int_equal(n, 25);
	assert_null(releases_env_of(t, RELEASES_FABRIC_TCPXO, "v1.0.12", &n));
	assert_null(releases_env_of(t, RELEASES_FABRIC_TCPXO, "v1.0.18", &n));
	releases_free(t);
}

/* Every built-in row says where it is from; only the TCPX v3.1.12 row, absent from the history, is unverified. */
static void test_builtin_sources(void **state)
{
	const struct releases *t = releases_builtin();
	const struct releases_row *r;

	(void)state;
	for (size_t i = 0; i < t->n; i++) {
		assert_non_null(t->rows[i].source);
		assert_non_null(strstr(t->rows[i].source, " @"));
		assert_int_equal(t->rows[i].unverified, t->rows[i].fabric == RELEASES_FABRIC_TCPX &&
				 strcmp(t->rows[i].installer, "v3.1.12") == 0);
	}
	r = releases_find_installer(t, RELEASES_FABRIC_TCPXO, "v1.0.15");
	assert_string_equal(r->source, "GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpxo/README.md "
			    "@685dca2541b5");
	r = releases_find_installer(t, RELEASES_FABRIC_TCPXO, "v1.0.17");
	assert_non_null(strstr(r->source, "buffer_manager_version.h @04815d1"));
	r = releases_find_installer(t, RELEASES_FABRIC_TCPX, "v3.1.12");
	assert_true(r->unverified);
	assert_non_null(strstr(r->source, "not in the repository's history"));
}

/*
 * The table the DaemonSet's ConfigMap component ships (manifests/daemonset/components/releases) is the
 * built-in one, row for row: enabling the component changes nothing until someone edits it.
 */
static void test_component_table_is_builtin(void **state)
{
	const struct releases *b = releases_builtin();
	struct releases *t = NULL;
	char err[256], *text;
	size_t len;

	(void)state;
	text = fixture_read("../manifests/daemonset/components/releases/releases.json", &len);
	if (releases_parse(text, len, &t, err, sizeof(err)) < 0)
		fail_msg("components/releases/releases.json: %s", err);
	assert_int_equal(t->n, b->n);
	for (size_t i = 0; i < b->n; i++) {
		const struct releases_row *x = &b->rows[i], *y = &t->rows[i];

		if (x->fabric != y->fabric || strcmp(x->date, y->date) || strcmp(x->installer, y->installer) ||
		    strcmp(x->daemon, y->daemon) || strcmp(x->installer_digest, y->installer_digest) ||
		    strcmp(x->daemon_digest, y->daemon_digest) || strcmp(x->nccl, y->nccl) || x->n_files != y->n_files)
			fail_msg("row %zu: the component's %s/%s differs from the built-in %s/%s", i, y->installer,
				 y->daemon, x->installer, x->daemon);
		for (size_t k = 0; k < x->n_files; k++)
			assert_string_equal(x->files[k], y->files[k]);
	}
	releases_free(t);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_pairs),
		cmocka_unit_test(test_builtin_digests),
		cmocka_unit_test(test_builtin_tcpx),
		cmocka_unit_test(test_builtin_file_sets),
		cmocka_unit_test(test_parse_fabric_and_files),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_row_limit),
		cmocka_unit_test(test_parse_errors_named),
		cmocka_unit_test(test_env_sets),
		cmocka_unit_test(test_env_sets_whole),
		cmocka_unit_test(test_env_of_file_table),
		cmocka_unit_test(test_builtin_sources),
		cmocka_unit_test(test_component_table_is_builtin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
