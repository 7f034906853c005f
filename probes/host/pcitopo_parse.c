/* pcitopo_parse.c - pure: the text of sysfs PCI names and attributes, strictly (BDF names, hex IDs, NUMA node). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/pcitopo_parse.h"

int pcitopo_parse_bdf(const char *s, struct pcitopo_name *ret)
{
	struct pcitopo_name n = { 0 };
	char canon[32];
	size_t len = strnlen(s, sizeof(canon));

	if (len < 12 || len >= OBS_BDF_MAX)
		return -EINVAL;
	if (sscanf(s, "%x:%x:%x.%x", &n.domain, &n.bus, &n.dev, &n.func) != 4)
		return -EINVAL;
	if (n.domain > 0xffffff || n.bus > 0xff || n.dev > 0x1f || n.func > 7)
		return -EINVAL;
	snprintf(canon, sizeof(canon), "%04x:%02x:%02x.%x", n.domain, n.bus, n.dev, n.func);
	if (strcmp(canon, s) != 0)
		return -EINVAL;
	memcpy(n.bdf, canon, len + 1);
	*ret = n;
	return 0;
}

int pcitopo_parse_hex(const char *buf, size_t len, unsigned digits, uint32_t *ret)
{
	uint32_t v = 0;
	size_t i = 0, n = 0;

	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len >= 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		i = 2;
	for (; i < len; i++, n++) {
		int c = (unsigned char)buf[i];

		if (!isxdigit(c) || n >= digits || digits > 8)
			return -EINVAL;
		v = v << 4 | (uint32_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	if (n == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

int pcitopo_parse_numa(const char *text)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || (*end && strcmp(end, "\n") != 0) || v < -1 || v > 4095)
		return -1;
	return (int)v;
}
