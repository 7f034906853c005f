/* test_bar4.c - BAR4 address, sysfs id and NIC address text parsing. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "probes/host/bar4.h"

static void test_bar4_host_order(void **state)
{
	/* The device stores the address as a host-order uint32: on x86 198.18.1.2 is 02 01 12 c6. */
	uint32_t host = 0xc6120102, ip = 0;
	uint8_t buf[BAR4_MAP_LEN] = {0};
	char text[INET_ADDRSTRLEN];

	memcpy(buf, &host, sizeof(host));
	memset(buf + 4, 0xee, sizeof(buf) - 4);         /* bytes past the address are ignored */
	assert_int_equal(bar4_parse(buf, sizeof(buf), &ip), 0);
	inet_ntop(AF_INET, &ip, text, sizeof(text));
	assert_string_equal(text, "198.18.1.2");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint8_t x86[] = { 0x02, 0x01, 0x12, 0xc6 };

	assert_int_equal(bar4_parse(x86, sizeof(x86), &ip), 0);
	inet_ntop(AF_INET, &ip, text, sizeof(text));
	assert_string_equal(text, "198.18.1.2");
#endif
}

static void test_bar4_short(void **state)
{
	const uint8_t b[3] = { 1, 2, 3 };
	uint32_t ip = 0x12345678;

	assert_int_equal(bar4_parse(b, 0, &ip), -ENODATA);
	assert_int_equal(bar4_parse(b, 3, &ip), -EBADMSG);
	assert_int_equal(bar4_parse(b, 1, &ip), -EBADMSG);
	assert_int_equal(ip, 0x12345678);               /* untouched on failure */
}

static void test_bar4_id(void **state)
{
	uint16_t v = 7;

	assert_int_equal(bar4_parse_id("0x1ae0\n", 7, &v), 0);
	assert_int_equal(v, 0x1ae0);
	assert_int_equal(bar4_parse_id("0084", 4, &v), 0);
	assert_int_equal(v, 0x84);
	assert_int_equal(bar4_parse_id("0X10DE", 6, &v), 0);
	assert_int_equal(v, 0x10de);
	v = 7;
	assert_int_equal(bar4_parse_id("", 0, &v), -EINVAL);
	assert_int_equal(bar4_parse_id("0x", 2, &v), -EINVAL);
	assert_int_equal(bar4_parse_id("0x1ae00", 7, &v), -EINVAL);
	assert_int_equal(bar4_parse_id("zz", 2, &v), -EINVAL);
	assert_int_equal(bar4_parse_id("0x1a e0", 7, &v), -EINVAL);
	assert_int_equal(bar4_parse_id("0x1ae0\0", 7, &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void test_bar4_ipv4_text(void **state)
{
	uint32_t ip = 0;

	assert_int_equal(bar4_parse_ipv4_text("10.0.16.3/32", &ip), 0);
	assert_int_equal(ip, inet_addr("10.0.16.3"));
	assert_int_equal(bar4_parse_ipv4_text("198.18.1.2", &ip), 0);
	assert_int_equal(ip, inet_addr("198.18.1.2"));
	assert_int_equal(bar4_parse_ipv4_text("", &ip), -EINVAL);
	assert_int_equal(bar4_parse_ipv4_text(NULL, &ip), -EINVAL);
	assert_int_equal(bar4_parse_ipv4_text("/32", &ip), -EINVAL);
	assert_int_equal(bar4_parse_ipv4_text("300.0.0.1/32", &ip), -EINVAL);
	assert_int_equal(bar4_parse_ipv4_text("10.0.16.3.4.5.6.7.8.9/32", &ip), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar4_host_order),
		cmocka_unit_test(test_bar4_short),
		cmocka_unit_test(test_bar4_id),
		cmocka_unit_test(test_bar4_ipv4_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
