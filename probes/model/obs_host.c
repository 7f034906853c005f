/* obs_host.c - lifetime and formatting helpers of the host part of the observation. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/obs_host.h"
#include "probes/model/strbuf.h"

void obs_host_procs_free(struct obs_procs *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		strbuf_strv_free(p->v[i].argv, p->v[i].argc);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

void obs_host_nvpath_free(struct obs_nvpath *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_lib64; i++)
		free(n->lib64[i].name);
	free(n->lib64);
	n->lib64 = NULL;
	n->n_lib64 = 0;
}

void obs_host_free(struct obs_host *h)
{
	if (!h)
		return;
	free(h->aperture.v);
	free(h->devnodes.v);
	obs_host_nvpath_free(&h->nvpath);
	obs_host_procs_free(&h->procs);
	memset(h, 0, sizeof(*h));
}

void obs_host_quote(const char *s, char *buf, size_t len)
{
	static const char dots[] = "...";
	bool quote = false;
	size_t o = 0;

	if (len == 0)
		return;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\')
			quote = true;
	/* Reserve room for the closing quote, "..." and NUL so truncation stays readable. */
	if (len < sizeof(dots) + 3) {
		buf[0] = '\0';
		return;
	}
	size_t limit = len - sizeof(dots) - 2;
	if (quote)
		buf[o++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		static const char from[] = "\n\t\r\"\\", to[] = "ntr\"\\";
		const char *e = strchr(from, *p);
		char esc[5] = { '\\', e ? to[e - from] : 0 };
		size_t n = 2;

		if (!e && (*p < ' ' || *p >= 0x7f)) {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			n = 4;
		} else if (!e) {
			esc[0] = (char)*p;
			n = 1;
		}
		if (o + n > limit) {
			memcpy(buf + o, dots, sizeof(dots) - 1);
			o += sizeof(dots) - 1;
			break;
		}
		memcpy(buf + o, esc, n);
		o += n;
	}
	if (quote)
		buf[o++] = '"';
	buf[o] = '\0';
}

const char *obs_file_type_name(enum obs_file_type t)
{
	switch (t) {
	case OBS_FILE_ABSENT: return "missing";
	case OBS_FILE_REGULAR: return "a regular file";
	case OBS_FILE_DIR: return "a directory";
	case OBS_FILE_CHAR: return "a character device";
	case OBS_FILE_BLOCK: return "a block device";
	case OBS_FILE_SYMLINK: return "a symbolic link";
	case OBS_FILE_OTHER: return "a fifo or socket";
	case OBS_FILE_BROKEN: return "a dangling or looping link";
	case OBS_FILE_ERROR: return "unreadable";
	}
	return "unknown";
}

const struct obs_aperture_entry *obs_aperture_find(const struct obs_aperture *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, name) == 0)
			return &a->v[i];
	return NULL;
}
