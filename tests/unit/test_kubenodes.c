/* test_kubenodes.c - paging of GET /api/v1/nodes against a scripted http_request(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/kubenodes.h"
#include "probes/model/errmsg.h"

/*
 * The fake client: this file defines the two http_* calls kubenodes.o makes, so the linker never
 * pulls report/http.o (libcurl) in. Each scripted answer is (return code, status, body).
 */
struct answer {
	int r;
	long status;
	const char *body;
	const char *error;
};

static const struct answer *script;
static size_t n_script, next_answer;
static char requests[16][256];
static size_t n_requests;

int http_request(struct http_client *c, const char *method, const char *path,
		 const char *content_type, const char *body, struct http_response *resp)
{
	const struct answer *a;

	assert_string_equal(method, "GET");
	assert_null(body);
	assert_true(n_requests < 16 && next_answer < n_script);
	snprintf(requests[n_requests++], sizeof(requests[0]), "%s", path);
	a = &script[next_answer++];
	memset(resp, 0, sizeof(*resp));
	resp->status = a->status;
	resp->attempts = 1;
	if (a->body) {
		resp->body = strdup(a->body);
		resp->len = strlen(a->body);
	}
	if (a->error)
		snprintf(resp->error, sizeof(resp->error), "%s", a->error);
	return a->r;
}

void http_response_free(struct http_response *r)
{
	free(r->body);
	r->body = NULL;
}

/* The sink: a body is "<next token>" ("" on the last page, "!" to refuse the page). */
struct pages {
	size_t taken, restarts;
};

static int sink_page(void *userdata, const char *body, size_t len, char **ret_continue, char *err, size_t errlen)
{
	struct pages *p = userdata;

	if (strcmp(body, "!") == 0)
		return errmsg_set(err, errlen, -EINVAL, "not a NodeList");
	p->taken++;
	*ret_continue = *body ? strdup(body) : NULL;
	return 0;
}

static void sink_restart(void *userdata)
{
	struct pages *p = userdata;

	p->taken = 0;
	p->restarts++;
}

static int run(const struct answer *a, size_t n, const char *selector, struct pages *p, char *err, size_t errlen)
{
	struct kubenodes_sink sink = { sink_page, sink_restart, p };
	int r;

	script = a;
	n_script = n;
	next_answer = n_requests = 0;
	*p = (struct pages){ 0 };
	snprintf(err, errlen, "%s", "");
	r = kubenodes_list(NULL, selector, &sink, err, errlen);
	if (r >= 0)
		assert_string_equal(err, "");           /* written only on failure */
	assert_int_equal(next_answer, n);       /* no request more or less than scripted */
	return r;
}

static void test_path(void **state)
{
	char *p = NULL;

	assert_int_equal(kubenodes_path(NULL, NULL, 500, &p), 0);
	assert_string_equal(p, "/api/v1/nodes?limit=500");
	free(p);
	assert_int_equal(kubenodes_path("cloud.google.com/gke-nodepool in (a3mega,b),!x", "eyJ2Ijoi+/=", 250, &p), 0);
	assert_string_equal(p, "/api/v1/nodes?limit=250"
			    "&labelSelector=cloud.google.com%2Fgke-nodepool%20in%20%28a3mega%2Cb%29%2C%21x"
			    "&continue=eyJ2Ijoi%2B%2F%3D");
	free(p);
	assert_int_equal(kubenodes_path("", "", 16, &p), 0);
	assert_string_equal(p, "/api/v1/nodes?limit=16");
	free(p);
	/* RFC 3986's unreserved characters stay, every other byte (high ones too) becomes %XX. */
	assert_int_equal(kubenodes_path("a=b,c!=d,!e,k8s.io/x~_-.", "\xff &", 1, &p), 0);
	assert_string_equal(p, "/api/v1/nodes?limit=1&labelSelector=a%3Db%2Cc%21%3Dd%2C%21e%2Ck8s.io%2Fx~_-."
			    "&continue=%FF%20%26");
	free(p);
}

static void test_pages(void **state)
{
	const struct answer a[] = { { 0, 200, "t1", NULL }, { 0, 200, "t/2", NULL }, { 0, 200, "", NULL } };
	struct pages p;
	char err[256];

	assert_int_equal(run(a, 3, "k=v", &p, err, sizeof(err)), 0);
	assert_int_equal(p.taken, 3);
	assert_string_equal(requests[0], "/api/v1/nodes?limit=500&labelSelector=k%3Dv");
	assert_string_equal(requests[1], "/api/v1/nodes?limit=500&labelSelector=k%3Dv&continue=t1");
	assert_string_equal(requests[2], "/api/v1/nodes?limit=500&labelSelector=k%3Dv&continue=t%2F2");
}

static void test_gone_restarts_once(void **state)
{
	const struct answer once[] = { { 0, 200, "t1", NULL }, { -EIO, 410, NULL, "HTTP 410 Gone" },
				       { 0, 200, "u1", NULL }, { 0, 200, "", NULL } };
	const struct answer twice[] = { { 0, 200, "t1", NULL }, { -EIO, 410, NULL, NULL }, { 0, 200, "u1", NULL },
					{ -EIO, 410, NULL, "HTTP 410 Gone" } };
	const struct answer first[] = { { -EIO, 410, NULL, NULL } };
	struct pages p;
	char err[256];

	assert_int_equal(run(once, 4, NULL, &p, err, sizeof(err)), 0);
	assert_int_equal(p.restarts, 1);
	assert_int_equal(p.taken, 2);
	assert_string_equal(requests[2], "/api/v1/nodes?limit=500");
	assert_string_equal(requests[3], "/api/v1/nodes?limit=500&continue=u1");

	assert_int_equal(run(twice, 4, NULL, &p, err, sizeof(err)), -EIO);
	assert_int_equal(p.restarts, 1);
	assert_string_equal(err, "HTTP 410 Gone");

	assert_int_equal(run(first, 1, NULL, &p, err, sizeof(err)), -EIO);
	assert_int_equal(p.restarts, 0);
	assert_string_equal(err, "GET /api/v1/nodes: HTTP 410");
}

static void test_too_big_halves(void **state)
{
	const struct answer a[] = { { 0, 200, "t1", NULL }, { -EFBIG, 200, NULL, NULL }, { -EFBIG, 200, NULL, NULL }, { 0, 200, "", NULL } };
	struct answer never[8];
	struct pages p;
	char err[256];

	assert_int_equal(run(a, 4, NULL, &p, err, sizeof(err)), 0);
	assert_string_equal(requests[1], "/api/v1/nodes?limit=500&continue=t1");
	assert_string_equal(requests[2], "/api/v1/nodes?limit=250&continue=t1");
	assert_string_equal(requests[3], "/api/v1/nodes?limit=125&continue=t1");

	/* 500, 250, 125, 62, 31, 15 < 16: gives up after the 31-node page. */
	for (int i = 0; i < 5; i++)
		never[i] = (struct answer){ -EFBIG, 200, NULL, NULL };
	assert_int_equal(run(never, 5, NULL, &p, err, sizeof(err)), -EFBIG);
	assert_string_equal(err, "GET /api/v1/nodes: a page of 31 nodes is larger than 8388608 bytes");
}

static void test_errors(void **state)
{
	const struct answer forbidden[] = { { -EIO, 403, "{\"kind\":\"Status\"}", "HTTP 403 Forbidden" } };
	const struct answer refused[] = { { -ECONNREFUSED, 0, NULL, "connect to 127.0.0.1 port 1: refused" } };
	const struct answer refused2[] = { { -ECONNREFUSED, 0, NULL, NULL } };
	const struct answer bad[] = { { 0, 200, "t1", NULL }, { 0, 200, "!", NULL } };
	const struct answer loop[] = { { 0, 200, "t1", NULL }, { 0, 200, "t1", NULL } };
	const struct answer empty[] = { { 0, 200, NULL, NULL } };
	struct pages p;
	char err[256];

	assert_int_equal(run(forbidden, 1, NULL, &p, err, sizeof(err)), -EIO);
	assert_string_equal(err, "HTTP 403 Forbidden (the credentials need get and list on nodes)");
	assert_int_equal(run(refused, 1, NULL, &p, err, sizeof(err)), -ECONNREFUSED);
	assert_string_equal(err, "connect to 127.0.0.1 port 1: refused");
	assert_int_equal(run(refused2, 1, NULL, &p, err, sizeof(err)), -ECONNREFUSED);
	assert_string_equal(err, "GET /api/v1/nodes: Connection refused");
	assert_int_equal(run(bad, 2, NULL, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "GET /api/v1/nodes: page 2: not a NodeList");
	assert_int_equal(run(loop, 2, NULL, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "GET /api/v1/nodes: the server returned the same continue token twice");
	assert_int_equal(run(empty, 1, NULL, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "GET /api/v1/nodes: empty response");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_gone_restarts_once),
		cmocka_unit_test(test_too_big_halves),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
