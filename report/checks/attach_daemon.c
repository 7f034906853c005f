/* attach_daemon.c - the daemon container's findings: sidecar, version, command line, mounts, device injection. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/cmdline.h"
#include "probes/kube/imageref.h"
#include "probes/model/yaml.h"
#include "report/checks/attach_daemon.h"

#define ATTACH_DAEMON_LIST_MAX 6        /* devices named in one message; the rest are counted */

const struct pod_container *attach_daemon_pick(const struct pod *p, enum profile_kind kind,
					       const struct pod_container **ret_other)
{
	const struct pod_container *unknown = NULL, *other = NULL, *match = NULL;

	for (size_t i = 0; i < p->n_containers; i++) {
		const struct pod_container *c = &p->containers[i];
		enum profile_kind fab;

		if (!attach_is_daemon(c, &fab))
			continue;
		if (fab == kind && !match)
			match = c;
		else if (fab == PROFILE_NONE && !unknown)
			unknown = c;
		else if (fab != kind && fab != PROFILE_NONE && !other)
			other = c;
	}
	if (ret_other)
		*ret_other = other;
	return match ? match : unknown;
}

/* The container's command and args as one argv (pointers into @c; free the array only). NULL: none or -ENOMEM. */
static const char **attach_argv(const struct pod_container *c, size_t *ret_n)
{
	size_t n = c->n_command + c->n_args;
	const char **v;

	*ret_n = 0;
	if (!n || !(v = calloc(n, sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < c->n_command; i++)
		v[i] = c->command[i];
	for (size_t i = 0; i < c->n_args; i++)
		v[c->n_command + i] = c->args[i];
	*ret_n = n;
	return v;
}

/* Kubernetes' device-injection annotation key for container @name into @buf. */
static void attach_device_key(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", ATTACH_DEVICE_PREFIX, name ? name : "");
}

/* "waiting (CrashLoopBackOff), last exit code 1, 4 restarts" into @buf. */
static void attach_daemon_state(const struct pod_container *c, char *buf, size_t len)
{
	const struct pod_cstatus *s = &c->status;
	char reason[80] = "", last[96] = "";

	if (s->reason) {
		char q[64];

		snprintf(reason, sizeof(reason), " (%s)", attach_quote(s->reason, q, sizeof(q)));
	}
	if (s->has_last)
		snprintf(last, sizeof(last), ", last exit code %d", s->last_exit_code);
	switch (s->state) {
	case POD_CSTATE_NONE:
		snprintf(buf, len, "has no status yet%s", last);
		return;
	case POD_CSTATE_WAITING:
		snprintf(buf, len, "is waiting%s%s, %u restart%s", reason, last, s->restarts, s->restarts == 1 ? "" : "s");
		return;
	case POD_CSTATE_TERMINATED:
		snprintf(buf, len, "terminated%s with exit code %d, %u restart%s", reason, s->exit_code, s->restarts,
			 s->restarts == 1 ? "" : "s");
		return;
	case POD_CSTATE_RUNNING:
		snprintf(buf, len, "is running");
		return;
	}
}

int attach_daemon_sidecar(const struct attach_pod *w, struct finding *f)
{
	const struct pod *p = w->p;
	const struct pod_container *c = w->daemon, *other = w->other;
	const struct attach_node *n = w->n;
	const struct attach_fabric *fab = attach_fabric_of(n->kind);
	char remedy[512], hint[96], q[96], state[200];
	enum profile_kind folder = PROFILE_NONE;

	attach_runtime_hint(fab, hint, sizeof(hint));
	if (!c) {
		snprintf(remedy, sizeof(remedy),
			 "add the %s native sidecar (spec.initContainers, restartPolicy: Always) running %s:%s with "
			 "command %s; %s", fab->daemon_name, fab->daemon_image,
			 n->expected_daemon[0] ? n->expected_daemon : "<the release of the installed plugin>",
			 fab->command, hint);
		if (other)
			return finding_set(f, CHECK_FAIL, remedy,
						  "container %s runs %s, the other fabric's daemon, on a %s node",
						  attach_quote(other->name, q, sizeof(q)), other->image,
						  profile_kind_name(n->kind));
		return finding_set(f, CHECK_FAIL, remedy, "no container runs the daemon image %s", fab->daemon_image);
	}
	attach_quote(c->name, q, sizeof(q));
	if (c->init && !c->sidecar) {
		snprintf(remedy, sizeof(remedy), "set restartPolicy: Always on init container %s (a native sidecar), or "
			 "move it to spec.containers; %s", q, hint);
		return finding_set(f, CHECK_FAIL, remedy,
					  "init container %s runs the daemon without restartPolicy: Always: the daemon "
					  "never exits, so the workload's containers never start", q);
	}
	if (p->phase && strcmp(p->phase, "Running") == 0 && c->status.state != POD_CSTATE_RUNNING) {
		attach_daemon_state(c, state, sizeof(state));
		snprintf(remedy, sizeof(remedy), "read the daemon's log (kubectl logs -n %s %s -c %s --previous) and fix "
			 "its mounts, devices and arguments (the other findings); %s", p->ns ? p->ns : "NAMESPACE",
			 p->name ? p->name : "POD", q, hint);
		return finding_set(f, CHECK_FAIL, remedy, "the pod is Running but daemon container %s %s", q, state);
	}
	if (attach_is_daemon(c, &folder) && folder == PROFILE_NONE) {
		snprintf(remedy, sizeof(remedy), "use the image from us-docker.pkg.dev/gce-ai-infra/%s/ (or keep the folder "
			 "name in a mirror) so its fabric can be told; %s", fab->folder, hint);
		return finding_set(f, CHECK_WARN, remedy,
					  "container %s runs %s: not under %s/, its fabric cannot be told", q, c->image,
					  fab->folder);
	}
	return finding_set(f, CHECK_PASS, NULL, "container %s runs the daemon as a %s%s", q,
				  c->sidecar ? "native sidecar" : "regular container",
				  c->status.state == POD_CSTATE_RUNNING ? ", running" : "");
}

/* The container's daemon release: a digest the table knows (what runs first), else the tag. */
static void attach_daemon_release(const struct pod_container *c, const struct attach_node *n, char *buf, size_t len)
{
	const struct releases *t = n->releases ? n->releases : releases_builtin();
	char digest[IMAGEREF_DIGEST_MAX];
	struct imageref ref;
	const char *v = NULL;

	buf[0] = '\0';
	if (c->status.image_id && imageref_digest_of(c->status.image_id, digest, sizeof(digest)) == 0)
		v = releases_tag_by_digest(t, RELEASES_DAEMON, digest);
	if (imageref_parse(c->image, &ref) < 0)
		return;
	if (!v && ref.digest[0])
		v = releases_tag_by_digest(t, RELEASES_DAEMON, ref.digest);
	snprintf(buf, len, "%s", v ? v : ref.tag);
}

int attach_daemon_version(const struct attach_pod *w, struct finding *f)
{
	const struct pod_container *c = w->daemon;
	const struct attach_node *n = w->n;
	const struct attach_fabric *fab = attach_fabric_of(n->kind);
	char ver[IMAGEREF_TAG_MAX], remedy[400], q[96];

	attach_quote(c->name, q, sizeof(q));
	attach_daemon_release(c, n, ver, sizeof(ver));
	if (!n->expected_daemon[0])
		return finding_set(f, CHECK_SKIP, NULL, "%s", n->versions_why[0] ? n->versions_why :
					  "the daemon release the installed plugin pairs with is unknown");
	attach_remedy(n, remedy, sizeof(remedy), "run %s:%s in container %s (upgrade the installer first, then the "
		      "daemon)", fab->daemon_image, n->expected_daemon, q);
	if (!ver[0])
		return finding_set(f, CHECK_WARN, remedy,
					  "container %s: the image %s has no tag and a digest the release table does not "
					  "know: its release is unknown (expected %s)", q, c->image, n->expected_daemon);
	if (!imageref_version_equal(ver, n->expected_daemon))
		return finding_set(f, CHECK_FAIL, remedy,
					  "container %s runs daemon %s, which does not pair with the installed plugin %s "
					  "(expects %s)", q, ver, n->installer[0] ? n->installer : "?", n->expected_daemon);
	return finding_set(f, CHECK_PASS, NULL, "daemon %s pairs with the installed plugin %s", ver,
				  n->installer[0] ? n->installer : "?");
}

/*
 * The one call into probes/host/cmdline.c's daemon flag rules (the node's daemon-args check uses
 * the same): its findings become this finding's, failures apart from warnings.
 * @version: the container's daemon release, "" unknown.
 */
static int attach_daemon_flags(enum profile_kind kind, const char *const *argv, size_t argc, const char *version,
			       const char *label, const char *remedy, struct finding_acc *a)
{
	static const enum cmdline_severity sev[] = { CMDLINE_SEVERITY_FAIL, CMDLINE_SEVERITY_WARN };
	enum cmdline_fabric fabric = kind == PROFILE_TCPX ? CMDLINE_FABRIC_TCPX : CMDLINE_FABRIC_TCPXO;
	struct cmdline_findings found = { 0 };
	int r;

	r = cmdline_daemon_findings(argv, argc, fabric, version, &found);
	for (size_t s = 0; r >= 0 && s < sizeof(sev) / sizeof(sev[0]); s++) {
		struct strbuf out = { 0 };

		for (size_t i = 0; i < found.n; i++)
			if (found.v[i].severity == sev[s])
				strbuf_appendf(&out, "%s%s", out.len ? "; " : "", found.v[i].text);
		if (out.oom)
			r = -ENOMEM;
		else if (out.len)
			finding_acc_add(a, sev[s] == CMDLINE_SEVERITY_FAIL ? CHECK_FAIL : CHECK_WARN, remedy,
				       "container %s: %s", label, out.s);
		strbuf_free(&out);
	}
	cmdline_findings_free(&found);
	return r < 0 ? -ENOMEM : 0;
}

int attach_daemon_args(const struct attach_pod *w, struct finding *f)
{
	const struct pod_container *c = w->daemon;
	const struct attach_node *n = w->n;
	const struct attach_fabric *fab = attach_fabric_of(n->kind);
	const char *prog = strrchr(fab->program, '/') + 1;
	struct finding_acc a = { 0 };
	char remedy[400], q[96], ver[IMAGEREF_TAG_MAX];
	const char **argv;
	size_t argc;
	int r;

	attach_quote(c->name, q, sizeof(q));
	attach_remedy(n, remedy, sizeof(remedy), "run %s in container %s (command/args), nothing retired", fab->command,
		      q);
	argv = attach_argv(c, &argc);
	if (!argv && c->n_command + c->n_args)
		return -ENOMEM;
	if (!argc)
		return finding_set(f, CHECK_FAIL, remedy,
					  "container %s has no command or args: the image's entrypoint does not run %s", q,
					  fab->command);
	/* The program's own path (TCPX: the binary), or a shell script that runs it. */
	if (!attach_argv_mentions(c, n->kind == PROFILE_TCPX ? "build/app/tcpgpudmarxd" : prog))
		finding_acc_add(&a, CHECK_FAIL, remedy, "container %s: command and args do not run %s", q, fab->program);
	attach_daemon_release(c, n, ver, sizeof(ver));
	r = attach_daemon_flags(n->kind, argv, argc, ver, q, remedy, &a);
	free(argv);
	if (r < 0) {
		strbuf_free(&a.msg);
		free(a.remedy);
		return r;
	}
	return finding_acc_finish(&a, f, "container %s runs %s as expected", q, fab->program);
}

/* The remedy of daemon-mounts for @name, with the runtime hint. */
static void attach_daemon_mounts_remedy(const struct attach_node *n, const char *name, char *buf, size_t len)
{
	attach_remedy(n, buf, len, "in container %s mount hostPath /sys at /hostsysfs, /proc/sys at /hostprocsysfs and "
		      "%s at /usr/local/nvidia%s, set LD_LIBRARY_PATH=/usr/local/nvidia/lib64 and add capabilities "
		      "NET_ADMIN%s (securityContext.capabilities.add)", name, ATTACH_NVIDIA_HOST,
		      n->kind == PROFILE_TCPX ? ", and hostPath /run/tcpx at /run/tcpx (shared with the GPU containers)" :
		      "", attach_fabric_of(n->kind)->bind_service ? " and NET_BIND_SERVICE" : "");
}

/* The mount of @c at @path must be hostPath @host. */
static void attach_daemon_mount(const struct pod *p, const struct pod_container *c, const char *path,
				const char *host, const char *why, const char *q, const char *remedy,
				struct finding_acc *a)
{
	const struct pod_mount *m = obs_pod_mount_at(c, path);
	const struct pod_volume *v = m && m->name ? obs_pod_volume(p, m->name) : NULL;
	char vq[96];

	if (!m) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s: no volumeMount at %s of hostPath %s (%s)", q, path,
			       host, why);
		return;
	}
	if (!v || !v->host_path || strcmp(v->host_path, host) != 0) {
		char hq[96];

		finding_acc_add(a, CHECK_FAIL, remedy, "container %s: volume %s mounted at %s is %s%s, not hostPath %s (%s)",
			       q, attach_quote(m->name, vq, sizeof(vq)), path, v && v->host_path ? "hostPath " : "",
			       v && v->host_path ? attach_quote(v->host_path, hq, sizeof(hq)) : v ? "not a hostPath" :
			       "not a volume of the pod", host, why);
	}
}

void attach_daemon_mounts(const struct pod *p, const struct pod_container *c, const struct attach_node *n,
			  struct finding_acc *a)
{
	const struct attach_fabric *fab = attach_fabric_of(n->kind);
	char remedy[600], q[96], lib64[512];
	bool set = false;
	const char *ld;

	attach_quote(c->name, q, sizeof(q));
	attach_daemon_mounts_remedy(n, q, remedy, sizeof(remedy));
	/*
	 * The daemon reads the host's sysfs and /proc/sys at /hostsysfs and /hostprocsysfs only through
	 * its start script, which falls back to /sys and /proc/sys when they are absent (plugin
	 * scripts/kernel_tuning.sh). A privileged container on the host network sees the host's NICs and
	 * may write there (Google's gpudirect-tcpxo/nccl-test.yaml): the mounts are not needed. Anywhere
	 * else the fallback is the pod's own, read-only or in another network namespace.
	 */
	if (!(c->privileged && p->host_network)) {
		attach_daemon_mount(p, c, "/hostsysfs", "/sys", "without it the daemon finds 0 GPUs and exits", q,
				    remedy, a);
		attach_daemon_mount(p, c, "/hostprocsysfs", "/proc/sys", "the daemon tunes the host's network settings "
				    "there", q, remedy, a);
	} else if (!obs_pod_mount_at(c, "/hostsysfs") || !obs_pod_mount_at(c, "/hostprocsysfs")) {
		finding_acc_add(a, CHECK_PASS, NULL, "container %s is privileged on the host network: without /hostsysfs "
			       "and /hostprocsysfs its start script uses the host's /sys and /proc/sys", q);
	}
	if (!attach_nvidia_lib64(p, c, lib64, sizeof(lib64))) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s does not mount the NVIDIA library path (hostPath %s): "
			       "the daemon cannot load libcuda", q, ATTACH_NVIDIA_HOST);
	} else {
		ld = obs_pod_env(c, "LD_LIBRARY_PATH", &set);
		if (!set)
			finding_acc_add(a, CHECK_WARN, remedy, "container %s: LD_LIBRARY_PATH is not set: the daemon finds "
				       "libcuda only if the image's own path holds %s", q, lib64);
		else if (ld && !attach_path_has(ld, lib64))
			finding_acc_add(a, CHECK_WARN, remedy, "container %s: LD_LIBRARY_PATH does not hold %s, where the "
				       "NVIDIA libraries are mounted", q, lib64);
	}
	if (n->kind == PROFILE_TCPX && !obs_pod_mount_of_host(p, c, ATTACH_TCPX_SOCKETS))
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s does not mount hostPath %s, where the daemon's "
			       "socket for the GPU containers lives", q, ATTACH_TCPX_SOCKETS);
	if (c->privileged)
		return;
	if (!obs_pod_has_cap(c, "NET_ADMIN") || (fab->bind_service && !obs_pod_has_cap(c, "NET_BIND_SERVICE")))
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s is not privileged and lacks %s%s%s in "
			       "securityContext.capabilities.add", q,
			       !obs_pod_has_cap(c, "NET_ADMIN") ? "NET_ADMIN" : "",
			       !obs_pod_has_cap(c, "NET_ADMIN") && fab->bind_service &&
			       !obs_pod_has_cap(c, "NET_BIND_SERVICE") ? " and " : "",
			       fab->bind_service && !obs_pod_has_cap(c, "NET_BIND_SERVICE") ? "NET_BIND_SERVICE" : "");
}

/* The remedy of device-injection for @name, with the runtime hint. */
static void attach_device_injection_remedy(const struct attach_node *n, const char *name, char *buf, size_t len)
{
	attach_remedy(n, buf, len, "annotate the pod with %s%s listing /dev/nvidia0..%u, /dev/nvidiactl, "
		      "/dev/nvidia-uvm%s (one \"- path: /dev/...\" line each) and run the NRI device injector DaemonSet "
		      "(%s, k8s-app=%s)", ATTACH_DEVICE_PREFIX, name, n->gpus ? n->gpus - 1 : 7,
		      n->kind == PROFILE_TCPXO ? ", /dev/dmabuf_import_helper" : "", "kube-system", "device-injector");
}

/* The "path" of every entry of the annotation's YAML list into @paths; a problem into @a. */
static int attach_device_paths(const char *value, const char *key, const char *remedy, struct json **ret,
			       struct finding_acc *a)
{
	char err[256];
	size_t i = 0;
	int r;

	r = yaml_load_one(value, strlen(value), ret, err, sizeof(err));
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s is not YAML: %s", key, err);
		return 1;
	}
	if (json_type(*ret) != JSON_ARRAY) {
		finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s is a YAML %s, not a list of {path: /dev/...}", key,
			       json_type_name(json_type(*ret)));
		return 1;
	}
	for (const struct json *e = json_first(*ret); e; e = json_next(e), i++)
		if (!json_get_string(e, "path")) {
			finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s: entry %zu has no path (a YAML %s)", key, i,
				       json_type_name(json_type(e)));
			return 1;
		}
	return 0;
}

static bool attach_device_listed(const struct json *list, const char *dev)
{
	for (const struct json *e = json_first(list); e; e = json_next(e))
		if (strcmp(json_get_string(e, "path"), dev) == 0)
			return true;
	return false;
}

void attach_device_annotation(const struct pod *p, const struct pod_container *c, const struct attach_node *n,
			      struct finding_acc *a)
{
	char key[128], q[96], remedy[700];
	struct strbuf missing = { 0 };
	struct json *list = NULL;
	const char *value;
	size_t n_missing = 0;

	attach_quote(c->name, q, sizeof(q));
	if (c->privileged) {
		finding_acc_add(a, CHECK_PASS, NULL, "container %s is privileged: it sees every device", q);
		return;
	}
	attach_device_key(c->name, key, sizeof(key));
	attach_device_injection_remedy(n, q, remedy, sizeof(remedy));
	value = obs_pod_kv(&p->annotations, key);
	if (value && strlen(value) > ATTACH_ANN_MAX) {
		finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s is %zu bytes, more than %u: not a device list", key,
			       strlen(value), ATTACH_ANN_MAX);
	} else if (!value) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s is not privileged and the pod has no %s annotation: "
			       "the daemon gets no GPU device", q, key);
	} else if (attach_device_paths(value, key, remedy, &list, a) == 0) {
		for (size_t i = 0; i < n->n_devices; i++) {
			if (!attach_device_listed(list, n->devices[i]))
				finding_list_add(&missing, &n_missing, ATTACH_DAEMON_LIST_MAX, ", ", "%s", n->devices[i]);
		}
		if (n_missing > ATTACH_DAEMON_LIST_MAX)
			strbuf_appendf(&missing, " and %zu more", n_missing - ATTACH_DAEMON_LIST_MAX);
		if (n_missing)
			finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s lacks %s", key, missing.s ? missing.s : "");
		else if (!n->n_devices)
			finding_acc_skip(a, "the node's device list is unknown: annotation %s not compared", key);
	}
	json_free(list);
	strbuf_free(&missing);
}

void attach_injector(const struct attach_node *n, const char *name, struct finding_acc *a)
{
	char key[128], remedy[700];

	attach_device_key(name, key, sizeof(key));
	attach_device_injection_remedy(n, name, remedy, sizeof(remedy));
	switch (n->injector) {
	case ATTACH_INJECTOR_RUNNING:
		break;
	case ATTACH_INJECTOR_UNKNOWN:
		finding_acc_skip(a, "the NRI device injector was not observed (%s)", n->injector_found);
		break;
	case ATTACH_INJECTOR_ABSENT:
	case ATTACH_INJECTOR_NOT_RUNNING:
		finding_acc_add(a, CHECK_FAIL, remedy, "the NRI device injector does not run on this node (%s): the %s "
			       "annotation is ignored and the daemon fails with \"CUDA initialization failed\"",
			       n->injector_found, key);
		break;
	}
}

int attach_device_injection(const struct attach_pod *w, struct finding *f)
{
	struct finding_acc a = { 0 };
	char q[96];

	attach_quote(w->daemon->name, q, sizeof(q));
	attach_device_annotation(w->p, w->daemon, w->n, &a);
	if (!w->daemon->privileged)
		attach_injector(w->n, q, &a);
	return finding_acc_finish(&a, f, "the pod's %s%s annotation lists the %zu devices and the NRI device injector runs",
				  ATTACH_DEVICE_PREFIX, q, w->n->n_devices);
}
