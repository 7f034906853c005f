/* fuzz_releases.c - a --releases table file: parse, then look every row up. */
#include <string.h>

#include "fuzz/fuzz.h"
#include "report/checks/releases.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	struct releases *t = NULL;
	char err[256];

	if (releases_parse((const char *)data, size, &t, err, sizeof(err)) < 0)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		releases_find_installer(t, t->rows[i].fabric, t->rows[i].installer);
		releases_expected_daemon(t, RELEASES_FABRIC_TCPX, t->rows[i].installer);
		for (size_t k = 0; k < t->rows[i].n_files; k++)
			if (!t->rows[i].files[k][0])
				__builtin_trap();       /* every entry was validated non-empty */
		releases_tag_by_digest(t, RELEASES_INSTALLER, t->rows[i].installer_digest);
		releases_tag_by_digest(t, RELEASES_DAEMON, t->rows[i].daemon_digest);
	}
	releases_free(t);
	return 0;
}
