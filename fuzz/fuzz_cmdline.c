/* fuzz_cmdline.c - /proc/<pid>/cmdline bytes: split, classify, daemon findings (both fabrics), format. */
#include <stdlib.h>

#include "fuzz/fuzz.h"
#include "probes/host/cmdline.h"

#define FUZZ_CMDLINE_ARGS 64    /* as small as a caller may choose, to reach truncation */

int fuzz_one(const uint8_t *data, size_t size)
{
	struct cmdline_findings f = { 0 };
	struct strbuf out = { 0 };
	bool truncated = false;
	char **argv = NULL;
	size_t argc = 0;

	if (cmdline_split((const char *)data, size, FUZZ_CMDLINE_ARGS, &argv, &argc, &truncated) < 0)
		return 0;
	if (argc) {
		cmdline_comm_candidate(argv[0]);
		cmdline_daemon_name(cmdline_daemon_kind(argv[0], (const char *const *)argv, argc));
	}
	/* Both fabrics, a version at the v1.0.18 boundary and an unknown one. */
	cmdline_daemon_findings((const char *const *)argv, argc, CMDLINE_FABRIC_TCPXO, "v1.0.18", &f);
	cmdline_daemon_findings((const char *const *)argv, argc, CMDLINE_FABRIC_TCPXO, NULL, &f);
	cmdline_daemon_findings((const char *const *)argv, argc, CMDLINE_FABRIC_TCPX, argc ? argv[0] : NULL, &f);
	cmdline_findings_worst(&f);
	cmdline_findings_join(&f, CMDLINE_SEVERITY_WARN, &out);
	cmdline_findings_free(&f);
	cmdline_format((const char *const *)argv, argc, 200, &out);
	strbuf_free(&out);
	strbuf_strv_free(argv, argc);
	return 0;
}
