/* finding.h - what one judgement found: status, message, remedy; the accumulator that builds one (pure). */
#pragma once

#include <stdbool.h>

#include "probes/model/strbuf.h"

enum check_status {
	CHECK_SKIP = 0,         /* not applicable or not observable; message says why */
	CHECK_PASS,
	CHECK_WARN,
	CHECK_FAIL,
};

const char *check_status_name(enum check_status s);    /* "skip", "pass", "warn", "fail" */

/*
 * What one judgement found: a node check's result (profile.checks[id]), a pod's finding
 * (attach_result.findings[id]), a runtime's finding (rtresult). The one result shape.
 */
struct finding {
	enum check_status status;
	char *message;          /* owned; never NULL after judging */
	char *remedy;           /* owned; NULL when there is nothing to do */
};

/**
 * finding_set() - set @f's status, remedy (copied; may be NULL) and formatted message; the old
 * ones are freed only once the new ones are made. Return: 0, or -ENOMEM with @f untouched.
 */
int finding_set(struct finding *f, enum check_status status, const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * finding_set_built() - finding_set() with the message built in @sb, which is freed either way.
 * Return: 0, or -ENOMEM (also when building @sb ran out of memory) with @f untouched.
 */
int finding_set_built(struct finding *f, enum check_status status, const char *remedy, struct strbuf *sb);

/*
 * A finding built from several observations: the worst status wins and its remedy with it;
 * messages are joined with "; ". finding_acc_finish() writes it into a finding (the pass or
 * skip message when nothing was added) and frees the accumulator.
 */
struct finding_acc {
	enum check_status status;       /* CHECK_PASS until something worse is added */
	struct strbuf msg;
	char *remedy;
	bool skip;                      /* finding_acc_skip() was called: nothing could be judged */
};

void finding_acc_add(struct finding_acc *a, enum check_status st, const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Record why something could not be judged; the finding is a skip unless something failed or warned. */
void finding_acc_skip(struct finding_acc *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * finding_acc_finish() - write @a into @f and free @a. A note added as a pass is the message; the
 * remedy is kept for a warning or a failure only.
 * @pass: the message when nothing was added (printf format, then its arguments).
 * Return: 0 or -ENOMEM.
 */
int finding_acc_finish(struct finding_acc *a, struct finding *f, const char *pass, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * finding_list_add() - the formatted item into the list @sb, after @sep when @sb holds text
 * already, counting it in *@n; past @max items it is only counted (the caller says how many more).
 */
void finding_list_add(struct strbuf *sb, size_t *n, size_t max, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Release what @f owns and zero it. */
void finding_free(struct finding *f);

/* Release what @a holds (after an error, instead of finding_acc_finish()). */
void finding_acc_free(struct finding_acc *a);

/*
 * NAME_OF() - the name of enum value @id in the designated-initializer table @names
 * ("unknown" out of range or unnamed): the one enum->name rule of report/.
 */
#define NAME_OF(names, id) \
	((size_t)(id) < sizeof(names) / sizeof((names)[0]) && (names)[(size_t)(id)] ? (names)[(size_t)(id)] : "unknown")
