/* runtime_pins.c - the runtime's daemon image and NCCL environment against the release the fleet runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/imageref.h"
#include "report/checks/attach_worker.h"
#include "report/checks/releases_env.h"
#include "report/fleet/runtime_checks.h"

#define RUNTIME_PINS_LIST_MAX 6         /* variables named in one message; the rest counted */
#define RUNTIME_PINS_LIB64 "/usr/local/nvidia/lib64"   /* where GKE puts the driver in GPU containers */

static enum releases_fabric runtime_pins_fabric(enum profile_kind kind)
{
	return kind == PROFILE_TCPX ? RELEASES_FABRIC_TCPX : RELEASES_FABRIC_TCPXO;
}

/* ---- daemon-pin ---- */

/* One daemon container's image against the table's digest of its tag. */
static void runtime_pins_image(const struct runtime_input *in, const char *job, const struct pod_container *c,
			       struct finding_acc *a)
{
	const struct releases *t = in->releases ? in->releases : releases_builtin();
	enum releases_fabric fabric = runtime_pins_fabric(in->ff->kind);
	const char *want, *tag_of_digest, *tag;
	char remedy[1200], q[96], qi[200];
	struct imageref ref;

	attach_quote(c->name, q, sizeof(q));
	attach_quote(c->image, qi, sizeof(qi));
	if (!c->image || imageref_parse(c->image, &ref) < 0) {
		finding_acc_skip(a, "job %s, container %s: image %s is not an image reference", job, q, qi);
		return;
	}
	tag = ref.tag[0] ? ref.tag : NULL;
	want = releases_daemon_digest(t, fabric, tag ? tag : in->node->expected_daemon);
	snprintf(remedy, sizeof(remedy), "pin the daemon image by digest: %s%s%s:%s@%s (%s)", ref.registry,
		 ref.registry[0] ? "/" : "", ref.path,
		 tag ? tag : in->node->expected_daemon[0] ? in->node->expected_daemon : "<tag>",
		 want ? want : "sha256:<digest>", want ? "the release table's digest of that release" :
		 "the registry's digest of the tag, from crane digest IMAGE; the release table has none to compare with");
	if (!ref.digest[0]) {
		finding_acc_add(a, CHECK_WARN, remedy, "job %s, container %s: %s is not pinned by digest: whatever is pushed "
			       "under the tag runs", job, q, qi);
		return;
	}
	tag_of_digest = releases_tag_by_digest(t, RELEASES_DAEMON, ref.digest);
	if (tag && want && strcmp(want, ref.digest) != 0) {
		finding_acc_add(a, CHECK_FAIL, remedy, "job %s, container %s: the digest %.19s… is not the release table's "
			       "digest of %s (%.19s…)%s%s%s", job, q, ref.digest, tag, want,
			       tag_of_digest ? ": it is " : "", tag_of_digest ? tag_of_digest : "",
			       tag_of_digest ? "'s" : "");
		return;
	}
	if (!tag && !tag_of_digest) {
		finding_acc_skip(a, "job %s, container %s: digest %.19s… is not in the release table: its release is not "
				"known", job, q, ref.digest);
		return;
	}
	if (tag && !want)
		finding_acc_skip(a, "job %s, container %s: the release table has no digest of %s: the pin is not "
				"compared", job, q, tag);
}

int runtime_pins_daemon(const struct runtime_input *in, struct finding *f)
{
	struct finding_acc a = { 0 };
	size_t n = 0;

	for (size_t i = 0; i < in->rt->n_templates; i++) {
		const struct pod *p = &in->rt->templates[i].pod;

		for (size_t k = 0; k < p->n_containers; k++) {
			if (!attach_is_daemon(&p->containers[k], NULL))
				continue;
			n++;
			runtime_pins_image(in, in->rt->templates[i].job, &p->containers[k], &a);
		}
	}
	if (!n)
		finding_acc_skip(&a, "no container runs the daemon image (see daemon-sidecar)");
	return finding_acc_finish(&a, f, "the daemon image is pinned by the release table's digest");
}

/* ---- env-pin ---- */

/* Names free of the comparison: logging, and what an unprivileged pod needs besides the set. */
static bool runtime_pins_allowed(const char *name, enum profile_kind kind)
{
	return strncmp(name, "NCCL_DEBUG", 10) == 0 || strcmp(name, "LD_LIBRARY_PATH") == 0 ||
	       (kind == PROFILE_TCPXO && strcmp(name, "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY") == 0);
}

static void runtime_pins_more(struct strbuf *sb, size_t n)
{
	if (n > RUNTIME_PINS_LIST_MAX)
		strbuf_appendf(sb, " and %zu more", n - RUNTIME_PINS_LIST_MAX);
}

struct runtime_pins_diff {
	struct strbuf missing, differ, unknown, extra, other;
	size_t n_missing, n_differ, n_unknown, n_extra, n_other;
};

static void runtime_pins_diff_free(struct runtime_pins_diff *d)
{
	strbuf_free(&d->missing);
	strbuf_free(&d->differ);
	strbuf_free(&d->unknown);
	strbuf_free(&d->extra);
	strbuf_free(&d->other);
}

/* The set against one GPU container's env. */
static void runtime_pins_container(const struct runtime_input *in, const struct pod *p, const struct pod_container *c,
				   const struct releases_env *set, size_t n_set, struct runtime_pins_diff *d)
{
	const struct attach_fabric *fab = attach_fabric_of(in->ff->kind);
	char lib64[512], want[700];

	if (!attach_nvidia_lib64(p, c, lib64, sizeof(lib64)))
		snprintf(lib64, sizeof(lib64), "%s", RUNTIME_PINS_LIB64);
	for (size_t i = 0; i < n_set; i++) {
		const char *v;
		bool set_at_all = false;
		char qv[96];

		if (runtime_pins_allowed(set[i].name, in->ff->kind))
			continue;
		v = obs_pod_env(c, set[i].name, &set_at_all);
		if (set[i].kind == RELEASES_ENV_LIB_FILE)
			snprintf(want, sizeof(want), "%s/%s", lib64, set[i].value);
		else
			snprintf(want, sizeof(want), "%s", set[i].value);
		if (!set_at_all)
			finding_list_add(&d->missing, &d->n_missing, RUNTIME_PINS_LIST_MAX, ", ", "%s", set[i].name);
		else if (!v)
			finding_list_add(&d->unknown, &d->n_unknown, RUNTIME_PINS_LIST_MAX, ", ", "%s (valueFrom)",
					 set[i].name);
		else if (strcmp(v, want) != 0)
			finding_list_add(&d->differ, &d->n_differ, RUNTIME_PINS_LIST_MAX, ", ", "%s=%s (the release's: %s)",
					 set[i].name, attach_quote(v, qv, sizeof(qv)), want);
	}
	for (size_t i = 0; i < c->env.n; i++) {
		const char *name = c->env.v[i].key;
		bool again = false;
		char qn[96];

		for (size_t k = 0; k < i && !again; k++)
			again = strcmp(c->env.v[k].key, name) == 0;
		if (again || obs_find(set, n_set, sizeof(*set), 0, true, name) || runtime_pins_allowed(name, in->ff->kind))
			continue;
		attach_quote(name, qn, sizeof(qn));
		if (strncmp(name, fab->env_family, strlen(fab->env_family)) == 0 ||
		    strncmp(name, fab->foreign_family, strlen(fab->foreign_family)) == 0)
			finding_list_add(&d->extra, &d->n_extra, RUNTIME_PINS_LIST_MAX, ", ", "%s", qn);
		else if (strncmp(name, "NCCL_", 5) == 0)
			finding_list_add(&d->other, &d->n_other, RUNTIME_PINS_LIST_MAX, ", ", "%s", qn);
	}
}

int runtime_pins_env(const struct runtime_input *in, struct finding *f)
{
	const struct attach_node *n = in->node;
	const struct releases_env *set;
	struct finding_acc a = { 0 };
	char remedy[600];
	size_t n_set = 0, n_gpu = 0, n_compared = 0;

	if (!n->installer[0])
		return finding_set(f, CHECK_SKIP, NULL, "the fleet's installed release is unknown (%s): its NCCL "
					  "variable set is not known", n->versions_why);
	set = releases_env_of(in->releases, runtime_pins_fabric(in->ff->kind), n->installer, &n_set);
	if (!set)
		return finding_set(f, CHECK_SKIP, NULL, "the release notes give no NCCL variable set for installer "
					  "%s: the runtime's env is not compared", n->installer);
	for (size_t i = 0; i < n_set; i++)
		n_compared += !runtime_pins_allowed(set[i].name, in->ff->kind);
	snprintf(remedy, sizeof(remedy), "set exactly the NCCL variables of installer %s's release notes as env (the user "
		 "guide lists them), file paths in the container's mount of %s/lib64; LD_LIBRARY_PATH, NCCL_DEBUG*%s may be "
		 "added, nothing else of the %s family; a new installer release needs a new runtime", n->installer,
		 ATTACH_NVIDIA_HOST, in->ff->kind == PROFILE_TCPXO ? " and NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY" : "",
		 attach_fabric_of(in->ff->kind)->env_family);
	for (size_t i = 0; i < in->rt->n_templates; i++) {
		const struct trainruntime_template *t = &in->rt->templates[i];

		for (size_t k = 0; k < t->pod.n_containers; k++) {
			const struct pod_container *c = &t->pod.containers[k];
			struct runtime_pins_diff d = { 0 };
			char q[96];

			if (!imageref_gpu_container(c))
				continue;
			n_gpu++;
			attach_quote(c->name, q, sizeof(q));
			if (attach_sources_profile(c)) {
				finding_acc_add(&a, CHECK_PASS, NULL, "job %s, container %s sources nccl-env-profile.sh: the "
					       "installed release's own set", t->job, q);
				continue;
			}
			runtime_pins_container(in, &t->pod, c, set, n_set, &d);
			runtime_pins_more(&d.missing, d.n_missing);
			runtime_pins_more(&d.differ, d.n_differ);
			runtime_pins_more(&d.unknown, d.n_unknown);
			runtime_pins_more(&d.extra, d.n_extra);
			runtime_pins_more(&d.other, d.n_other);
			/* What envFrom adds is not visible here: a missing variable may come from it. */
			if (d.n_missing)
				finding_acc_add(&a, c->env_from ? CHECK_WARN : CHECK_FAIL, remedy, "job %s, container %s: %zu of "
					       "installer %s's variables are not set%s: %s", t->job, q, d.n_missing,
					       n->installer, c->env_from ? " (envFrom is not visible here)" : "",
					       d.missing.s);
			if (d.n_differ)
				finding_acc_add(&a, CHECK_FAIL, remedy, "job %s, container %s: %s", t->job, q, d.differ.s);
			if (d.n_extra)
				finding_acc_add(&a, CHECK_FAIL, remedy, "job %s, container %s sets variables the release does "
					       "not: %s", t->job, q, d.extra.s);
			if (d.n_unknown)
				finding_acc_add(&a, CHECK_WARN, remedy, "job %s, container %s: not confirmed: %s", t->job, q,
					       d.unknown.s);
			if (d.n_other)
				finding_acc_add(&a, CHECK_WARN, remedy, "job %s, container %s: NCCL variables outside the "
					       "release's set (the guest config checker flags unexpected ones): %s", t->job, q,
					       d.other.s);
			runtime_pins_diff_free(&d);
		}
	}
	if (!n_gpu)
		finding_acc_skip(&a, "no GPU container");
	return finding_acc_finish(&a, f, "every GPU container sets the %zu NCCL variables of installer %s's release notes "
				 "(NCCL_DEBUG* apart)", n_compared, n->installer);
}
