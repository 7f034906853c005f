/* observation.c - lifetime and lookups of the observation model. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/observation.h"

void probe_status_fail(struct probe_status *s, int err, const char *fmt, ...)
{
	va_list ap;

	s->state = PROBE_FAILED;
	s->err = err;
	va_start(ap, fmt);
	vsnprintf(s->message, sizeof(s->message), fmt, ap);
	va_end(ap);
}

void obs_ipv4_format(uint32_t addr, int prefix, char *buf, size_t len)
{
	char a[INET_ADDRSTRLEN];
	struct in_addr in = { .s_addr = addr };

	inet_ntop(AF_INET, &in, a, sizeof(a));
	if (prefix >= 0)
		snprintf(buf, len, "%s/%d", a, prefix);
	else
		snprintf(buf, len, "%s", a);
}

const struct obs_link *observation_link_find(const struct observation *o, const char *name)
{
	return obs_find(o->links.v, o->links.n, sizeof(*o->links.v), offsetof(struct obs_link, name), false, name);
}

const struct obs_link_flap *observation_flap_find(const struct observation *o, const char *name)
{
	return obs_find(o->flaps.v, o->flaps.n < OBS_FLAPS_MAX ? o->flaps.n : OBS_FLAPS_MAX, sizeof(*o->flaps.v),
			offsetof(struct obs_link_flap, name), false, name);
}

const struct obs_pci_func *observation_pci_find(const struct observation *o, const char *bdf)
{
	return obs_find(o->pci.v, o->pci.n, sizeof(*o->pci.v), offsetof(struct obs_pci_func, bdf), false, bdf);
}

const char *link_oper_name(enum link_oper op)
{
	switch (op) {
	case LINK_OPER_UNKNOWN: return "unknown";
	case LINK_OPER_UP: return "up";
	case LINK_OPER_DOWN: return "down";
	case LINK_OPER_LOWERLAYERDOWN: return "lowerlayerdown";
	case LINK_OPER_DORMANT: return "dormant";
	case LINK_OPER_NOTPRESENT: return "notpresent";
	case LINK_OPER_TESTING: return "testing";
	}
	return "unknown";
}

void observation_free(struct observation *o)
{
	if (!o)
		return;
	free(o->links.v);
	o->links.v = NULL;
	o->links.n = 0;
	free(o->pci.v);
	o->pci.v = NULL;
	o->pci.n = 0;
	obs_host_free(&o->host);
	obs_transport_free(&o->transport);
}
