/* bar4.h - decode an LLCM aperture's BAR4 (the IPv4 of the NIC it serves) and sysfs id files. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define BAR4_MAP_LEN 16         /* the plugin maps the first 16 bytes of resource4 */

/**
 * bar4_parse() - the IPv4 address held in the first bytes of a resource4 file.
 * @buf, @len: bytes read from the file (not NUL-terminated).
 * @ret_ipv4: written on success, network byte order.
 *
 * The device stores the address as a 32-bit number in host byte order (on x86 198.18.1.2 is
 * the bytes 02 01 12 c6), which is what the plugin compares.
 *
 * Return: 0; -ENODATA for 0 bytes; -EBADMSG for 1..3 bytes.
 */
int bar4_parse(const uint8_t *buf, size_t len, uint32_t *ret_ipv4);

/**
 * bar4_parse_id() - a sysfs vendor/device file ("0x1ae0\n").
 * @ret: written on success.
 *
 * Return: 0, or -EINVAL when the text is not one 16-bit hex number.
 */
int bar4_parse_id(const char *buf, size_t len, uint16_t *ret);

/**
 * bar4_parse_ipv4_text() - the address of a NIC row's "a.b.c.d/nn" (or bare "a.b.c.d").
 * @ret_ipv4: written on success, network byte order.
 *
 * Return: 0, or -EINVAL (empty text means unknown and is -EINVAL too).
 */
int bar4_parse_ipv4_text(const char *text, uint32_t *ret_ipv4);
