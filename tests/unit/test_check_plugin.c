/* test_check_plugin.c - plugin-files: the installer's completion from the API, and each release's whole file set. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/fixture.h"
#include "probes/kube/kubeparse_pods.h"
#include "report/checks/checks.h"
#include "report/checks/releases.h"

#define LIB64_MAX 32

struct fx {
	struct obs_host_file files[LIB64_MAX];
	char names[LIB64_MAX][64];
	struct obs_kube k;               /* the API facts f->o lends */
	struct observation o;
	struct profile p;
	struct finding c;
};

/* What installer v1.0.15 leaves in lib64 (tcpxo_scripts/container_entry.sh), beside the driver's files. */
static const char *const v15[] = {
	"a3plus_guest_config.textproto", "a3plus_tuner_config.textproto", "libcuda.so", "libcuda.so.1",
	"libnccl-net.so", "libnccl-net_internal.so", "libnccl-tuner.so", "libnccl.so", "libnccl.so.2",
	"libnccl.so.2.28.7", "libnvidia-ml.so.1", "nccl-env-profile.sh",
};

static void fx_file(struct fx *f, const char *name, enum obs_file_type t)
{
	size_t n = f->o.host.nvpath.n_lib64;

	assert_true(n < LIB64_MAX);
	snprintf(f->names[n], sizeof(f->names[n]), "%s", name);
	f->files[n].name = f->names[n];
	f->files[n].type = t;
	f->o.host.nvpath.n_lib64 = n + 1;
}

/* The file @name in lib64, or NULL. */
static struct obs_host_file *fx_find(struct fx *f, const char *name)
{
	for (size_t i = 0; i < f->o.host.nvpath.n_lib64; i++)
		if (strcmp(f->files[i].name, name) == 0)
			return &f->files[i];
	return NULL;
}

static void fx_drop(struct fx *f, const char *name)
{
	struct obs_host_file *x = fx_find(f, name);

	assert_non_null(x);
	x->name[0] = '\0';      /* a name nothing matches */
	x->type = OBS_FILE_ABSENT;
}

static struct fx *fx_new(enum profile_kind kind, const char *const *names, size_t n)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->o.kube = &f->k;
	f->p.kind = kind;
	f->o.host.nvpath.status.state = PROBE_OK;
	f->o.host.nvpath.dir = OBS_FILE_DIR;
	f->o.host.nvpath.smi = OBS_FILE_REGULAR;
	f->o.host.nvpath.lib64_dir = OBS_FILE_DIR;
	f->o.host.nvpath.lib64 = f->files;
	for (size_t i = 0; i < n; i++)
		fx_file(f, names[i], OBS_FILE_REGULAR);
	return f;
}

static void fx_pods(struct fx *f, const char *name)
{
	char rel[256], err[512];
	size_t len;
	char *body;

	snprintf(rel, sizeof(rel), "kube/%s", name);
	body = fixture_read(rel, &len);
	if (kubeparse_pods(body, len, &f->k, err, sizeof(err)) < 0)
		fail_msg("%s: %s", name, err);
	f->k.configured = true;
	f->k.pods_fetch.state = KUBE_FETCH_OK;
	free(body);
}

static void fx_free(struct fx *f)
{
	obs_kube_free(&f->k);
	free(f->c.message);
	free(f->c.remedy);
	free(f);
}

#define expect(f, st, text) do { \
		assert_int_equal(evaluate_check(CHECK_PLUGIN_FILES, &(f)->o, &(f)->p, &(f)->c), 0); \
		if ((f)->c.status != (st) || !strstr((f)->c.message, (text))) \
			fail_msg("status %d message '%s', expected %d with '%s'", (f)->c.status, (f)->c.message, \
				 (st), (text)); \
	} while (0)

/* Without the API: the whole set of some known release (v1.0.12 on: the open-source installer's). */
static void test_files_only(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO, v15, sizeof(v15) / sizeof(v15[0]));

	expect(f, CHECK_PASS, "TCPXO plugin installed (8 files: the whole set of installers v1.0.14 to v1.0.17), "
	       "NCCL 2.28.7");
	assert_null(f->c.remedy);
	/* Any file of the set missing fails: nothing marks completion but the whole set. */
	fx_drop(f, "a3plus_guest_config.textproto");
	expect(f, CHECK_FAIL, "TCPXO plugin install incomplete: lib64/a3plus_guest_config.textproto is missing (the "
	       "closest known set: that of installers v1.0.14 to v1.0.17)");
	assert_non_null(strstr(f->c.remedy, "nccl-tcpxo-installer"));
	fx_free(f);

	/* nccl-env-profile.sh is not the last file written: everything else there does not pass. */
	f = fx_new(PROFILE_TCPXO, v15, sizeof(v15) / sizeof(v15[0]));
	fx_drop(f, "libnccl-net.so");
	fx_drop(f, "libnccl.so.2.28.7");
	fx_find(f, "libnccl.so.2")->type = OBS_FILE_BROKEN;
	expect(f, CHECK_FAIL, "lib64/libnccl.so.2 is a dangling or looping link");
	assert_non_null(strstr(f->c.message, "lib64/libnccl-net.so is missing"));
	fx_free(f);

	/* Older NCCL versions linger (the installer deletes nothing): said, not failed. */
	f = fx_new(PROFILE_TCPXO, v15, sizeof(v15) / sizeof(v15[0]));
	fx_file(f, "libnccl.so.2.26.5", OBS_FILE_REGULAR);
	expect(f, CHECK_PASS, "NCCL 2.26.5, 2.28.7 (older versions linger: the installer deletes nothing)");
	fx_free(f);

	/* Only the driver's files: not installed at all. */
	f = fx_new(PROFILE_TCPXO, v15 + 2, 2);
	expect(f, CHECK_FAIL, "TCPXO plugin not installed: none of its files in /home/kubernetes/bin/nvidia/lib64");
	f->o.host.nvpath.lib64_dir = OBS_FILE_ABSENT;
	expect(f, CHECK_FAIL, "TCPXO plugin not installed: /home/kubernetes/bin/nvidia/lib64 is missing");
	f->o.host.nvpath.dir = OBS_FILE_ABSENT;
	expect(f, CHECK_FAIL, "/home/kubernetes/bin/nvidia is missing");
	f->o.host.nvpath.status.state = PROBE_NOT_RUN;
	expect(f, CHECK_SKIP, "not observed");
	f->p.kind = PROFILE_NONE;
	expect(f, CHECK_SKIP, "no TCPX/TCPXO hardware");
	fx_free(f);
}

/* An upgrade from v1.0.12 caught mid `cp -r`: every name there, the new NCCL not yet, the old one lingering. */
static void test_half_copied_upgrade(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO, v15, sizeof(v15) / sizeof(v15[0]));

	fx_drop(f, "libnccl.so.2.28.7");
	fx_find(f, "libnccl.so.2")->type = OBS_FILE_BROKEN;
	fx_file(f, "libnccl.so.2.26.5", OBS_FILE_REGULAR);
	expect(f, CHECK_FAIL, "TCPXO plugin install incomplete: lib64/libnccl.so.2 is a dangling or looping link (the "
	       "closest known set: that of installer v1.0.12)");

	/* The same, judged against the installer the API names: its own NCCL is missing. */
	fx_pods(f, "pods-healthy.json");
	expect(f, CHECK_FAIL, "TCPXO plugin install incomplete: lib64/libnccl.so.2.28.7 is missing; lib64/libnccl.so.2 "
	       "is a dangling or looping link");
	fx_free(f);
}

/* With the API: the installer DaemonSet's init container, terminated with exit code 0, is completion. */
static void test_installer_state(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO, v15, sizeof(v15) / sizeof(v15[0]));

	fx_pods(f, "pods-healthy.json");
	expect(f, CHECK_PASS, "TCPXO plugin installed (nccl-tcpxo-installer v1.0.15 completed; the 8 files of its "
	       "release), NCCL 2.28.7");

	/* Every file is there, but the init container crash-loops: not finished, naming why. */
	fx_pods(f, "pods-installer-failed.json");
	expect(f, CHECK_FAIL, "TCPXO plugin install not finished: init container nccl-tcpxo-installer of "
	       "kube-system/nccl-tcpxo-installer-7xq2m has not completed (waiting: CrashLoopBackOff, last exit code 2 "
	       "(Error), 4 restarts)");
	assert_non_null(strstr(f->c.remedy, "kubectl -n kube-system logs nccl-tcpxo-installer-7xq2m -c "
			       "nccl-tcpxo-installer --previous"));

	fx_pods(f, "pods-installer-running.json");
	expect(f, CHECK_FAIL, "has not completed (running, 0 restarts): it is still copying the plugin");

	/* Waiting behind a failing init container before it: that one is named too. */
	fx_pods(f, "pods-installer-blocked.json");
	expect(f, CHECK_FAIL, "has not completed (waiting: PodInitializing, 0 restarts); init container "
	       "pre-installation before it: waiting: CrashLoopBackOff, last exit code 1 (Error), 3 restarts");

	/* A workload running the plugin image (an NCCL test pod) is not the installer. */
	fx_pods(f, "pods-nccl-test.json");
	expect(f, CHECK_PASS, "nccl-tcpxo-installer v1.0.15 completed");

	/* No installer pod on the node: the files alone decide, and the message says so. */
	fx_pods(f, "pods-idle.json");
	for (size_t i = 0; i < f->k.n_containers; i++)
		f->k.containers[i].role = KUBE_IMAGE_DAEMON;
	expect(f, CHECK_PASS, "(8 files: the whole set of installers v1.0.14 to v1.0.17) (no nccl-tcpxo-installer "
	       "pod on this node: judged by the files alone), NCCL 2.28.7");
	fx_free(f);
}

/* A release the table knows only by its NCCL: the generic list, with that NCCL. */
static void test_installer_release_unsourced(void **state)
{
	static const char text[] = "{\"schema\":\"fabric.aicr.run/releases/v1\",\"releases\":["
				   "{\"installer\":\"v1.0.15\",\"daemon\":\"v1.0.21\",\"nccl\":\"2.28.7\"}]}";
	struct fx *f = fx_new(PROFILE_TCPXO, v15, sizeof(v15) / sizeof(v15[0]));
	struct releases *t = NULL;
	char err[256];

	assert_int_equal(releases_parse(text, strlen(text), &t, err, sizeof(err)), 0);
	fx_pods(f, "pods-healthy.json");
	f->k.releases = t;
	expect(f, CHECK_PASS, "nccl-tcpxo-installer v1.0.15 completed; 7 files of the generic list: its release's is "
	       "not published");
	fx_drop(f, "libnccl.so.2.28.7");
	expect(f, CHECK_FAIL, "lib64/libnccl.so.2.28.7 is missing");
	f->k.releases = NULL;
	releases_free(t);
	fx_free(f);
}

/* A3 High: the TCPX installer's completion, and the files NCCL loads (the list is inferred: warnings). */
static void test_tcpx(void **state)
{
	static const char *const tcpx[] = { "libcuda.so", "libnccl-net.so", "libnccl.so", "libnccl.so.2",
					    "libnccl.so.2.19.3", "libnvidia-ml.so" };
	struct fx *f = fx_new(PROFILE_TCPX, tcpx, sizeof(tcpx) / sizeof(tcpx[0]));

	expect(f, CHECK_PASS, "TCPX plugin files present (2 files; the TCPX installer's file list is not published: "
	       "these are what NCCL loads), NCCL 2.19.3");
	fx_pods(f, "pods-tcpx-healthy.json");
	expect(f, CHECK_PASS, "TCPX plugin files present (nccl-tcpx-installer v3.1.9 completed; the TCPX installer's");
	fx_drop(f, "libnccl-net.so");
	expect(f, CHECK_WARN, "TCPX plugin install incomplete: lib64/libnccl-net.so is missing");
	assert_non_null(strstr(f->c.remedy, "nccl-tcpx-installer"));
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_only),
		cmocka_unit_test(test_half_copied_upgrade),
		cmocka_unit_test(test_installer_state),
		cmocka_unit_test(test_installer_release_unsourced),
		cmocka_unit_test(test_tcpx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
