/* token.c - the API bearer token file: read bounded and non-blocking, re-read when it changes, never logged. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/kube/token.h"
#include "probes/model/fdread.h"

/*
 * Pure: the token from the bytes of a token file. Trailing whitespace (the newline editors and
 * `kubectl create token > f` leave) is stripped; anything else outside visible ASCII would
 * corrupt the header and is refused.
 */
int token_parse(const char *buf, size_t len, char **ret)
{
	char *t;

	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' ||
			   buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	if (len == 0)
		return -ENODATA;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] <= ' ' || (unsigned char)buf[i] >= 0x7f)
			return -EBADMSG;
	t = malloc(len + 1);
	if (!t)
		return -ENOMEM;
	memcpy(t, buf, len);
	t[len] = '\0';
	*ret = t;
	return 0;
}

static bool token_same_file(const struct token *t, const struct stat *st)
{
	return t->value && st->st_dev == t->dev && st->st_ino == t->ino && st->st_size == t->size &&
	       st->st_mtim.tv_sec == t->mtime.tv_sec && st->st_mtim.tv_nsec == t->mtime.tv_nsec;
}

int token_refresh(struct token *t, bool force, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL, *tok = NULL;
	size_t len = 0;
	int fd = -1, r;

	if (stat(t->path, &st) < 0) {
		r = -errno;
		if (t->value)
			return 0;
		snprintf(err, errlen, "token file %s: %s", t->path, strerror(-r));
		return r;
	}
	if (!force && token_same_file(t, &st))
		return 0;

	/* The type before the open: a fifo would block the read forever (and non-blocking anyway). */
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto fail;
	}
	fd = open(t->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto fail;
	}
	buf = malloc(TOKEN_MAX + 1);
	if (!buf) {
		r = -ENOMEM;
		goto fail;
	}
	if ((r = fdread_fill(fd, buf, TOKEN_MAX + 1, 0, &len)) < 0)
		goto fail;
	if (len > TOKEN_MAX) {
		r = -EFBIG;
		goto fail;
	}
	r = token_parse(buf, len, &tok);
	if (r == 0) {
		if (t->value)
			explicit_bzero(t->value, t->len);
		free(t->value);
		t->value = tok;
		t->len = strlen(tok);
		t->dev = st.st_dev;
		t->ino = st.st_ino;
		t->size = st.st_size;
		t->mtime = st.st_mtim;
	}
fail:
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
	if (fd >= 0)
		close(fd);
	if (r == 0 || (t->value && r != -ENOMEM))
		return 0;
	snprintf(err, errlen, "token file %s: %s", t->path,
		 r == -EFBIG ? "larger than 64 KiB" :
		 r == -ENODATA ? "empty" :
		 r == -EBADMSG ? "contains characters a bearer token cannot hold" :
		 r == -EINVAL ? "not a regular file" : strerror(-r));
	return r == -ENODATA || r == -EBADMSG ? -EINVAL : r;
}

int token_init(struct token *t, const char *path)
{
	*t = (struct token){ 0 };
	t->path = strdup(path);
	return t->path ? 0 : -ENOMEM;
}

void token_clear(struct token *t)
{
	if (!t)
		return;
	if (t->value)
		explicit_bzero(t->value, t->len);
	free(t->value);
	free(t->path);
	*t = (struct token){ 0 };
}
