/* check_pending.c - checks whose probes this version does not have yet: skip, saying so. */
#include "report/checks.h"

static int pending(struct check *c, const char *what)
{
	return check_set(c, CHECK_SKIP, NULL, "not observed by this version of tcpxo-agent (%s)", what);
}

int check_kube_enrich(const struct observation *o, struct profile *p)
{
	return 0;
}

int check_machine_type(const struct observation *o, struct profile *p, struct check *c)
{
	return pending(c, "needs the Kubernetes API probe");
}

int check_networks(const struct observation *o, struct profile *p, struct check *c)
{
	return pending(c, "needs the Kubernetes API probe");
}

int check_version_pair(const struct observation *o, struct profile *p, struct check *c)
{
	return pending(c, "needs the Kubernetes API probe");
}

