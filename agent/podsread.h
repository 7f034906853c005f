/* podsread.h - the pods a workloads command judges: read (--pods-file or the cluster), the unreadable ones named, the verdicts printed. */
#pragma once

#include "agent/cli.h"
#include "agent/kubesrc.h"
#include "probes/model/obs_kube.h"
#include "report/checks/workloads.h"

/**
 * podsread() - the pods bound to @node into @k: opt->pods_file (a PodList, or kubectl's List;
 * "-" for standard input) when given, else the cluster's through @src (NULL: files only).
 * On failure prints one line "PROG: workloads: ..." naming the file or the call.
 * Return: 0 (k->pods_fetch OK, k->configured); -errno.
 */
int podsread(const struct cli_options *opt, struct kubesrc *src, const char *node, struct obs_kube *k);

/* podsread_aside() - the pods that could not be read, set aside and not judged: named on stderr, one a line. */
void podsread_aside(const struct cli_options *opt, const struct obs_kube *k);

/* podsread_print() - the judged pods of @node on stdout as opt->output says (the table, or JSON). Return: 0; -errno (said). */
int podsread_print(const struct cli_options *opt, const struct workloads *w, const char *node);
