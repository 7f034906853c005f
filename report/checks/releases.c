/* releases.c - the installer <-> daemon release table (TCPXO and TCPX): built-in rows and the file format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/hostfiles.h"
#include "probes/model/errmsg.h"
#include "probes/model/json.h"
#include "report/checks/releases.h"

#define D15 "sha256:4c9f0de3f39455a2ea35e844e0fc92564ca5629f6b03250fde40e8160719dae4"
#define D21 "sha256:8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d"

/*
 * The files the open-source installer writes to lib64, in its order (google/nccl-plugin-gpudirect-
 * tcpxo, tcpxo_scripts/container_entry.sh `install --install-nccl`): NCCL (cp -P libnccl.so*: the
 * versioned library the row's nccl names, and its SONAME link libnccl.so.2), the plugin
 * (libnccl-net.so, renamed libnccl-net_internal.so when the shim goes in), the env profile, the
 * tuner and its config, then the config-checker shim (as libnccl-net.so) and its config. The
 * DaemonSet copies that directory with one `cp -r`, in directory order: any subset can be
 * missing while it runs. Images from v1.0.12 on are built from that source (Google's release
 * notes, Aug 21, 2025).
 */
static const char *const releases_tcpxo_open_files[] = {
	"libnccl.so.2", "libnccl-net_internal.so", "nccl-env-profile.sh", "libnccl-tuner.so",
	"a3plus_tuner_config.textproto", "libnccl-net.so", "a3plus_guest_config.textproto",
};

#define RELEASES_OPEN releases_tcpxo_open_files, sizeof(releases_tcpxo_open_files) / sizeof(releases_tcpxo_open_files[0])
#define RELEASES_UNSOURCED NULL, 0      /* closed-source installers: the file set is not published */
#define TCPXO RELEASES_FABRIC_TCPXO
#define TCPX RELEASES_FABRIC_TCPX

/*
 * Where each row comes from. TCPXO: GoogleCloudPlatform/container-engine-accelerators
 * gpudirect-tcpxo/README.md (the release notes: pair, date, "Compatible NCCL version"), every dated
 * row found there at 685dca2541b5 (HEAD 992db8125755, 2026-06-11); then the source-only tags:
 * google/nccl-plugin-gpudirect-tcpxo buffer_mgmt_daemon/buffer_manager_version.h (kRxdmPatch 19
 * in the v1.0.13 commit 1468329, 23 in v1.0.16 cc46ebb and v1.0.17 04815d1); NCCL 2.28.7 for
 * v1.0.14..v1.0.17. An NCCL of "" means the notes give a range, not the version installed
 * ("default nccl-2.23, qualified 2.21.5-2.23.4" for v1.0.8-1 and v1.0.9-1; none for v1.0.0 and
 * v1.0.13): plugin-files then accepts any libnccl.so.2.*.
 * TCPX: v3.1.9 <-> v2.0.12 (Feb 15, 2024) is what every gpudirect-tcpx/ manifest pins at
 * 992db8125755 (nccl-tcpx-installer.yaml, nccl-test-latest.yaml) and Cluster Toolkit
 * modules/compute/gke-node-pool/gpu_direct.tf ("rxdm_version v2.0.12 # matching nccl-tcpx-installer
 * version v3.1.9"). v3.1.12 <-> v2.0.15 (Jun 22, 2026) is in a gpudirect-tcpx/README.md of commit
 * 98c85a6e581d that is not in the repository's history as stored (HEAD 992db8125755 has no such
 * README and still pins v3.1.9 / v2.0.12): unverified. Its notes name NCCL 2.19 ("qualified
 * 2.19.3", "2.19.4"), not the file installed, and no file set is published: both left unknown.
 */
#define SRC_NOTES "GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpxo/README.md @685dca2541b5"
#define SRC_RXDM(c) "google/nccl-plugin-gpudirect-tcpxo buffer_mgmt_daemon/buffer_manager_version.h @" c
#define SRC_TCPX_PINS "GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpx/nccl-tcpx-installer.yaml " \
	"and nccl-test-latest.yaml @992db8125755"
#define SRC_TCPX_README "GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpx/README.md @98c85a6e581d, " \
	"a commit not in the repository's history as stored (its HEAD 992db8125755 pins v3.1.9 / v2.0.12)"
static struct releases_row releases_builtin_rows[] = {
	{ TCPXO, "2026-01-09", "v1.0.15", "v1.0.21", D15, D21, "2.28.7", RELEASES_OPEN, SRC_NOTES, false },
	{ TCPXO, "2025-11-19", "v1.0.14", "v1.0.20", "", "", "2.28.7", RELEASES_OPEN, SRC_NOTES, false },
	{ TCPXO, "2025-08-21", "v1.0.12", "v1.0.18", "", "", "2.26.5", RELEASES_OPEN, SRC_NOTES, false },
	{ TCPXO, "2025-06-27", "v1.0.11", "v1.0.17", "", "", "2.23.4", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2025-05-01", "v1.0.9-1", "v1.0.15", "", "", "", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2025-02-06", "v1.0.8-1", "v1.0.14", "", "", "", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2024-11-27", "v1.0.7", "v1.0.13_1", "", "", "2.21.5", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2024-10-18", "v1.0.6", "v1.0.12", "", "", "2.21.5", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2024-09-19", "v1.0.5", "v1.0.11", "", "", "2.21.5", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2024-08-06", "v1.0.4", "v1.0.10", "", "", "2.21.5", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2024-06-27", "v1.0.3", "v1.0.09", "", "", "2.21.5", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2024-05-30", "v1.0.2", "v1.0.8", "", "", "2.21.5", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2024-05-20", "v1.0.1", "v1.0.8", "", "", "2.21.5", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "2024-04-17", "v1.0.0", "v1.0.6-sctp", "", "", "", RELEASES_UNSOURCED, SRC_NOTES, false },
	{ TCPXO, "", "v1.0.13", "v1.0.19", "", "", "", RELEASES_OPEN, SRC_RXDM("1468329"), false },
	{ TCPXO, "", "v1.0.16", "v1.0.23", "", "", "2.28.7", RELEASES_OPEN, SRC_RXDM("cc46ebb"), false },
	{ TCPXO, "", "v1.0.17", "v1.0.23", "", "", "2.28.7", RELEASES_OPEN, SRC_RXDM("04815d1"), false },
	{ TCPX, "2026-06-22", "v3.1.12", "v2.0.15", "", "", "", RELEASES_UNSOURCED, SRC_TCPX_README, true },
	{ TCPX, "2024-02-15", "v3.1.9", "v2.0.12", "", "", "", RELEASES_UNSOURCED, SRC_TCPX_PINS, false },
};

#undef SRC_NOTES
#undef SRC_RXDM
#undef SRC_TCPX_PINS
#undef SRC_TCPX_README
#undef TCPXO
#undef TCPX

static const struct releases releases_builtin_table = {
	.rows = releases_builtin_rows,
	.n = sizeof(releases_builtin_rows) / sizeof(releases_builtin_rows[0]),
	.source = "built-in",
};

const struct releases *releases_builtin(void)
{
	return &releases_builtin_table;
}

const char *releases_fabric_upper(enum releases_fabric f)
{
	return f == RELEASES_FABRIC_TCPX ? "TCPX" : "TCPXO";
}

const char *releases_installer_name(enum releases_fabric f)
{
	return f == RELEASES_FABRIC_TCPX ? "nccl-tcpx-installer" : "nccl-tcpxo-installer";
}

const char *releases_daemon_name(enum releases_fabric f)
{
	return f == RELEASES_FABRIC_TCPX ? "tcpx-daemon" : "tcpxo-daemon";
}

const char *releases_fabric_name(enum releases_fabric f)
{
	switch (f) {
	case RELEASES_FABRIC_TCPXO: return "tcpxo";
	case RELEASES_FABRIC_TCPX: return "tcpx";
	}
	return "tcpxo";
}

/* The file lists of a parsed table (the built-in rows point at static arrays). */
static void releases_rows_free(struct releases_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		char **files = (char **)rows[i].files;

		for (size_t k = 0; files && k < rows[i].n_files; k++)
			free(files[k]);
		free(files);
	}
	free(rows);
}

void releases_free(struct releases *t)
{
	if (!t || t == &releases_builtin_table)
		return;
	releases_rows_free(t->rows, t->n);
	free(t);
}

static bool releases_date_ok(const char *s)
{
	static const char shape[] = "dddd-dd-dd";

	if (strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != '-')
			return false;
	return true;
}

/* A tag that is a release version: parses as "x:<tag>" and normalises. */
static bool releases_tag_ok(const char *s)
{
	char ref[RELEASES_TAG_MAX + 8], norm[IMAGEREF_VERSION_MAX];
	struct imageref r;

	if (strlen(s) >= RELEASES_TAG_MAX)
		return false;
	snprintf(ref, sizeof(ref), "x:%s", s);
	return imageref_parse(ref, &r) == 0 && imageref_version_normalize(s, norm, sizeof(norm)) == 0;
}

static bool releases_digest_ok(const char *s)
{
	char ref[IMAGEREF_DIGEST_MAX + 8];
	struct imageref r;

	if (strlen(s) >= IMAGEREF_DIGEST_MAX)
		return false;
	snprintf(ref, sizeof(ref), "x@%s", s);
	return imageref_parse(ref, &r) == 0;
}

/* "2.28.7": 2 to 4 numeric components of at most 4 digits. */
static bool releases_nccl_ok(const char *s)
{
	size_t parts = 0;

	for (;;) {
		size_t d = 0;

		while (s[d] >= '0' && s[d] <= '9')
			d++;
		if (d == 0 || d > 4)
			return false;
		parts++;
		s += d;
		if (!*s)
			break;
		if (*s++ != '.')
			return false;
	}
	return parts >= 2 && parts <= 4;
}

/* A file name or fnmatch pattern in lib64 that the host probe keeps (probes/host/hostfiles.h). */
static bool releases_file_ok(const char *s)
{
	if (!*s || strlen(s) >= RELEASES_FILE_NAME_MAX || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("._+-*?", *p)))
			return false;
	return hostfiles_relevant(s);
}

static int releases_parse_files(const struct json *m, size_t i, struct releases_row *row, char *err, size_t errlen)
{
	size_t n = json_size(m), k = 0;
	char **files;

	if (json_type(m) != JSON_ARRAY)
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu].files: expected an array, got %s", i,
				  json_type_name(json_type(m)));
	if (n == 0 || n > RELEASES_FILES_MAX)
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu].files: %zu entries, expected 1 to %d", i, n,
				  RELEASES_FILES_MAX);
	files = calloc(n, sizeof(*files));
	if (!files)
		return errmsg_set(err, errlen, -ENOMEM, "out of memory");
	row->files = (const char *const *)files;
	for (const struct json *e = json_first(m); e; e = json_next(e), k++) {
		const char *v = json_string(e);

		if (!v || !releases_file_ok(v))
			return errmsg_set(err, errlen, -EINVAL, "releases[%zu].files[%zu]: expected a file name in lib64 "
					  "that names an NCCL, plugin or tuner file (libnccl*, *.textproto, "
					  "nccl-env-profile*.sh)", i, k);
		if (!(files[k] = strdup(v)))
			return errmsg_set(err, errlen, -ENOMEM, "out of memory");
		row->n_files = k + 1;
	}
	return 0;
}

static int releases_parse_row(const struct json *e, size_t i, struct releases_row *row,
			      char *err, size_t errlen)
{
	static const char *const keys[] = { "date", "installer", "daemon", "installerDigest", "daemonDigest",
					    "nccl", "fabric", "files" };
	char fabric[8] = "";
	struct { char *dst; size_t size; } slots[] = {
		{ row->date, sizeof(row->date) }, { row->installer, sizeof(row->installer) },
		{ row->daemon, sizeof(row->daemon) },
		{ row->installer_digest, sizeof(row->installer_digest) },
		{ row->daemon_digest, sizeof(row->daemon_digest) },
		{ row->nccl, sizeof(row->nccl) }, { fabric, sizeof(fabric) }, { NULL, 0 },
	};

	if (json_type(e) != JSON_OBJECT)
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu]: expected an object, got %s", i,
				  json_type_name(json_type(e)));
	for (const struct json *m = json_first(e); m; m = json_next(m)) {
		const char *key = json_key(m), *v = json_string(m);
		size_t k;
		int r;

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strcmp(key, keys[k]) == 0)
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return errmsg_set(err, errlen, -EINVAL, "releases[%zu]: unknown member \"%.64s\"", i, key);
		if (!slots[k].dst) {
			if (row->files)
				return errmsg_set(err, errlen, -EINVAL, "releases[%zu].files: listed twice", i);
			if ((r = releases_parse_files(m, i, row, err, errlen)) < 0)
				return r;
			continue;
		}
		if (!v)
			return errmsg_set(err, errlen, -EINVAL, "releases[%zu].%s: expected a string, got %s", i, key,
					  json_type_name(json_type(m)));
		if (strlen(v) >= slots[k].size)
			return errmsg_set(err, errlen, -EINVAL, "releases[%zu].%s: longer than %zu characters", i, key,
					  slots[k].size - 1);
		strcpy(slots[k].dst, v);
	}
	if (!row->installer[0] || !row->daemon[0])
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu]: \"installer\" and \"daemon\" are required", i);
	if (!fabric[0] || strcmp(fabric, "tcpxo") == 0) {
		row->fabric = RELEASES_FABRIC_TCPXO;
	} else if (strcmp(fabric, "tcpx") == 0) {
		row->fabric = RELEASES_FABRIC_TCPX;
	} else {
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu].fabric: expected \"tcpxo\" or \"tcpx\", got \"%s\"",
				  i, fabric);
	}
	if (row->date[0] && !releases_date_ok(row->date))
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu].date: expected YYYY-MM-DD, got \"%s\"", i,
				  row->date);
	if (!releases_tag_ok(row->installer) || !releases_tag_ok(row->daemon))
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu]: \"%s\" / \"%s\" are not release tags like v1.0.15",
				  i, row->installer, row->daemon);
	if ((row->installer_digest[0] && !releases_digest_ok(row->installer_digest)) ||
	    (row->daemon_digest[0] && !releases_digest_ok(row->daemon_digest)))
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu]: digests must be sha256:<64 lowercase hex>", i);
	if (row->nccl[0] && !releases_nccl_ok(row->nccl))
		return errmsg_set(err, errlen, -EINVAL, "releases[%zu].nccl: expected an NCCL version like 2.28.7, "
				  "got \"%s\"", i, row->nccl);
	return 0;
}

int releases_parse(const char *text, size_t len, struct releases **ret, char *err, size_t errlen)
{
	struct releases *t = NULL;
	struct json *root = NULL;
	const struct json *rows;
	const char *schema;
	size_t n, i = 0;
	int r;

	r = json_parse(text, len, &root);
	if (r < 0)
		return errmsg_set(err, errlen, r, r == -ENOMEM ? "out of memory" : "not valid JSON");
	r = -EINVAL;
	if (json_type(root) != JSON_OBJECT) {
		errmsg_set(err, errlen, r, "expected a JSON object, got %s", json_type_name(json_type(root)));
		goto out;
	}
	schema = json_get_string(root, "schema");
	if (!schema || strcmp(schema, RELEASES_SCHEMA) != 0) {
		errmsg_set(err, errlen, r, "schema: expected \"%s\"", RELEASES_SCHEMA);
		goto out;
	}
	for (const struct json *m = json_first(root); m; m = json_next(m))
		if (strcmp(json_key(m), "schema") != 0 && strcmp(json_key(m), "releases") != 0) {
			errmsg_set(err, errlen, r, "unknown member \"%.64s\"", json_key(m));
			goto out;
		}
	rows = json_get(root, "releases");
	if (json_type(rows) != JSON_ARRAY) {
		errmsg_set(err, errlen, r, "releases: expected an array, got %s",
			   rows ? json_type_name(json_type(rows)) : "nothing");
		goto out;
	}
	n = json_size(rows);
	if (n == 0 || n > RELEASES_ROWS_MAX) {
		errmsg_set(err, errlen, r, "releases: %zu rows, expected 1 to %d", n, RELEASES_ROWS_MAX);
		goto out;
	}
	t = calloc(1, sizeof(*t));
	if (t)
		t->rows = calloc(n, sizeof(*t->rows));
	if (!t || !t->rows) {
		r = errmsg_set(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (const struct json *e = json_first(rows); e; e = json_next(e), i++) {
		r = releases_parse_row(e, i, &t->rows[i], err, errlen);
		t->n = i + 1;           /* what releases_rows_free() must free */
		if (r < 0)
			goto out;
		for (size_t j = 0; j < i; j++)
			if (t->rows[j].fabric == t->rows[i].fabric &&
			    imageref_version_equal(t->rows[j].installer, t->rows[i].installer)) {
				r = errmsg_set(err, errlen, -EINVAL, "releases[%zu]: %s installer %s is already listed in "
					       "releases[%zu]", i, releases_fabric_name(t->rows[i].fabric),
					       t->rows[i].installer, j);
				goto out;
			}
	}
	t->n = n;
	snprintf(t->source, sizeof(t->source), "file");
	*ret = t;
	t = NULL;
	r = 0;
out:
	if (t) {
		releases_rows_free(t->rows, t->n);
		free(t);
	}
	json_free(root);
	return r;
}

const struct releases_row *releases_find_installer(const struct releases *t, enum releases_fabric fabric,
						   const char *installer_tag)
{
	if (!t || !installer_tag || !*installer_tag)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].fabric == fabric && imageref_version_equal(t->rows[i].installer, installer_tag))
			return &t->rows[i];
	return NULL;
}

const char *releases_expected_daemon(const struct releases *t, enum releases_fabric fabric,
				     const char *installer_tag)
{
	const struct releases_row *row = releases_find_installer(t, fabric, installer_tag);

	return row ? row->daemon : NULL;
}

const char *releases_tag_by_digest(const struct releases *t, enum releases_component component,
				   const char *digest)
{
	if (!t || !digest || !*digest)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct releases_row *row = &t->rows[i];

		switch (component) {
		case RELEASES_INSTALLER:
			if (strcmp(row->installer_digest, digest) == 0)
				return row->installer;
			break;
		case RELEASES_DAEMON:
			if (strcmp(row->daemon_digest, digest) == 0)
				return row->daemon;
			break;
		}
	}
	return NULL;
}

const char *releases_daemon_digest(const struct releases *t, enum releases_fabric fabric, const char *daemon_tag)
{
	if (!t || !daemon_tag || !*daemon_tag)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].fabric == fabric && t->rows[i].daemon_digest[0] &&
		    imageref_version_equal(t->rows[i].daemon, daemon_tag))
			return t->rows[i].daemon_digest;
	return NULL;
}
