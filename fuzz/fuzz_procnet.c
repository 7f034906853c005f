/* fuzz_procnet.c - /proc/<pid>/net/{unix,udp,dev}: the first byte picks the format (and whether the read was cut), the rest is the file. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/host/procnet.h"

static void fuzz_procnet_check_rails(const struct procnet_unix *u)
{
	if (u->n_rails > OBS_TRANSPORT_RAILS_MAX || u->listeners + u->clients > u->sockets)
		abort();
	for (size_t i = 0; i < u->n_rails; i++) {
		unsigned char bin[16];

		/* Every rail kept is a distinct address, NUL-terminated, that reads back as one. */
		if (!memchr(u->rails[i], '\0', OBS_TRANSPORT_ADDR_MAX) || !u->rails[i][0])
			abort();
		if (i && strcmp(u->rails[i - 1], u->rails[i]) == 0)
			abort();
		if (inet_pton(AF_INET, u->rails[i], bin) != 1 && inet_pton(AF_INET6, u->rails[i], bin) != 1)
			abort();
	}
	if (u->n_rails < OBS_TRANSPORT_RAILS_MAX && u->n_rails_dropped)
		abort();
}

int fuzz_one(const uint8_t *data, size_t size)
{
	char err[256];
	bool cut;

	if (!size)
		return 0;
	cut = data[0] & 0x80;
	switch (data[0] & 0x7f) {
	case 0: {
		struct procnet_unix u;

		if (procnet_unix_parse((const char *)data + 1, size - 1, cut, &u, err, sizeof(err)) == 0)
			fuzz_procnet_check_rails(&u);
		break;
	}
	case 1: {
		struct procnet_udp u;

		if (procnet_udp_parse((const char *)data + 1, size - 1, cut, &u, err, sizeof(err)) == 0 &&
		    u.flows > u.sockets)
			abort();
		break;
	}
	case 2: {
		struct procnet_dev *d = malloc(sizeof(*d));

		if (!d)
			return 0;
		if (procnet_dev_parse((const char *)data + 1, size - 1, cut, d, err, sizeof(err)) == 0) {
			if (d->n > OBS_TRANSPORT_DEVS_MAX)
				abort();
			for (size_t i = 1; i < d->n; i++)
				if (strcmp(d->v[i - 1].name, d->v[i].name) >= 0)
					abort();        /* sorted, distinct */
		}
		free(d);
		break;
	}
	default: {
		/* The bytes as the path of one accepted client's line: a rail only when they name one. */
		size_t cap = size + 160;
		char *t = malloc(cap);
		struct procnet_unix u;
		int n;

		if (!t)
			return 0;
		n = snprintf(t, cap, "Num       RefCount Protocol Flags    Type St Inode Path\n"
			     "0000000000000000: 00000002 00000000 00000000 0001 03 12345 %.*s\n", (int)(size - 1),
			     (const char *)data + 1);
		if (n > 0 && procnet_unix_parse(t, (size_t)n, cut, &u, err, sizeof(err)) == 0)
			fuzz_procnet_check_rails(&u);
		free(t);
		break;
	}
	}
	return 0;
}
