/* bar4.c - decode an LLCM aperture's BAR4 and sysfs id files (pure, no I/O). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "probes/host/bar4.h"
#include "probes/host/pcitopo_parse.h"

int bar4_parse(const uint8_t *buf, size_t len, uint32_t *ret_ipv4)
{
	uint32_t host;

	if (len == 0)
		return -ENODATA;
	if (len < sizeof(host))
		return -EBADMSG;
	memcpy(&host, buf, sizeof(host));
	*ret_ipv4 = htonl(host);
	return 0;
}

int bar4_parse_id(const char *buf, size_t len, uint16_t *ret)
{
	uint32_t v;

	while (len > 0 && isspace((unsigned char)buf[len - 1]))
		len--;
	if (pcitopo_parse_hex(buf, len, 4, &v) < 0)
		return -EINVAL;
	*ret = (uint16_t)v;
	return 0;
}

int bar4_parse_ipv4_text(const char *text, uint32_t *ret_ipv4)
{
	char a[INET_ADDRSTRLEN];
	const char *slash;
	size_t n;
	struct in_addr in;

	if (!text)
		return -EINVAL;
	slash = strchr(text, '/');
	n = slash ? (size_t)(slash - text) : strlen(text);
	if (n == 0 || n >= sizeof(a))
		return -EINVAL;
	memcpy(a, text, n);
	a[n] = '\0';
	if (inet_pton(AF_INET, a, &in) != 1)
		return -EINVAL;
	*ret_ipv4 = in.s_addr;
	return 0;
}
