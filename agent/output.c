/* output.c - a command's report on stdout: its JSON text or its human text, flushed; one message per failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/output.h"

int output_json(const char *prog, const char *who, char *text)
{
	if (!text) {
		fprintf(stderr, "%s: %sout of memory while rendering JSON\n", prog, who);
		return -ENOMEM;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}

int output_flush(const char *prog, const char *who)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: %swriting the report failed: %s\n", prog, who, strerror(errno));
		return -EIO;
	}
	return 0;
}
