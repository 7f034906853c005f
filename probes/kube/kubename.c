/* kubename.c - pure: whether a text is a Kubernetes object name (a DNS subdomain). */
#include <stddef.h>

#include "probes/kube/kubename.h"

static bool kubename_label_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
}

bool kubename_valid(const char *name)
{
	size_t label = 0, n = 0;
	char prev = '.';

	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++, n++) {
		if (n >= KUBENAME_MAX)
			return false;
		if (*p == '.') {
			if (label == 0 || prev == '-')
				return false;
			label = 0;
		} else if (kubename_label_char(*p)) {
			if (label == 0 && *p == '-')
				return false;
			if (++label > 63)
				return false;
		} else {
			return false;
		}
		prev = *p;
	}
	return prev != '.' && prev != '-';
}
