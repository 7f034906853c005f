/* nodesread.h - the NodeList a fleet command reads (--nodes-file or the API, page by page) into a coherence. */
#pragma once

#include "agent/cli.h"
#include "report/fleet/coherence.h"

/* How one command words its messages on stderr: "tcpxo-agent: CMD: ...". */
struct nodesread_words {
	const char *cmd;         /* the command's name: "status" */
	const char *file_label;  /* before the file's name in a file's error: "--nodes-file " or "" */
	const char *noapi_hint;  /* after the advice to use --nodes-file when no API is configured, or "" */
};

/*
 * Read opt->nodes_file, or else every page of the API's Node list (opt->selector), into c; a
 * restarted listing resets c. On failure prints one line to stderr prefixed with the command's
 * name and returns a negative errno; 0 on success.
 */
int nodesread(const struct cli_options *opt, struct coherence *c, const struct nodesread_words *w);
