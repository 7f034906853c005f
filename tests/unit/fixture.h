/* fixture.h - read a file under fixtures/ for a unit test (tests run from the repo root, or $TOPDIR). */
#pragma once

#include <stdio.h>
#include <stdlib.h>

/* The whole of fixtures/@rel, NUL-terminated; fails the test when it cannot be read. Caller frees. */
static inline char *fixture_read(const char *rel, size_t *len)
{
	const char *top = getenv("TOPDIR");
	char path[4096];
	char *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/fixtures/%s", top ? top : ".", rel);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}
