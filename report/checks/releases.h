/* releases.h - the installer <-> daemon release table: built-in, or loaded from a file. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/kube/imageref.h"

#define RELEASES_SCHEMA "fabric.aicr.run/releases/v1"
#define RELEASES_ROWS_MAX 256
#define RELEASES_FILE_MAX (256u << 10)  /* a release file larger than this is refused */
#define RELEASES_TAG_MAX 32            /* = sizeof(profile.installer) */
#define RELEASES_NCCL_MAX 16
#define RELEASES_FILES_MAX 32           /* files of one release's set */
#define RELEASES_FILE_NAME_MAX 64       /* bytes of one file name or pattern in a release's set */

/* Which fabric's images a row pairs: both use the same basenames, under another folder. */
enum releases_fabric {
	RELEASES_FABRIC_TCPXO = 0,      /* us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/ (A3 Mega) */
	RELEASES_FABRIC_TCPX,           /* us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/ (A3 High, A3 Edge) */
};

enum releases_component {
	RELEASES_INSTALLER = 0,         /* nccl-plugin-gpudirecttcpx-dev */
	RELEASES_DAEMON,                /* tcpgpudmarxd-dev */
};

struct releases_row {
	enum releases_fabric fabric;
	char date[11];                          /* "YYYY-MM-DD", "" when not dated */
	char installer[RELEASES_TAG_MAX];       /* tag as written, e.g. "v1.0.9-1" */
	char daemon[RELEASES_TAG_MAX];
	char installer_digest[IMAGEREF_DIGEST_MAX];     /* "sha256:...", "" unknown */
	char daemon_digest[IMAGEREF_DIGEST_MAX];
	char nccl[RELEASES_NCCL_MAX];           /* NCCL the installer writes ("2.28.7": libnccl.so.2.28.7), "" unknown */
	/*
	 * The other files the installer writes to lib64 (fnmatch patterns, install order), beside
	 * the NCCL library above; NULL when the release's set is not known (plugin-files then uses
	 * its generic list). Owned by the table.
	 */
	const char *const *files;
	size_t n_files;
	/*
	 * Where the row comes from (repository, path, commit); NULL for a file's rows (the table's
	 * source says which file). An unverified row could not be found in the source's history as
	 * stored: version-pair warns on it instead of passing.
	 */
	const char *source;
	bool unverified;
};

struct releases {
	struct releases_row *rows;
	size_t n;
	char source[256];               /* "built-in" or the file it came from */
};

/*
 * The table compiled in: Google's GPUDirect-TCPXO release notes (REFERENCE §4), the source-only
 * tags, the known digests, each release's NCCL and file set where sourced, and the TCPX pairs of
 * Google's GPUDirect-TCPX release notes (see releases.c for where each row comes from). Never freed.
 */
const struct releases *releases_builtin(void);

/* "tcpxo" / "tcpx". */
const char *releases_fabric_name(enum releases_fabric f);

/* For messages: "TCPXO" / "TCPX"; the names Google's manifests give the installer DaemonSet and daemon container. */
const char *releases_fabric_upper(enum releases_fabric f);
const char *releases_installer_name(enum releases_fabric f);
const char *releases_daemon_name(enum releases_fabric f);

/**
 * releases_parse() - parse a release file's text (docs/releases-format.md).
 * @ret: written on success; free with releases_free().
 * @err: when not NULL, @errlen bytes saying what is wrong (naming the field).
 *
 * Return: 0; -EINVAL for malformed JSON, another schema, a wrong type, a bad tag, digest,
 * fabric, NCCL version or file name, an installer listed twice for one fabric, or more than
 * RELEASES_ROWS_MAX rows; -ENOMEM.
 */
int releases_parse(const char *text, size_t len, struct releases **ret, char *err, size_t errlen);

/* Free a loaded table; NULL and the built-in table are ignored. */
void releases_free(struct releases *t);

/* The row of @fabric whose installer is @installer_tag (normalised comparison), or NULL. */
const struct releases_row *releases_find_installer(const struct releases *t, enum releases_fabric fabric,
						   const char *installer_tag);

/* The daemon tag (as written in the table) that pairs with @installer_tag of @fabric, or NULL. */
const char *releases_expected_daemon(const struct releases *t, enum releases_fabric fabric,
				     const char *installer_tag);

/* The tag of @component whose known digest is @digest ("sha256:..."), or NULL. */
const char *releases_tag_by_digest(const struct releases *t, enum releases_component component,
				   const char *digest);

/* The known digest ("sha256:...") of the daemon image @daemon_tag of @fabric, or NULL. */
const char *releases_daemon_digest(const struct releases *t, enum releases_fabric fabric, const char *daemon_tag);
