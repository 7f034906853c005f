/* finding.c - what one judgement found: setting a finding, building one from several observations. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/finding.h"

const char *check_status_name(enum check_status s)
{
	static const char *const names[] = { "skip", "pass", "warn", "fail" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "skip";
}

int finding_set(struct finding *f, enum check_status status, const char *remedy, const char *fmt, ...)
{
	char *msg, *rem = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = strbuf_vprintf(fmt, ap);
	va_end(ap);
	if (!msg || (remedy && !(rem = strdup(remedy)))) {
		free(msg);
		return -ENOMEM;
	}
	finding_free(f);
	*f = (struct finding){ .status = status, .message = msg, .remedy = rem };
	return 0;
}

int finding_set_built(struct finding *f, enum check_status status, const char *remedy, struct strbuf *sb)
{
	int r = sb->oom ? -ENOMEM : finding_set(f, status, remedy, "%s", sb->s ? sb->s : "");

	strbuf_free(sb);
	return r;
}

void finding_free(struct finding *f)
{
	free(f->message);
	free(f->remedy);
	*f = (struct finding){ 0 };
}

void finding_acc_add(struct finding_acc *a, enum check_status st, const char *remedy, const char *fmt, ...)
{
	va_list ap;

	if (a->msg.len)
		strbuf_append(&a->msg, "; ");
	va_start(ap, fmt);
	strbuf_vappendf(&a->msg, fmt, ap);
	va_end(ap);
	if (st > a->status || (st == a->status && !a->remedy)) {
		if (st > a->status || remedy) {
			free(a->remedy);
			a->remedy = NULL;
			if (remedy && !(a->remedy = strdup(remedy)))
				a->msg.oom = true;
		}
		a->status = st;
	}
}

void finding_acc_skip(struct finding_acc *a, const char *fmt, ...)
{
	va_list ap;

	a->skip = true;
	if (a->msg.len)
		strbuf_append(&a->msg, "; ");
	va_start(ap, fmt);
	strbuf_vappendf(&a->msg, fmt, ap);
	va_end(ap);
}

int finding_acc_finish(struct finding_acc *a, struct finding *f, const char *pass, ...)
{
	enum check_status st = a->status;
	char *msg = NULL;
	va_list ap;
	int r = -ENOMEM;

	if (a->msg.oom)
		goto out;
	if (a->msg.len) {
		msg = strbuf_take(&a->msg);
	} else {
		va_start(ap, pass);
		msg = strbuf_vprintf(pass, ap);
		va_end(ap);
	}
	if (!msg)
		goto out;
	/* Nothing worse than a note: a pass, unless something could not be judged (a skip). */
	if (st <= CHECK_PASS)
		st = a->skip ? CHECK_SKIP : CHECK_PASS;
	finding_free(f);
	*f = (struct finding){ .status = st, .message = msg, .remedy = st >= CHECK_WARN ? a->remedy : NULL };
	if (st >= CHECK_WARN)
		a->remedy = NULL;
	msg = NULL;
	r = 0;
out:
	free(msg);
	finding_acc_free(a);
	return r;
}

void finding_list_add(struct strbuf *sb, size_t *n, size_t max, const char *sep, const char *fmt, ...)
{
	va_list ap;

	if ((*n)++ >= max)
		return;
	strbuf_append(sb, sb->len ? sep : "");
	va_start(ap, fmt);
	strbuf_vappendf(sb, fmt, ap);
	va_end(ap);
}

void finding_acc_free(struct finding_acc *a)
{
	strbuf_free(&a->msg);
	free(a->remedy);
	*a = (struct finding_acc){ 0 };
}
