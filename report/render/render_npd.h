/* render_npd.h - pure: --once's one line for a node-problem-detector custom plugin. */
#pragma once

#include "probes/model/strbuf.h"
#include "report/checks/profile.h"

/*
 * NPD keeps a custom plugin's stdout trimmed and cut to its max_output_length (80 bytes by
 * default, pkg/custompluginmonitor/plugin/plugin.go) as the condition's message.
 */
#define RENDER_NPD_MAX 80

/**
 * render_npd() - the line node-problem-detector keeps: the verdict and the first failed check as
 * @p's summary says them ("tcpxo: not ready: links: eth3 is down (admin down)"), or "tcpxo:
 * unknown: WHY" when @unknown_why is set (a verdict the exit code cannot stand by: the API facts
 * not read, a publish asked for that failed). Control characters as '?', at most RENDER_NPD_MAX
 * bytes (cut on a UTF-8 boundary, ending in "…"), then one newline.
 * Return: 0; -ENOMEM.
 */
int render_npd(const struct profile *p, const char *unknown_why, struct strbuf *out);
