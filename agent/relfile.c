/* relfile.c - the --releases file: read bounded, parsed into the release table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/infile.h"
#include "agent/relfile.h"
#include "probes/model/errmsg.h"

int relfile_load(const char *path, struct releases **ret, char **ret_text, size_t *ret_len, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	err[0] = '\0';
	r = infile_read(path, RELEASES_FILE_MAX, 0, &text, &len, err, errlen);
	if (r >= 0)
		r = releases_parse(text, len, ret, err, errlen);
	if (r >= 0) {
		snprintf((*ret)->source, sizeof((*ret)->source), "%s", path);
		if (ret_text) {
			*ret_text = text;
			*ret_len = len;
			text = NULL;
		}
	} else if (!err[0]) {
		errmsg_set(err, errlen, r, "%s", strerror(-r));
	}
	free(text);
	return r;
}
