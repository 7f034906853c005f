/* check_plugin.c - plugin-files: the installer's completion (from the API) and its release's whole file set in lib64. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/hostfiles.h"
#include "probes/kube/imageref.h"
#include "probes/model/strbuf.h"
#include "report/checks/checks.h"
#include "report/checks/kubefacts.h"

#define CHECK_PLUGIN_NVIDIA "/home/kubernetes/bin/nvidia"
#define CHECK_PLUGIN_SHOWN 8            /* problems named in one message; the rest are counted */
#define CHECK_PLUGIN_SET_MAX (RELEASES_FILES_MAX + 8)

/* One release's file set (or the generic list), ready to be looked up in lib64. */
struct check_plugin_set {
	const struct releases_row *row;         /* NULL: the generic list of the fabric */
	const char *names[CHECK_PLUGIN_SET_MAX];
	size_t n;
	char nccl_name[RELEASES_NCCL_MAX + 16]; /* "libnccl.so.2.28.7" */
	bool inferred;                          /* the TCPX list: not published, judged as warnings */
};

static void check_plugin_set_add(struct check_plugin_set *s, const char *name)
{
	if (s->n < CHECK_PLUGIN_SET_MAX)
		s->names[s->n++] = name;
}

/* @row's set: its NCCL library (the version when known, else any) and its other files. */
static void check_plugin_set_of(struct check_plugin_set *s, const struct releases_row *row, enum releases_fabric f)
{
	const char *nccl = HOSTFILES_NCCL_PATTERN;
	bool nccl_known = row && row->nccl[0];

	memset(s, 0, sizeof(*s));
	s->row = row;
	if (nccl_known) {
		snprintf(s->nccl_name, sizeof(s->nccl_name), "libnccl.so.%s", row->nccl);
		nccl = s->nccl_name;
	}
	if (row && row->files) {
		check_plugin_set_add(s, nccl);
		for (size_t i = 0; i < row->n_files; i++)
			check_plugin_set_add(s, row->files[i]);
		return;
	}
	if (f == RELEASES_FABRIC_TCPX) {
		for (size_t i = 0; hostfiles_tcpx_lib64[i]; i++)
			check_plugin_set_add(s, hostfiles_tcpx_lib64[i]);
		if (nccl_known)
			check_plugin_set_add(s, nccl);
		s->inferred = true;
		return;
	}
	for (size_t i = 0; hostfiles_plugin_lib64[i]; i++)
		check_plugin_set_add(s, strcmp(hostfiles_plugin_lib64[i], HOSTFILES_NCCL_PATTERN) == 0 ? nccl :
				     hostfiles_plugin_lib64[i]);
}

/*
 * How many files of @s are missing or not regular files in lib64; each named in @why (when not
 * NULL, at most CHECK_PLUGIN_SHOWN, then counted). @ret_found: how many are there.
 */
static size_t check_plugin_judge(const struct check_plugin_set *s, const struct obs_nvpath *n, struct strbuf *why,
				 size_t *ret_found)
{
	size_t bad = 0, found = 0;

	for (size_t i = 0; i < s->n; i++) {
		const char *name = NULL;
		enum obs_file_type t = hostfiles_find(n->lib64, n->n_lib64, s->names[i], &name);
		char q[OBS_HOST_NAME_MAX * 4 + 8];

		if (t == OBS_FILE_REGULAR) {
			found++;
			continue;
		}
		if (why && bad < CHECK_PLUGIN_SHOWN) {
			if (t == OBS_FILE_ABSENT) {
				strbuf_appendf(why, "%slib64/%s is missing", bad ? "; " : "", s->names[i]);
			} else {
				obs_host_quote(name, q, sizeof(q));
				strbuf_appendf(why, "%slib64/%s is %s", bad ? "; " : "", q, obs_file_type_name(t));
			}
		}
		bad++;
	}
	if (why && bad > CHECK_PLUGIN_SHOWN)
		strbuf_appendf(why, "; and %zu more", bad - CHECK_PLUGIN_SHOWN);
	if (ret_found)
		*ret_found = found;
	return bad;
}

/* What the API says of the installer DaemonSet's pods on this node. */
struct check_plugin_installer {
	size_t n;                               /* installer containers of pods that have not ended */
	size_t n_incomplete;
	const struct kube_container *first;     /* the first one: its release names the file set */
	struct strbuf why, remedy;
};

/* Earlier init containers of the installer's pod that failed: why it is still waiting. */
static int check_plugin_blockers(const struct pod *p, const struct pod_container *pc, struct strbuf *why)
{
	for (size_t i = 0; i < p->n_containers && &p->containers[i] != pc; i++) {
		const struct pod_container *ic = &p->containers[i];

		if (!ic->init || kubefacts_run(ic) != KUBEFACTS_RUN_FAILED)
			continue;
		strbuf_appendf(why, "; init container %s before it: ", ic->name);
		if (kubefacts_run_text(ic, why) < 0)
			return -ENOMEM;
	}
	return why->oom ? -ENOMEM : 0;
}

static int check_plugin_installer_read(const struct obs_kube *k, struct check_plugin_installer *in)
{
	for (size_t i = 0; i < k->n_containers; i++) {
		const struct kube_container *ct = &k->containers[i];
		const struct pod *p = kubefacts_pod(k, ct);
		const struct pod_container *pc;
		enum kubefacts_run run;

		if (!kubefacts_is_installer(k, ct) || kubefacts_pod_ended(p))
			continue;
		pc = obs_pod_container(p, ct->name);
		if (!pc)
			continue;
		if (!in->first)
			in->first = ct;
		in->n++;
		run = kubefacts_run(pc);
		if (run == KUBEFACTS_RUN_DONE)
			continue;
		strbuf_appendf(&in->why, "%sinit container %s of %s/%s has not completed (", in->n_incomplete ? "; " : "",
			       ct->name, ct->ns, ct->pod);
		if (kubefacts_run_text(pc, &in->why) < 0)
			return -ENOMEM;
		strbuf_append(&in->why, run == KUBEFACTS_RUN_RUNNING ? "): it is still copying the plugin" : ")");
		if (run == KUBEFACTS_RUN_STARTING && check_plugin_blockers(p, pc, &in->why) < 0)
			return -ENOMEM;
		if (!in->n_incomplete)
			strbuf_appendf(&in->remedy, "see why with kubectl -n %s logs %s -c %s%s; until that init container "
				       "exits 0, lib64 may be half copied (the DaemonSet copies it with one cp -r)",
				       ct->ns, ct->pod, ct->name, run == KUBEFACTS_RUN_FAILED ? " --previous" : "");
		in->n_incomplete++;
	}
	return in->why.oom || in->remedy.oom ? -ENOMEM : 0;
}

/*
 * The known releases of @f whose set is the most whole in lib64: fewest problems, then a known
 * NCCL version before "any libnccl.so.2.*". @lo..@hi: their installer versions; @best: the newest.
 */
struct check_plugin_pick {
	const struct releases_row *best;
	size_t best_bad;
	const char *lo, *hi;
	size_t n_best, max_found;
};

static void check_plugin_pick_rows(const struct releases *t, enum releases_fabric f, const struct obs_nvpath *n,
				   struct check_plugin_pick *pk)
{
	size_t min_key = (size_t)-1;
	bool sourced = false;

	/*
	 * Releases with a published set only, when there are any: the generic list matches any
	 * NCCL, so an upgrade caught mid-copy (an older NCCL lingering) would pass as an old release.
	 */
	for (size_t i = 0; i < t->n; i++)
		sourced = sourced || (t->rows[i].fabric == f && t->rows[i].files);
	memset(pk, 0, sizeof(*pk));
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < t->n; i++) {
			const struct releases_row *row = &t->rows[i];
			struct check_plugin_set s;
			size_t bad, found, key;

			if (row->fabric != f || (sourced && !row->files))
				continue;
			check_plugin_set_of(&s, row, f);
			bad = check_plugin_judge(&s, n, NULL, &found);
			key = 2 * bad + (row->nccl[0] ? 0 : 1);
			if (pass == 0) {
				if (found > pk->max_found)
					pk->max_found = found;
				if (key < min_key)
					min_key = key;
				continue;
			}
			if (key != min_key)
				continue;
			if (!pk->lo || imageref_version_cmp(row->installer, pk->lo) < 0)
				pk->lo = row->installer;
			if (!pk->hi || imageref_version_cmp(row->installer, pk->hi) > 0) {
				pk->hi = row->installer;
				pk->best = row;
				pk->best_bad = bad;
			}
			pk->n_best++;
		}
}

/*
 * Judge @s in lib64 and set @c: pass "<FABRIC> plugin installed (<head>)<note>, NCCL <versions>",
 * or "<FABRIC> plugin install incomplete: <problems><closest><note>" (a warning for an inferred set).
 */
static int check_plugin_finish(struct finding *c, const struct obs_nvpath *n, const struct check_plugin_set *s,
			       enum releases_fabric f, const char *head, const char *closest, const char *note,
			       const char *remedy)
{
	struct strbuf why = { 0 }, nccl = { 0 };
	const char *fab = releases_fabric_upper(f);
	size_t found = 0, bad;
	int r, versions;

	bad = check_plugin_judge(s, n, &why, &found);
	versions = hostfiles_nccl_versions(n->lib64, n->n_lib64, &nccl);
	if (versions < 0 || why.oom) {
		r = -ENOMEM;
		goto out;
	}
	if (bad)
		r = finding_set(c, s->inferred ? CHECK_WARN : CHECK_FAIL, remedy, "%s plugin install incomplete: %s%s%s",
			      fab, why.s, closest, note);
	else if (s->inferred)
		r = finding_set(c, CHECK_PASS, NULL, "%s plugin files present (%s; the TCPX installer's file list is not "
			      "published: these are what NCCL loads)%s, NCCL %s", fab, head, note,
			      nccl.s ? nccl.s : "version unknown");
	else
		r = finding_set(c, CHECK_PASS, NULL, "%s plugin installed (%s)%s, NCCL %s%s", fab, head, note,
			      nccl.s ? nccl.s : "version unknown",
			      versions > 1 ? " (older versions linger: the installer deletes nothing)" : "");
out:
	strbuf_free(&why);
	strbuf_free(&nccl);
	return r;
}

int check_plugin_files(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_nvpath *n = &o->host.nvpath;
	const struct obs_kube *k = o->kube;
	const struct releases *t = kubefacts_releases(k);
	enum releases_fabric f = p->kind == PROFILE_TCPX ? RELEASES_FABRIC_TCPX : RELEASES_FABRIC_TCPXO;
	struct check_plugin_installer in = { 0 };
	const struct releases_row *row = NULL;
	struct check_plugin_set s;
	struct check_plugin_pick pk;
	char head[192], note[128] = "", closest[128] = "", range[80], remedy[256];
	int r = 0;

	if (p->kind == PROFILE_RDMA)
		return check_rdma_gib(o, p, c);
	r = check_nvpath_read(n, c);
	if (r)
		return r < 0 ? r : 0;
	snprintf(remedy, sizeof(remedy), "check the %s pod on this node (kubectl -n kube-system logs -l k8s-app=%s -c %s)",
		 releases_installer_name(f), releases_installer_name(f), releases_installer_name(f));
	if (n->lib64_dir != OBS_FILE_DIR)
		return finding_set(c, CHECK_FAIL, remedy, "%s plugin not installed: %s/lib64 is %s",
				 releases_fabric_upper(f), CHECK_PLUGIN_NVIDIA, obs_file_type_name(n->lib64_dir));

	/* With the API, the installer's init container says whether the copy completed. */
	if (k->configured && k->pods_fetch.state == KUBE_FETCH_OK) {
		r = check_plugin_installer_read(k, &in);
		if (r < 0)
			goto out;
		if (in.n_incomplete) {
			r = finding_set(c, CHECK_FAIL, in.remedy.s, "%s plugin install not finished: %s",
				      releases_fabric_upper(f), in.why.s);
			goto out;
		}
		if (in.first)
			row = releases_find_installer(t, kubefacts_fabric(in.first, p->kind),
						      kubefacts_version_of(k, in.first));
		if (!in.first)
			snprintf(note, sizeof(note), " (no %s pod on this node: judged by the files alone)",
				 releases_installer_name(f));
	}
	if (row) {
		check_plugin_set_of(&s, row, row->fabric);
		if (s.inferred)
			snprintf(head, sizeof(head), "%s %s completed", in.first->name, row->installer);
		else if (row->files)
			snprintf(head, sizeof(head), "%s %s completed; the %zu files of its release", in.first->name,
				 row->installer, s.n);
		else
			snprintf(head, sizeof(head), "%s %s completed; %zu files of the generic list: its release's is not "
				 "published", in.first->name, row->installer, s.n);
		r = check_plugin_finish(c, n, &s, row->fabric, head, "", "", remedy);
		goto out;
	}

	/* The installer's release is not known: the set of some known release must be whole. */
	check_plugin_pick_rows(t, f, n, &pk);
	if (!pk.best) {
		check_plugin_set_of(&s, NULL, f);
		snprintf(head, sizeof(head), "%zu files of the generic list: the release table has no %s release",
			 s.n, releases_fabric_name(f));
		r = check_plugin_finish(c, n, &s, f, head, "", note, remedy);
		goto out;
	}
	check_plugin_set_of(&s, pk.best, f);
	if (pk.max_found == 0 && !s.inferred) {
		r = finding_set(c, CHECK_FAIL, remedy, "%s plugin not installed: none of its files in %s/lib64%s",
			      releases_fabric_upper(f), CHECK_PLUGIN_NVIDIA, note);
		goto out;
	}
	if (pk.n_best > 1 && strcmp(pk.lo, pk.hi) != 0)      /* " v1.0.14" or "s v1.0.14 to v1.0.17" */
		snprintf(range, sizeof(range), "s %s to %s", pk.lo, pk.hi);
	else
		snprintf(range, sizeof(range), " %s", pk.hi);
	if (s.inferred)
		snprintf(head, sizeof(head), "%zu files", s.n);
	else
		snprintf(head, sizeof(head), "%zu files: the whole set of installer%s", s.n, range);
	if (pk.best_bad && !s.inferred)
		snprintf(closest, sizeof(closest), " (the closest known set: that of installer%s)", range);
	r = check_plugin_finish(c, n, &s, f, head, closest, note, remedy);
out:
	strbuf_free(&in.why);
	strbuf_free(&in.remedy);
	return r;
}
