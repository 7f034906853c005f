/* test_kube_client.c - the HTTP client (probes/kube/http*.c) and probes/kube/kube.c against tests/lib/fakeapi.py (TLS on 127.0.0.1): an integration test, it forks the fake API server. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/kube/apicount.h"
#include "probes/kube/http.h"
#include "probes/kube/kube.h"
#include "probes/kube/kubenodes.h"
#include "probes/kube/reflector.h"
#include "probes/kube/watchevent.h"
#include "probes/model/json.h"

/* Distinctive, so that any leak into a message is found by substring. */
#define TOKEN "tcpxo-test-SECRET-7f3a9c2e51d04b8e"
#define NODE "node-a"

struct server {
	pid_t pid;
	unsigned port;
};

static char dir[64];
static struct server srv, wrongname_srv;
static char url[64], token_path[128], ca_path[256], other_ca_path[256];

static const char NODE_JSON[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" NODE "\","
	"\"resourceVersion\":\"7\",\"labels\":{\"node.kubernetes.io/instance-type\":\"a3-megagpu-8g\"},"
	"\"annotations\":{\"keep\":\"1\",\"drop\":\"2\"}}}\n";
static const char PODS_JSON[] =
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":["
	"{\"metadata\":{\"name\":\"installer\"},\"spec\":{\"nodeName\":\"" NODE "\"}},"
	"{\"metadata\":{\"name\":\"elsewhere\"},\"spec\":{\"nodeName\":\"node-b\"}}]}\n";
static const char NODES_JSON[] =
	"{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"items\":["
	"{\"metadata\":{\"name\":\"n-c\",\"labels\":{\"pool\":\"x\"}}},"
	"{\"metadata\":{\"name\":\"n-a\",\"labels\":{\"pool\":\"x\"}}},"
	"{\"metadata\":{\"name\":\"n-b\",\"labels\":{\"pool\":\"y\"}}}]}\n";

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void write_file(const char *name, const char *data, size_t len)
{
	char path[256], tmp[300];
	FILE *f;

	path_of(path, sizeof(path), name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static void write_str(const char *name, const char *s)
{
	write_file(name, s, strlen(s));
}

static void remove_file(const char *name)
{
	char path[256];

	path_of(path, sizeof(path), name);
	unlink(path);
}

static char *read_all(const char *name)
{
	char path[256];
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;

	path_of(path, sizeof(path), name);
	f = fopen(path, "r");
	if (!f)
		return strdup("");
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* The request log: number of lines, and line @i parsed. */
static unsigned log_count(void)
{
	char *s = read_all("requests.log");
	unsigned n = 0;

	for (char *p = s; *p; p++)
		n += *p == '\n';
	free(s);
	return n;
}

/* The log once it holds @n lines, or after 2 s: the server writes a line after its answer (a watch
 * before its headers), so on a loaded machine a line may lag the client that saw the answer. */
static unsigned log_count_wait(unsigned n)
{
	for (int i = 0; i < 200 && log_count() < n; i++)
		usleep(10000);
	return log_count();
}

static struct json *log_line(unsigned i)
{
	char *s = read_all("requests.log"), *p = s, *end;
	struct json *v = NULL;

	while (i-- > 0) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	end = strchr(p, '\n');
	assert_non_null(end);
	assert_int_equal(json_parse(p, (size_t)(end - p), &v), 0);
	free(s);
	return v;
}

static void assert_log(unsigned i, const char *key, const char *want)
{
	struct json *v = log_line(i);
	const char *got = json_get_string(v, key);

	if (!want)
		assert_int_equal(json_type(json_get(v, key)), JSON_NULL);
	else
		assert_string_equal(got ? got : "(absent)", want);
	json_free(v);
}

static double log_peer(unsigned i)
{
	struct json *v = log_line(i);
	double d = -1;

	assert_true(json_number(json_get(v, "peer"), &d));
	json_free(v);
	return d;
}

static double log_number(unsigned i, const char *key)
{
	struct json *v = log_line(i);
	double d = -1;

	json_number(json_get(v, key), &d);
	json_free(v);
	return d;
}

static int run_sh(const char *script, const char *arg)
{
	int st;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", script, arg, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int server_start(struct server *s, const char *stem, const char *portfile)
{
	const char *top = getenv("TOPDIR") ? getenv("TOPDIR") : ".";
	char script[512], cert[256], key[256], pf[256];
	char *port;

	snprintf(script, sizeof(script), "%s/tests/lib/fakeapi.py", top);
	snprintf(cert, sizeof(cert), "%s/certs/%s.crt", dir, stem);
	snprintf(key, sizeof(key), "%s/certs/%s.key", dir, stem);
	path_of(pf, sizeof(pf), portfile);
	s->pid = fork();
	if (s->pid < 0)
		return -errno;
	if (s->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl("/usr/bin/python3", "python3", script, "--state", dir, "--port-file", pf,
		      "--cert", cert, "--key", key, "--max-seconds", "300", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {    /* up to 10 s */
		int st;

		if (access(pf, F_OK) == 0)
			break;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = 0;
			return -ECHILD;
		}
		usleep(10000);
	}
	port = read_all(portfile);
	s->port = (unsigned)strtoul(port, NULL, 10);
	free(port);
	return s->port ? 0 : -ETIMEDOUT;
}

static void server_stop(struct server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
}

static int group_setup(void **state)
{
	const char *top = getenv("TOPDIR") ? getenv("TOPDIR") : ".";
	char script[512], certs[128];

	snprintf(dir, sizeof(dir), "/dev/shm/tcpxo-http.XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(dir, sizeof(dir), "/tmp/tcpxo-http.XXXXXX");
		if (!mkdtemp(dir))
			return -1;
	}
	snprintf(script, sizeof(script), "%s/tests/lib/certs.sh", top);
	path_of(certs, sizeof(certs), "certs");
	if (run_sh(script, certs) != 0)
		return -1;
	path_of(token_path, sizeof(token_path), "token");
	snprintf(ca_path, sizeof(ca_path), "%s/ca.crt", certs);
	snprintf(other_ca_path, sizeof(other_ca_path), "%s/other-ca.crt", certs);
	write_str("token", TOKEN "\n");
	write_str("node.json", NODE_JSON);
	if (server_start(&srv, "server", "port") < 0 || server_start(&wrongname_srv, "wrongname", "port2") < 0)
		return -1;
	snprintf(url, sizeof(url), "https://127.0.0.1:%u", srv.port);
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[128];

	server_stop(&srv);
	server_stop(&wrongname_srv);
	if (strncmp(dir, "/dev/shm/tcpxo-http.", 20) == 0 || strncmp(dir, "/tmp/tcpxo-http.", 16) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			return -1;
	}
	return 0;
}

/* Each test starts from the same scenario with an empty request log. */
static int reset(void **state)
{
	write_str("token", TOKEN "\n");
	write_str("node.json", NODE_JSON);
	write_str("pods.json", PODS_JSON);
	remove_file("nodes.json");
	remove_file("faults");
	write_str("requests.log", "");
	return 0;
}

static struct http_client *client_with(unsigned max_attempts, unsigned max_total_ms, unsigned timeout_ms)
{
	struct http_config cfg = {
		.server = url, .token_file = token_path, .ca_file = ca_path,
		.max_attempts = max_attempts, .max_total_ms = max_total_ms, .timeout_ms = timeout_ms,
	};
	struct http_client *c = NULL;
	char err[256] = "";

	assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), 0);
	return c;
}

static struct http_client *client(void)
{
	return client_with(0, 0, 0);
}

static void assert_no_token(const struct http_response *r)
{
	assert_null(strstr(r->error, TOKEN));
}

static void get_ok(struct http_client *c)
{
	struct http_response r;

	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	assert_int_equal(r.status, 200);
	http_response_free(&r);
}

static void test_get_node(void **state)
{
	struct http_client *c = client();
	struct http_response r;
	struct json *v;

	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 1);
	assert_string_equal(r.error, "");
	assert_non_null(r.body);
	assert_int_equal(strlen(r.body), r.len);
	assert_int_equal(json_parse(r.body, r.len, &v), 0);
	assert_string_equal(json_get_string(json_get(v, "metadata"), "name"), NODE);
	json_free(v);
	assert_int_equal(log_count(), 1);
	assert_log(0, "method", "GET");
	assert_log(0, "path", "/api/v1/nodes/" NODE);
	assert_log(0, "auth", "ok");        /* the trailing newline of the token file was stripped */
	http_response_free(&r);
	http_response_free(&r);             /* idempotent */
	http_client_free(c);
}

/* Go's name for this machine's architecture, from uname(2): what client-go puts in its User-Agent. */
static const char *go_arch(void)
{
	static const struct { const char *machine, *go; } names[] = {
		{ "x86_64", "amd64" }, { "aarch64", "arm64" }, { "i686", "386" }, { "i386", "386" },
		{ "armv7l", "arm" }, { "ppc64le", "ppc64le" }, { "s390x", "s390x" }, { "riscv64", "riscv64" },
	};
	static struct utsname u;

	assert_int_equal(uname(&u), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(u.machine, names[i].machine) == 0)
			return names[i].go;
	return "unknown";
}

/* Every request, GET and PATCH, retried or not, says who sends it the way client-go does. */
static void test_user_agent(void **state)
{
	static const char patch[] = "{\"metadata\":{\"annotations\":{\"fabric.aicr.run/ready\":\"true\"}}}";
	struct http_client *c = client();
	struct http_response r;
	char want[128];
	unsigned n;

	snprintf(want, sizeof(want), "tcpxo-agent/%s (linux/%s)", TCPXO_VERSION, go_arch());
	get_ok(c);
	assert_int_equal(kube_patch_node(c, NODE, false, patch, &r), 0);
	http_response_free(&r);
	write_str("faults", "{\"mode\": \"503\", \"count\": 1}");
	get_ok(c);                                  /* a 503, then the retry */
	n = log_count();
	assert_int_equal(n, 4);
	for (unsigned i = 0; i < n; i++)
		assert_log(i, "userAgent", want);
	http_client_free(c);
}

static void test_keepalive(void **state)
{
	struct http_client *c = client();

	get_ok(c);
	get_ok(c);
	get_ok(c);
	assert_int_equal(log_count(), 3);
	assert_true(log_peer(0) == log_peer(1) && log_peer(1) == log_peer(2));
	http_client_free(c);
}

static void test_token_rotated_on_disk(void **state)
{
	struct http_client *c = client();
	struct http_response r;

	get_ok(c);
	write_str("token", "rotated-" TOKEN "-v2\n");   /* new inode, as the kubelet swaps it */
	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	assert_int_equal(r.attempts, 1);                /* noticed by stat, not by a 401 */
	assert_int_equal(log_count(), 2);
	assert_log(1, "auth", "ok");
	http_response_free(&r);
	http_client_free(c);
}

static void test_token_401_rereads(void **state)
{
	struct http_client *c = client();
	char path[256], tok[] = TOKEN "\n";
	struct http_response r;
	struct timespec times[2];
	struct stat st;
	int fd;

	get_ok(c);
	/* Rotate in place, same size, same mtime: invisible to stat, only the 401 reveals it. */
	path_of(path, sizeof(path), "token");
	assert_int_equal(stat(path, &st), 0);
	tok[0] = 'X';
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, tok, strlen(tok)), (ssize_t)strlen(tok));
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	assert_int_equal(futimens(fd, times), 0);
	close(fd);

	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(log_count(), 3);
	assert_log(1, "auth", "bad");
	assert_log(2, "auth", "ok");
	http_response_free(&r);
	http_client_free(c);
}

static void test_401_retried_once_only(void **state)
{
	struct http_client *c = client();
	struct http_response r;

	write_str("faults", "{\"mode\":\"401\"}");
	assert_int_equal(kube_get_node(c, NODE, &r), -EIO);
	assert_int_equal(r.status, 401);
	assert_int_equal(r.attempts, 2);
	assert_non_null(strstr(r.error, "401"));
	assert_no_token(&r);
	http_response_free(&r);

	write_str("faults", "{\"mode\":\"401\",\"count\":1}");
	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	assert_int_equal(r.attempts, 2);
	http_response_free(&r);
	http_client_free(c);
}

static void test_403_404_not_retried(void **state)
{
	struct http_client *c = client();
	struct http_response r;

	write_str("faults", "{\"mode\":\"403\"}");
	assert_int_equal(kube_get_node(c, NODE, &r), -EIO);
	assert_int_equal(r.status, 403);
	assert_int_equal(r.attempts, 1);
	assert_non_null(strstr(r.error, "HTTP 403 Forbidden: nodes is forbidden"));
	assert_non_null(r.body);                /* the Status is the caller's to read */
	http_response_free(&r);

	remove_file("faults");
	assert_int_equal(kube_get_node(c, "node-b", &r), -EIO);
	assert_int_equal(r.status, 404);
	assert_int_equal(r.attempts, 1);
	assert_non_null(strstr(r.error, "nodes \"node-b\" not found"));
	http_response_free(&r);
	assert_int_equal(log_count(), 2);
	http_client_free(c);
}

static void test_429_honours_retry_after(void **state)
{
	struct http_client *c = client();
	struct http_response r;
	uint64_t t0 = now_ms();

	write_str("faults", "{\"mode\":\"429\",\"retry_after\":1,\"count\":1}");
	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(r.retry_after_s, 1);
	assert_true(now_ms() - t0 >= 950);
	http_response_free(&r);
	http_client_free(c);
}

static void test_retry_after_capped(void **state)
{
	struct http_client *c = client_with(3, 2000, 0);
	struct http_response r;
	uint64_t t0 = now_ms();

	/* An hour is capped to 60 s, which exceeds the 2 s budget: give up at once, not sleep. */
	write_str("faults", "{\"mode\":\"503\",\"retry_after\":3600}");
	assert_int_equal(kube_get_node(c, NODE, &r), -EIO);
	assert_int_equal(r.status, 503);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(r.retry_after_s, 60);
	assert_non_null(strstr(r.error, "gave up after 1 attempt: "));   /* not "1 attempts" */
	assert_true(now_ms() - t0 < 30000);     /* not the 60 s sleep (bounds are loose: shared CI) */
	http_response_free(&r);
	http_client_free(c);
}

/* The client's count of (verb, resource, code); code 0: no answer. */
static unsigned long long api_count(const struct http_client *c, const char *verb, const char *resource, int code)
{
	const struct apicount *a = http_client_counts(c);

	for (size_t i = 0; a && i < a->n; i++)
		if (strcmp(a->v[i].verb, verb) == 0 && strcmp(a->v[i].resource, resource) == 0 && a->v[i].code == code)
			return a->v[i].n;
	return 0;
}

static void test_500_three_times_then_ok(void **state)
{
	struct http_client *c = client_with(4, 0, 0);
	struct http_response r;

	write_str("faults", "{\"mode\":\"500\",\"count\":3}");
	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	assert_int_equal(r.attempts, 4);
	assert_int_equal(log_count(), 4);
	/* Every attempt is counted with its answer (tcpxo_api_requests_total). */
	assert_int_equal(api_count(c, "GET", "nodes", 500), 3);
	assert_int_equal(api_count(c, "GET", "nodes", 200), 1);
	http_response_free(&r);
	http_client_free(c);
}

static void test_500_forever_within_budget(void **state)
{
	struct http_client *c = client_with(100, 1500, 0);
	struct http_response r;
	uint64_t t0 = now_ms(), dt;

	write_str("faults", "{\"mode\":\"500\"}");
	assert_int_equal(kube_get_node(c, NODE, &r), -EIO);
	dt = now_ms() - t0;
	assert_int_equal(r.status, 500);
	assert_true(r.attempts >= 2 && r.attempts < 100);
	assert_int_equal(log_count_wait(r.attempts), r.attempts);
	assert_true(dt <= 1500 + 10000);        /* within the budget, with room for a loaded machine */
	assert_non_null(strstr(r.error, "gave up"));
	http_response_free(&r);
	http_client_free(c);
}

static void test_503_bounded_by_attempts(void **state)
{
	struct http_client *c = client_with(3, 0, 0);
	struct http_response r;

	write_str("faults", "{\"mode\":\"503\"}");
	assert_int_equal(kube_get_node(c, NODE, &r), -EIO);
	assert_int_equal(r.status, 503);
	assert_int_equal(r.attempts, 3);
	http_response_free(&r);
	http_client_free(c);
}

static void test_dropped_connection_retried(void **state)
{
	struct http_client *c = client_with(2, 0, 0);
	struct http_response r;

	write_str("faults", "{\"mode\":\"close\",\"count\":1}");
	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(api_count(c, "GET", "nodes", 0), 1);     /* no answer: code "error" */
	assert_int_equal(api_count(c, "GET", "nodes", 200), 1);
	http_response_free(&r);

	write_str("faults", "{\"mode\":\"short\"}");  /* Content-Length promises more than arrives */
	assert_int_equal(kube_get_node(c, NODE, &r), -ECONNRESET);
	assert_int_equal(r.attempts, 2);
	assert_null(r.body);
	http_response_free(&r);
	http_client_free(c);
}

static void test_bad_json_reaches_the_parser(void **state)
{
	static const char *const modes[] = { "{\"mode\":\"truncated\"}", "{\"mode\":\"invalid\"}" };
	struct http_client *c = client();

	for (size_t i = 0; i < 2; i++) {
		struct http_response r;
		struct json *v = NULL;

		write_str("faults", modes[i]);
		assert_int_equal(kube_get_node(c, NODE, &r), 0);
		assert_non_null(r.body);
		assert_int_equal(json_parse(r.body, r.len, &v), -EINVAL);
		http_response_free(&r);
	}
	http_client_free(c);
}

static void test_oversized_body(void **state)
{
	static const char *const modes[] = { "{\"mode\":\"oversized\"}", "{\"mode\":\"oversized_stream\"}" };
	struct http_client *c = client();

	for (size_t i = 0; i < 2; i++) {
		struct http_response r;

		write_str("faults", modes[i]);
		assert_int_equal(kube_get_node(c, NODE, &r), -EFBIG);
		assert_int_equal(r.attempts, 1);
		assert_null(r.body);
		assert_non_null(strstr(r.error, "larger than"));
		http_response_free(&r);
	}
	remove_file("faults");
	get_ok(c);                              /* the handle recovers */
	http_client_free(c);
}

static void test_hang_times_out(void **state)
{
	struct http_client *c = client_with(1, 0, 300);
	struct http_response r;
	uint64_t t0 = now_ms();

	write_str("faults", "{\"mode\":\"hang\",\"delay\":30}");
	assert_int_equal(kube_get_node(c, NODE, &r), -ETIMEDOUT);
	assert_int_equal(r.status, 0);
	assert_true(now_ms() - t0 < 20000);     /* the timeout, not the 30 s hang */
	http_response_free(&r);
	http_client_free(c);
}

static struct http_client *alarm_client;

static void on_alarm(int sig)
{
	http_cancel(alarm_client);
}

static void arm_cancel(struct http_client *c, unsigned ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_sec = 0, .tv_usec = (long)ms * 1000 } };

	alarm_client = c;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
}

static void test_cancel(void **state)
{
	struct http_client *c = client_with(4, 60000, 20000);
	struct http_response r;
	uint64_t t0;

	/* In flight: the progress callback sees the flag. */
	write_str("faults", "{\"mode\":\"hang\",\"delay\":30}");
	t0 = now_ms();
	arm_cancel(c, 200);
	assert_int_equal(kube_get_node(c, NODE, &r), -EINTR);
	assert_true(now_ms() - t0 < 20000);     /* cancelled, not the 30 s hang */
	http_response_free(&r);

	/* In the backoff wait. */
	write_str("faults", "{\"mode\":\"503\",\"retry_after\":40}");
	t0 = now_ms();
	arm_cancel(c, 200);
	assert_int_equal(kube_get_node(c, NODE, &r), -EINTR);
	assert_int_equal(r.attempts, 1);
	assert_non_null(strstr(r.error, ": cancelled"));
	assert_true(now_ms() - t0 < 20000);     /* cancelled, not the 40 s wait */
	http_response_free(&r);

	/* The cancellation was consumed by the call it stopped. */
	remove_file("faults");
	get_ok(c);
	signal(SIGALRM, SIG_DFL);
	http_client_free(c);
}

static void test_wrong_ca_refused(void **state)
{
	struct http_config cfg = { .server = url, .token_file = token_path, .ca_file = other_ca_path };
	struct http_client *c = NULL;
	struct http_response r;

	assert_int_equal(http_client_new(&cfg, &c, NULL, 0), 0);
	assert_int_equal(kube_get_node(c, NODE, &r), -EPROTO);
	assert_int_equal(r.attempts, 1);       /* never retried, never downgraded */
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.error, "certificate"));
	assert_int_equal(log_count(), 0);      /* the server never saw a request (nor the token) */
	http_response_free(&r);
	http_client_free(c);

	cfg.ca_file = "/nonexistent/ca.crt";
	assert_int_equal(http_client_new(&cfg, &c, NULL, 0), 0);
	assert_int_equal(kube_get_node(c, NODE, &r), -EPROTO);
	assert_int_equal(log_count(), 0);
	http_response_free(&r);
	http_client_free(c);
}

static void test_wrong_name_refused(void **state)
{
	char u[64];
	struct http_config cfg = { .server = u, .token_file = token_path, .ca_file = ca_path };
	struct http_client *c = NULL;
	struct http_response r;

	snprintf(u, sizeof(u), "https://127.0.0.1:%u", wrongname_srv.port);
	assert_int_equal(http_client_new(&cfg, &c, NULL, 0), 0);
	assert_int_equal(kube_get_node(c, NODE, &r), -EPROTO);
	assert_int_equal(r.attempts, 1);
	assert_non_null(strstr(r.error, "127.0.0.1"));
	assert_int_equal(log_count(), 0);
	http_response_free(&r);
	http_client_free(c);
}

static void test_server_url_rules(void **state)
{
	static const char *const bad[] = {
		"http://127.0.0.1:1", "HTTP://127.0.0.1", "ftp://127.0.0.1", "127.0.0.1:443", "",
		"https://", "https://:443", "https://user:pw@127.0.0.1", "https://127.0.0.1:0",
		"https://127.0.0.1:65536", "https://127.0.0.1:12a", "https://h/x?y=1", "https://h/#f",
		"https://h/a b", "https://h\r\nX: y", "https://[::1", "https://[]:1", "https://[zz]:1",
	};
	static const char *const good[] = {
		"https://127.0.0.1:6443", "HTTPS://kubernetes.default.svc", "https://[fd00::1]:443",
		"https://api.example.test/prefix/", "https://h:1",
	};
	struct http_config cfg = { .token_file = token_path, .ca_file = ca_path };
	struct http_client *c;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.server = bad[i];
		c = NULL;
		err[0] = '\0';
		assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), -EINVAL);
		assert_null(c);
		assert_true(err[0] != '\0');
	}
	cfg.server = "http://127.0.0.1:1";
	assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "https://"));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cfg.server = good[i];
		c = NULL;
		assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), 0);
		http_client_free(c);
	}
	http_client_free(NULL);
}

static void test_in_cluster_environment(void **state)
{
	struct http_config cfg = { .token_file = token_path, .ca_file = ca_path };
	struct http_client *c = NULL;
	struct http_response r;
	char err[256] = "", port[16];

	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), -ENOENT);
	assert_null(c);
	assert_non_null(strstr(err, "KUBERNETES_SERVICE_HOST"));
	assert_int_equal(http_client_new(NULL, &c, NULL, 0), -ENOENT);

	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);   /* bracketed; never contacted */
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), 0);
	http_client_free(c);
	setenv("KUBERNETES_SERVICE_HOST", "bad host", 1);
	assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), -EINVAL);

	/* A host without a port is refused, as client-go refuses it: never a guessed 443. */
	setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1", 1);
	unsetenv("KUBERNETES_SERVICE_PORT");
	err[0] = '\0';
	c = NULL;
	assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), -EINVAL);
	assert_null(c);
	assert_non_null(strstr(err, "KUBERNETES_SERVICE_PORT is not"));
	setenv("KUBERNETES_SERVICE_PORT", "", 1);
	assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), -EINVAL);
	for (const char *const *p = (const char *const[]){ "https", "0", "65536", "-1", "44 3", NULL }; *p; p++) {
		setenv("KUBERNETES_SERVICE_PORT", *p, 1);
		err[0] = '\0';
		assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "KUBERNETES_SERVICE_PORT"));
	}

	snprintf(port, sizeof(port), "%u", srv.port);
	setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", port, 1);
	assert_int_equal(http_client_new(&cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(kube_get_node(c, NODE, &r), 0);
	http_response_free(&r);
	http_client_free(c);
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
}

static void test_patch_node(void **state)
{
	static const char patch[] =
		"{\"metadata\":{\"annotations\":{\"fabric.aicr.run/ready\":\"true\",\"drop\":null}}}";
	struct http_client *c = client();
	struct http_response r;
	struct json *v;
	const struct json *ann;
	char *disk;

	/*
	 * The write gets a newer resourceVersion than the node had. The fake API (like etcd) has
	 * one counter for every object, so earlier tests' writes decide how much newer.
	 */
	assert_int_equal(kube_patch_node(c, NODE, false, patch, &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(json_parse(r.body, r.len, &v), 0);
	assert_true(strtoull(json_get_string(json_get(v, "metadata"), "resourceVersion"), NULL, 10) > 7);
	ann = json_get(json_get(v, "metadata"), "annotations");
	assert_string_equal(json_get_string(ann, "fabric.aicr.run/ready"), "true");
	assert_string_equal(json_get_string(ann, "keep"), "1");
	assert_null(json_get(ann, "drop"));
	json_free(v);
	http_response_free(&r);

	assert_int_equal(log_count(), 1);
	assert_log(0, "method", "PATCH");
	assert_log(0, "path", "/api/v1/nodes/" NODE);
	assert_log(0, "contentType", "application/merge-patch+json");
	assert_log(0, "body", patch);
	disk = read_all("node.json");
	assert_int_equal(json_parse(disk, strlen(disk), &v), 0);
	assert_null(json_get(json_get(json_get(v, "metadata"), "annotations"), "drop"));
	json_free(v);
	free(disk);

	/* Any other content type is refused by the server (415), and not retried. */
	assert_int_equal(http_request(c, "PATCH", "/api/v1/nodes/" NODE, "application/json", patch, &r), -EIO);
	assert_int_equal(r.status, 415);
	assert_int_equal(r.attempts, 1);
	http_response_free(&r);

	assert_int_equal(kube_patch_node(c, NODE, false, "", &r), -EINVAL);
	assert_int_equal(kube_patch_node(c, NODE, false, NULL, &r), -EINVAL);
	assert_int_equal(log_count(), 2);
	http_client_free(c);
}

static void test_list_pods(void **state)
{
	struct http_client *c = client();
	struct http_response r;
	struct json *v;
	const struct json *items;

	assert_int_equal(kube_list_pods(c, NODE, &r), 0);
	assert_log(0, "path", "/api/v1/pods");
	assert_log(0, "query", "fieldSelector=spec.nodeName%3D" NODE);
	assert_int_equal(json_parse(r.body, r.len, &v), 0);
	items = json_get(v, "items");
	assert_int_equal(json_size(items), 1);
	assert_string_equal(json_get_string(json_get(json_first(items), "metadata"), "name"), "installer");
	json_free(v);
	http_response_free(&r);
	http_client_free(c);
}

/* One page of GET /api/v1/nodes as kubenodes_list() asks for it (kubenodes_path()). */
static int list_nodes(struct http_client *c, const char *selector, unsigned limit, const char *cont,
		      struct http_response *r)
{
	char *path;
	int k;

	assert_int_equal(kubenodes_path(selector, cont, limit, &path), 0);
	k = http_request(c, "GET", path, NULL, NULL, r);
	free(path);
	return k;
}

static void test_list_nodes_paging(void **state)
{
	struct http_client *c = client();
	struct http_response r;
	struct json *v;
	char *cont, *big;

	write_str("nodes.json", NODES_JSON);
	assert_int_equal(list_nodes(c, "pool=x", 1, NULL, &r), 0);
	assert_log(0, "query", "limit=1&labelSelector=pool%3Dx");
	assert_int_equal(json_parse(r.body, r.len, &v), 0);
	assert_int_equal(json_size(json_get(v, "items")), 1);
	assert_string_equal(json_get_string(json_get(json_first(json_get(v, "items")), "metadata"), "name"), "n-a");
	cont = strdup(json_get_string(json_get(v, "metadata"), "continue"));
	json_free(v);
	http_response_free(&r);

	assert_int_equal(list_nodes(c, "pool=x", 1, cont, &r), 0);
	assert_int_equal(json_parse(r.body, r.len, &v), 0);
	assert_string_equal(json_get_string(json_get(json_first(json_get(v, "items")), "metadata"), "name"), "n-c");
	assert_null(json_get(json_get(v, "metadata"), "continue"));
	json_free(v);
	http_response_free(&r);
	free(cont);

	assert_int_equal(list_nodes(c, NULL, 0, "garbage", &r), -EIO);
	assert_int_equal(r.status, 410);
	assert_int_equal(r.attempts, 1);
	http_response_free(&r);

	assert_int_equal(list_nodes(c, NULL, 0, NULL, &r), 0);
	assert_log(3, "query", "limit=0");
	assert_int_equal(json_parse(r.body, r.len, &v), 0);
	assert_int_equal(json_size(json_get(v, "items")), 3);
	json_free(v);
	http_response_free(&r);

	/* An over-long selector makes a path the client refuses before sending. */
	big = malloc(5000);
	memset(big, 'a', 4999);
	big[4999] = '\0';
	assert_int_equal(list_nodes(c, big, 1, NULL, &r), -EINVAL);
	assert_int_equal(r.attempts, 0);
	assert_int_equal(log_count(), 4);
	free(big);
	http_client_free(c);
}

static void test_node_names(void **state)
{
	static const char *const bad[] = {
		"", "A", "node_a", "-a", "a-", "a..b", ".a", "a.", "../etc", "a/b", "a?b", "a%2Fb",
		"a b", "a\nb", "nodé",
	};
	static const char *const good[] = { "a", "node-a", "gke-a3mega-pool-1a2b", "a.b-c.d9", "0" };
	struct http_client *c = client();
	struct http_response r;
	char name[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(kubename_valid(bad[i]));
		assert_int_equal(kube_get_node(c, bad[i], &r), -EINVAL);
		assert_int_equal(r.attempts, 0);
		assert_non_null(strstr(r.error, "invalid node name"));
		assert_int_equal(kube_list_pods(c, bad[i], &r), -EINVAL);
		assert_int_equal(kube_patch_node(c, bad[i], false, "{}", &r), -EINVAL);
	}
	assert_false(kubename_valid(NULL));
	assert_int_equal(kube_get_node(c, NULL, &r), -EINVAL);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(kubename_valid(good[i]));

	memset(name, 'a', 64);              /* a 64-character label */
	name[64] = '\0';
	assert_false(kubename_valid(name));
	name[63] = '\0';
	assert_true(kubename_valid(name));
	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 characters: the longest valid name. */
	memset(name, 'a', 253);
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	assert_true(kubename_valid(name));
	strcat(name, "a");
	assert_false(kubename_valid(name));
	assert_int_equal(log_count(), 0);   /* nothing was sent */
	http_client_free(c);
}

static void test_token_file_problems(void **state)
{
	struct http_client *c;
	struct http_response r;
	char *big;

	remove_file("token");
	c = client();
	assert_int_equal(kube_get_node(c, NODE, &r), -ENOENT);
	assert_int_equal(r.attempts, 0);
	assert_non_null(strstr(r.error, "token file"));
	http_client_free(c);

	write_str("token", "ab\x01" "cd\n");
	c = client();
	assert_int_equal(kube_get_node(c, NODE, &r), -EINVAL);
	assert_int_equal(r.attempts, 0);
	http_client_free(c);

	write_str("token", "\n\n");
	c = client();
	assert_int_equal(kube_get_node(c, NODE, &r), -EINVAL);
	assert_non_null(strstr(r.error, "empty"));
	http_client_free(c);

	big = malloc((64u << 10) + 2);
	memset(big, 'a', (64u << 10) + 1);
	big[(64u << 10) + 1] = '\0';
	write_str("token", big);
	c = client();
	assert_int_equal(kube_get_node(c, NODE, &r), -EFBIG);
	assert_non_null(strstr(r.error, "64 KiB"));
	http_client_free(c);
	free(big);
	assert_int_equal(log_count(), 0);

	/* A fifo where the token should be: refused at once, never a read that blocks forever. */
	remove_file("token");
	assert_int_equal(mkfifo(token_path, 0600), 0);
	alarm(20);
	c = client();
	assert_int_equal(kube_get_node(c, NODE, &r), -EINVAL);
	assert_int_equal(r.attempts, 0);
	assert_non_null(strstr(r.error, "not a regular file"));
	http_client_free(c);
	alarm(0);
	remove_file("token");
	assert_int_equal(log_count(), 0);

	/* A token file that vanishes after a good read: the last good token stays in use. */
	write_str("token", TOKEN "\r\n");
	c = client();
	get_ok(c);
	remove_file("token");
	write_str("faults", "{}");
	assert_int_equal(kube_get_node(c, NODE, &r), -EIO);    /* the server itself rejects now */
	assert_int_equal(r.status, 401);
	assert_log(1, "auth", "bad");                           /* but it was sent */
	http_response_free(&r);
	http_client_free(c);
}

static void test_token_never_in_errors(void **state)
{
	struct http_client *c = client();
	struct http_response r;

	write_str("faults", "{\"mode\":\"leak\"}");
	assert_int_equal(kube_get_node(c, NODE, &r), -EIO);
	assert_non_null(strstr(r.body, TOKEN));                 /* the server echoed it ... */
	assert_no_token(&r);                                    /* ... the message does not */
	assert_non_null(strstr(r.error, "Bearer [token]"));
	http_response_free(&r);
	http_client_free(c);
}

static void test_malformed_requests_refused(void **state)
{
	struct http_client *c = client();
	struct http_response r;

	assert_int_equal(http_request(c, "GET", "api/v1/nodes", NULL, NULL, &r), -EINVAL);
	assert_int_equal(http_request(c, "GET", "/a b", NULL, NULL, &r), -EINVAL);
	assert_int_equal(http_request(c, "GET", "/a\r\nX-Injected: 1", NULL, NULL, &r), -EINVAL);
	assert_int_equal(http_request(c, "get", "/api", NULL, NULL, &r), -EINVAL);
	assert_int_equal(http_request(c, "TRACE", "/api", NULL, NULL, &r), -EINVAL);
	assert_int_equal(http_request(c, "PATCH", "/api", "a\r\nX: y", "{}", &r), -EINVAL);
	assert_int_equal(http_request(c, "GET", "/api", NULL, "{}", &r), -EINVAL);
	assert_int_equal(http_request(NULL, "GET", "/api", NULL, NULL, &r), -EINVAL);
	assert_int_equal(http_request(c, "GET", "/api", NULL, NULL, NULL), -EINVAL);
	assert_int_equal(r.attempts, 0);
	assert_int_equal(log_count(), 0);
	http_client_free(c);
}

/* ---- streams (watches) -------------------------------------------------------------------- */

#define SINK_MAX 64

struct sink {
	char *lines[SINK_MAX];
	size_t n;
	uint64_t at[SINK_MAX];          /* when each line arrived */
	bool done;
	long status;
	int err;
	unsigned attempts, retry_after_s;
	char error[256];
	char *body;
	unsigned close_after;           /* close the stream from inside the line callback after this many */
	struct http_stream *s;
};

static void sink_line(void *data, struct http_stream *s, const char *line, size_t len)
{
	struct sink *k = data;

	assert_int_equal(strlen(line), len);
	assert_false(k->done);
	if (k->n < SINK_MAX) {
		k->at[k->n] = now_ms();
		k->lines[k->n++] = strdup(line);
	}
	if (k->close_after && k->n == k->close_after) {
		http_stream_close(s);
		k->s = NULL;
	}
}

static void sink_done(void *data, struct http_stream *s, const struct http_stream_end *end)
{
	struct sink *k = data;

	assert_false(k->done);
	k->done = true;
	k->status = end->status;
	k->err = end->err;
	k->attempts = end->attempts;
	k->retry_after_s = end->retry_after_s;
	snprintf(k->error, sizeof(k->error), "%s", end->error);
	if (end->body)
		k->body = strndup(end->body, end->len);
	k->s = NULL;
}

static const struct http_stream_ops sink_ops = { .line = sink_line, .done = sink_done };

static void sink_free(struct sink *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->lines[i]);
	free(k->body);
	http_stream_close(k->s);
	memset(k, 0, sizeof(*k));
}

/* Open a stream of @path into @k. */
static void sink_open(struct http_client *c, struct sink *k, const char *path, enum http_stream_mode mode,
		      size_t line_max)
{
	struct http_stream_config cfg = { .mode = mode, .line_max = line_max };

	memset(k, 0, sizeof(*k));
	assert_int_equal(http_stream_open(c, path, &cfg, &sink_ops, k, &k->s), 0);
}

/*
 * Run the caller's side of the loop for up to @ms: poll the streams' fds, drive. Stops early when
 * @k has @lines lines (or is done, with @lines 0). Returns the longest time one drive took (the
 * client must never block its caller).
 */
static uint64_t pump(struct http_client *c, unsigned ms, struct sink *k, size_t lines)
{
	uint64_t end = now_ms() + ms, worst = 0;

	while (now_ms() < end) {
		struct pollfd fds[64];
		size_t n = http_streams_pollfds(c, fds, 64);
		int t = http_streams_timeout(c);
		uint64_t t0;

		assert_true(n <= 64);
		if (t < 0 || t > 20)
			t = 20;
		poll(fds, n, t);
		t0 = now_ms();
		assert_int_equal(http_streams_drive(c, fds, n), 0);
		if (now_ms() - t0 > worst)
			worst = now_ms() - t0;
		if (k && ((lines && k->n >= lines) || (!lines && k->done)))
			break;
	}
	return worst;
}

static void control(struct http_client *c, const char *ops)
{
	struct http_response r;

	if (http_request(c, "POST", "/fakeapi/v1/changes", "application/json", ops, &r) != 0)
		fail_msg("control %s: %s %s", ops, r.error, r.body ? r.body : "");
	http_response_free(&r);
}

/* The watch the server holds open: wait until it registered @n of them. */
static void wait_watchers(struct http_client *c, struct sink *k, unsigned n)
{
	char ops[96];
	uint64_t end = now_ms() + 30000;

	/*
	 * The stream must get to the server first: drive it (not blocked by the control call). At most
	 * 30 s: 23 TLS handshakes under valgrind, beside CI's other cmocka binaries, took over 10.
	 */
	while (now_ms() < end) {
		struct http_response r;
		struct json *v = NULL;
		size_t have = 0;

		pump(c, 30, NULL, 0);
		assert_int_equal(http_request(c, "GET", "/fakeapi/v1/state", NULL, NULL, &r), 0);
		assert_int_equal(json_parse(r.body, r.len, &v), 0);
		have = json_size(json_get(v, "watchers"));
		json_free(v);
		http_response_free(&r);
		if (have >= n)
			return;
	}
	snprintf(ops, sizeof(ops), "no %u watches open after 30 s", n);
	fail_msg("%s (stream: %s)", ops, k && k->done ? k->error : "open");
}

/* How many watches the server holds open now. */
static size_t server_watchers(struct http_client *c)
{
	struct http_response r;
	struct json *v = NULL;
	size_t n;

	assert_int_equal(http_request(c, "GET", "/fakeapi/v1/state", NULL, NULL, &r), 0);
	assert_int_equal(json_parse(r.body, r.len, &v), 0);
	n = json_size(json_get(v, "watchers"));
	json_free(v);
	http_response_free(&r);
	return n;
}

/* metadata.resourceVersion of a list GET. */
static char *list_rv(struct http_client *c, const char *path)
{
	struct http_response r;
	struct json *v = NULL;
	char *rv;

	assert_int_equal(http_request(c, "GET", path, NULL, NULL, &r), 0);
	assert_int_equal(json_parse(r.body, r.len, &v), 0);
	rv = strdup(json_get_string(json_get(v, "metadata"), "resourceVersion"));
	json_free(v);
	http_response_free(&r);
	return rv;
}

/* Line @i of @k as a watch event: its type and name, and its resourceVersion as a number. */
static void assert_event(const struct sink *k, size_t i, const char *type, const char *name, long *rv)
{
	struct watchevent ev;
	char err[128];

	if (i >= k->n)
		fail_msg("line %zu of %zu: missing (want %s %s)", i, k->n, type, name ? name : "");
	if (watchevent_parse(k->lines[i], strlen(k->lines[i]), &ev, err, sizeof(err)) != 0)
		fail_msg("line %zu: %s: %.200s", i, err, k->lines[i]);
	assert_string_equal(watchevent_type_name(ev.type), type);
	if (name)
		assert_string_equal(ev.name, name);
	if (rv)
		*rv = strtol(ev.resource_version, NULL, 10);
	watchevent_free(&ev);
}

static int stream_reset(void **state)
{
	reset(state);
	remove_file("settings");
	remove_file("networks.json");
	return 0;
}

#define PODS_WATCH "/api/v1/pods?fieldSelector=spec.nodeName%3D" NODE "&watch=1"
#define POD(name, node, extra) "{\"op\":\"apply\",\"resource\":\"pods\",\"object\":{\"metadata\":" \
	"{\"name\":\"" name "\",\"namespace\":\"ml\"" extra "},\"spec\":{\"nodeName\":\"" node "\"}}}"

static void test_stream_events_in_order(void **state)
{
	struct http_client *c = client();
	char *rv = list_rv(c, "/api/v1/pods?fieldSelector=spec.nodeName%3D" NODE), path[256];
	long rv1, rv2, rv3;
	struct sink k;

	snprintf(path, sizeof(path), "%s&resourceVersion=%s&allowWatchBookmarks=true", PODS_WATCH, rv);
	sink_open(c, &k, path, HTTP_STREAM_LINES, 0);
	wait_watchers(c, &k, 1);
	/* One change at a time, each seen before the next is made: delivered as it happens. */
	control(c, POD("p1", NODE, ""));
	pump(c, 5000, &k, 1);
	assert_int_equal(k.n, 1);
	control(c, POD("p2", "node-b", ""));             /* another node's pod: filtered out */
	control(c, POD("p1", NODE, ",\"labels\":{\"v\":\"2\"}"));
	pump(c, 5000, &k, 2);
	assert_int_equal(k.n, 2);
	control(c, "{\"op\":\"delete\",\"resource\":\"pods\",\"namespace\":\"ml\",\"name\":\"p1\"}");
	pump(c, 5000, &k, 3);
	assert_event(&k, 0, "ADDED", "p1", &rv1);
	assert_event(&k, 1, "MODIFIED", "p1", &rv2);
	assert_event(&k, 2, "DELETED", "p1", &rv3);
	assert_true(strtol(rv, NULL, 10) < rv1 && rv1 < rv2 && rv2 < rv3);
	assert_true(rv2 == rv1 + 2);            /* p2 took the number between: one counter for all */
	assert_false(k.done);
	assert_int_equal(http_streams_count(c), 1);
	/* The open watch is counted already (its answer began), the list once. */
	assert_int_equal(api_count(c, "WATCH", "pods", 200), 1);
	assert_int_equal(api_count(c, "LIST", "pods", 200), 1);
	assert_log(0, "path", "/api/v1/pods");  /* the list, then the watch: one line each */
	assert_int_equal(log_count(), 2);
	sink_free(&k);
	assert_int_equal(http_streams_count(c), 0);
	free(rv);
	http_client_free(c);
}

static void test_stream_initial_state(void **state)
{
	struct http_client *c = client();
	struct sink k;

	/* No resourceVersion: the current objects first, as ADDED (the real API's semantics). */
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 1);
	assert_event(&k, 0, "ADDED", "installer", NULL);
	wait_watchers(c, &k, 1);
	control(c, POD("p3", NODE, ""));
	pump(c, 5000, &k, 2);
	assert_event(&k, 1, "ADDED", "p3", NULL);
	sink_free(&k);
	http_client_free(c);
}

static void test_stream_lines_split_and_joined(void **state)
{
	static const char *const settings[] = {
		"{\"watch_split\":7,\"watch_split_ms\":1}",     /* every line in 7-byte chunks */
		"{\"watch_coalesce\":true}",                    /* several lines in one chunk */
	};
	struct http_client *c = client();

	for (size_t i = 0; i < 2; i++) {
		struct sink k;

		write_str("settings", settings[i]);
		control(c, "[" POD("s1", NODE, "") "," POD("s2", NODE, "") "]");
		sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
		pump(c, 10000, &k, 3);
		assert_int_equal(k.n, 3);
		for (size_t j = 0; j < 3; j++)
			assert_event(&k, j, "ADDED", NULL, NULL);
		assert_event(&k, 1, "ADDED", "s1", NULL);
		assert_event(&k, 2, "ADDED", "s2", NULL);
		sink_free(&k);
	}
	http_client_free(c);
}

static void test_stream_line_too_long(void **state)
{
	struct http_client *c = client();
	char *big = malloc(20000), *op;
	struct sink k;

	memset(big, 'x', 19999);
	big[19999] = '\0';
	assert_true(asprintf(&op, POD("huge", NODE, ",\"annotations\":{\"pad\":\"%s\"}"), big) > 0);
	control(c, op);
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 8192);
	pump(c, 5000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.err, -EMSGSIZE);
	assert_int_equal(k.status, 200);
	assert_non_null(strstr(k.error, "longer than 8192 bytes"));
	assert_event(&k, 0, "ADDED", "installer", NULL);        /* the line before it came through */
	assert_int_equal(k.n, 1);
	sink_free(&k);
	/* The default limit (8 MiB) takes it. */
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 2);
	assert_event(&k, 1, "ADDED", "huge", NULL);
	sink_free(&k);
	free(op);
	free(big);
	http_client_free(c);
}

static void test_stream_timeout_seconds(void **state)
{
	struct http_client *c = client();
	uint64_t t0 = now_ms();
	struct sink k;

	write_str("settings", "{\"bookmark_ms\":200}");
	sink_open(c, &k, PODS_WATCH "&timeoutSeconds=1&allowWatchBookmarks=true", HTTP_STREAM_LINES, 0);
	pump(c, 10000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.status, 200);
	assert_int_equal(k.err, 0);             /* a clean end: the last chunk came */
	assert_string_equal(k.error, "");
	assert_true(now_ms() - t0 >= 900 && now_ms() - t0 < 8000);
	assert_event(&k, 0, "ADDED", "installer", NULL);
	assert_true(k.n >= 3);                  /* bookmarks every 200 ms, one before the end */
	assert_event(&k, k.n - 1, "BOOKMARK", NULL, NULL);
	sink_free(&k);
	http_client_free(c);
}

static void test_stream_gone(void **state)
{
	struct http_client *c = client();
	struct watchevent ev;
	struct sink k;

	control(c, "[" POD("g1", NODE, "") ",{\"op\":\"compact\"}]");
	/* The real watch cache: 200, then an ERROR event whose object is a Status 410. */
	sink_open(c, &k, PODS_WATCH "&resourceVersion=1", HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.status, 200);
	assert_int_equal(k.n, 1);
	assert_int_equal(watchevent_parse(k.lines[0], strlen(k.lines[0]), &ev, NULL, 0), 0);
	assert_int_equal(ev.type, WATCHEVENT_ERROR);
	assert_int_equal(ev.code, 410);
	assert_string_equal(ev.reason, "Expired");
	assert_non_null(strstr(ev.message, "too old resource version: 1 ("));
	watchevent_free(&ev);
	sink_free(&k);
	/* Or a 410 answer: reported, never retried. */
	write_str("settings", "{\"gone\":\"status\"}");
	sink_open(c, &k, PODS_WATCH "&resourceVersion=1", HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.status, 410);
	assert_int_equal(k.err, -EIO);
	assert_int_equal(k.attempts, 1);
	assert_non_null(strstr(k.error, "HTTP 410 Gone: too old resource version"));
	assert_non_null(k.body);                /* the Status, for the caller */
	assert_int_equal(k.n, 0);
	sink_free(&k);
	http_client_free(c);
}

static void test_stream_429_retry_after(void **state)
{
	struct http_client *c = client();
	uint64_t t0 = now_ms(), worst;
	struct sink k;

	write_str("faults", "{\"mode\":\"429\",\"retry_after\":1,\"count\":1,\"path\":\"/api/v1/pods\"}");
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	worst = pump(c, 8000, &k, 1);
	assert_int_equal(k.n, 1);
	assert_true(now_ms() - t0 >= 950);      /* Retry-After honoured ... */
	assert_true(worst < 500);               /* ... as a timer: no drive blocked (loose: shared CI) */
	assert_int_equal(log_count(), 2);
	assert_log(0, "fault", "429");
	assert_true(log_number(1, "status") == 200);   /* a watch: logged as it starts streaming */
	assert_true(log_number(0, "status") == 429);
	sink_free(&k);
	/* 503 twice, then the stream: three attempts. */
	write_str("faults", "{\"mode\":\"503\",\"count\":2,\"path\":\"/api/v1/pods\"}");
	sink_open(c, &k, PODS_WATCH "&timeoutSeconds=1", HTTP_STREAM_LINES, 0);
	pump(c, 15000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.err, 0);
	assert_int_equal(k.attempts, 3);
	sink_free(&k);
	/* 403: not retried. */
	write_str("faults", "{\"mode\":\"403\",\"path\":\"/api/v1/pods\"}");
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 0);
	assert_int_equal(k.status, 403);
	assert_int_equal(k.attempts, 1);
	assert_null(strstr(k.error, TOKEN));
	sink_free(&k);
	/* Each attempt once, with its answer. */
	assert_int_equal(api_count(c, "WATCH", "pods", 429), 1);
	assert_int_equal(api_count(c, "WATCH", "pods", 503), 2);
	assert_int_equal(api_count(c, "WATCH", "pods", 200), 2);
	assert_int_equal(api_count(c, "WATCH", "pods", 403), 1);
	http_client_free(c);
}

static void test_stream_token_rotation(void **state)
{
	struct http_client *c = client();
	struct sink k;
	char path[256], tok[] = TOKEN "\n";
	struct timespec times[2];
	struct stat st;
	int fd;

	sink_open(c, &k, PODS_WATCH "&timeoutSeconds=1", HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 0);
	assert_int_equal(k.err, 0);
	sink_free(&k);
	/* A new token file (the kubelet swaps it): the reconnect carries it. */
	write_str("token", "rotated-" TOKEN "-v2\n");
	sink_open(c, &k, PODS_WATCH "&timeoutSeconds=1", HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 0);
	assert_int_equal(k.err, 0);
	assert_int_equal(k.attempts, 1);
	assert_log(1, "auth", "ok");
	sink_free(&k);
	/* Rotated in place, invisible to stat: the 401 makes it read the file again, once. */
	path_of(path, sizeof(path), "token");
	assert_int_equal(stat(path, &st), 0);
	memcpy(tok, "rotated-" TOKEN "-v3", strlen(TOKEN));
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "rotated-" TOKEN "-v3\n", strlen(TOKEN) + 12), (ssize_t)strlen(TOKEN) + 12);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	assert_int_equal(futimens(fd, times), 0);
	close(fd);
	sink_open(c, &k, PODS_WATCH "&timeoutSeconds=1", HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 0);
	assert_int_equal(k.err, 0);
	assert_int_equal(k.attempts, 2);
	assert_log(2, "auth", "bad");
	assert_log(3, "auth", "ok");
	sink_free(&k);
	http_client_free(c);
}

static void test_stream_many_at_once(void **state)
{
	static const char NETS[] = "{\"kind\":\"NetworkList\",\"apiVersion\":\"networking.gke.io/v1\",\"items\":"
		"[{\"metadata\":{\"name\":\"gpu-nic-0\"},\"spec\":{\"type\":\"Device\"}}]}";
	struct http_client *c = client();
	struct sink node, pods, nets, more[20];
	char rv[32];

	write_str("networks.json", NETS);
	sink_open(c, &node, "/api/v1/nodes?fieldSelector=metadata.name%3D" NODE "&watch=1", HTTP_STREAM_LINES, 0);
	sink_open(c, &pods, PODS_WATCH, HTTP_STREAM_LINES, 0);
	sink_open(c, &nets, "/apis/networking.gke.io/v1/networks?watch=1", HTTP_STREAM_LINES, 0);
	for (size_t i = 0; i < 20; i++)
		sink_open(c, &more[i], PODS_WATCH "&allowWatchBookmarks=true", HTTP_STREAM_LINES, 0);
	assert_int_equal(http_streams_count(c), 23);
	wait_watchers(c, NULL, 23);
	control(c, "[{\"op\":\"patch\",\"resource\":\"nodes\",\"name\":\"" NODE "\",\"patch\":{\"metadata\":"
		"{\"labels\":{\"x\":\"1\"}}}}," POD("m1", NODE, "") ",{\"op\":\"apply\",\"resource\":\"networks\","
		"\"object\":{\"metadata\":{\"name\":\"gpu-nic-1\"}}}]");
	/* At most 30 s: the fake server serves 23 watches from its threads, on a loaded machine too. */
	for (int i = 0; i < 1500 && (node.n < 2 || pods.n < 2 || nets.n < 2); i++)
		pump(c, 20, NULL, 0);
	assert_event(&node, 0, "ADDED", NODE, NULL);
	assert_event(&node, 1, "MODIFIED", NODE, NULL);
	assert_event(&pods, 1, "ADDED", "m1", NULL);
	assert_event(&nets, 0, "ADDED", "gpu-nic-0", NULL);
	assert_event(&nets, 1, "ADDED", "gpu-nic-1", NULL);
	assert_int_equal(node.n + pods.n + nets.n, 6);
	for (int i = 0; i < 1500; i++) {
		size_t done = 0;

		for (size_t j = 0; j < 20; j++)
			done += more[j].n >= 2;
		if (done == 20)
			break;
		pump(c, 20, NULL, 0);   /* at most 30 s, as above */
	}
	for (size_t j = 0; j < 20; j++)
		assert_event(&more[j], 1, "ADDED", "m1", NULL);
	/* Closing one leaves the others running. */
	sink_free(&pods);
	snprintf(rv, sizeof(rv), "%u", http_streams_count(c));
	assert_string_equal(rv, "22");
	sink_free(&node);
	sink_free(&nets);
	for (size_t j = 0; j < 20; j++)
		sink_free(&more[j]);
	assert_int_equal(http_streams_count(c), 0);
	http_client_free(c);
}

static void test_stream_close_in_callback(void **state)
{
	struct http_client *c = client();
	struct sink k;

	control(c, "[" POD("c1", NODE, "") "," POD("c2", NODE, "") "]");
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	k.close_after = 2;
	pump(c, 2000, NULL, 0);
	assert_int_equal(k.n, 2);               /* nothing after the close, not even done */
	assert_false(k.done);
	assert_int_equal(http_streams_count(c), 0);
	sink_free(&k);
	/* A client freed with a stream open frees it (no callback). */
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	pump(c, 200, NULL, 0);
	k.s = NULL;
	http_client_free(c);
	assert_false(k.done);
	sink_free(&k);
}

static void test_stream_whole_body_and_cut(void **state)
{
	struct http_client *c = client();
	struct json *v = NULL;
	struct sink k;

	sink_open(c, &k, "/api/v1/nodes/" NODE, HTTP_STREAM_WHOLE, 0);
	pump(c, 5000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.err, 0);
	assert_int_equal(k.status, 200);
	assert_int_equal(json_parse(k.body, strlen(k.body), &v), 0);
	assert_string_equal(json_get_string(json_get(v, "metadata"), "name"), NODE);
	json_free(v);
	sink_free(&k);
	/* A watch the server drops without its last chunk: an error, not a clean end. */
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	wait_watchers(c, &k, 1);
	control(c, "{\"op\":\"close\",\"mode\":\"cut\"}");
	pump(c, 5000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.status, 200);
	assert_true(k.err == -ECONNRESET || k.err == -EIO);
	assert_int_equal(k.attempts, 1);        /* established: never retried here */
	sink_free(&k);
	/* A malformed line is delivered as it is: judging it is the parser's job. */
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	wait_watchers(c, &k, 1);
	control(c, "{\"op\":\"inject\",\"line\":\"{\\\"type\\\":\\\"ADDED\\\",\\\"object\\\":[1,2\"}");
	pump(c, 5000, &k, 2);
	assert_int_equal(k.n, 2);
	assert_string_equal(k.lines[1], "{\"type\":\"ADDED\",\"object\":[1,2");
	sink_free(&k);
	http_client_free(c);
}

static void test_stream_cancel(void **state)
{
	struct http_client *c = client();
	struct sink k;

	write_str("faults", "{\"mode\":\"hang\",\"delay\":30}");
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	pump(c, 300, NULL, 0);
	http_cancel(c);
	pump(c, 5000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.err, -EINTR);
	sink_free(&k);
	assert_int_equal(http_stream_open(c, PODS_WATCH, &(struct http_stream_config){ 0 }, &sink_ops, &k, &k.s),
			 -EINTR);
	remove_file("faults");
	{
		struct http_response r;

		/* The next blocking call is the one that consumes the cancellation. */
		assert_int_equal(kube_get_node(c, NODE, &r), -EINTR);
		http_response_free(&r);
	}
	get_ok(c);
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 1);
	assert_int_equal(k.n, 1);
	sink_free(&k);
	/* Refused before anything is sent. */
	assert_int_equal(http_stream_open(c, "no-slash", &(struct http_stream_config){ 0 }, &sink_ops, &k, &k.s),
			 -EINVAL);
	assert_int_equal(http_stream_open(c, "/a b", &(struct http_stream_config){ 0 }, &sink_ops, &k, &k.s),
			 -EINVAL);
	http_client_free(c);
}
static void test_stream_tls_verified(void **state)
{
	struct http_config cfg = { .token_file = token_path, .ca_file = ca_path };
	struct http_client *c = NULL;
	char u[64];
	struct sink k;

	snprintf(u, sizeof(u), "https://127.0.0.1:%u", wrongname_srv.port);
	cfg.server = u;
	assert_int_equal(http_client_new(&cfg, &c, NULL, 0), 0);
	sink_open(c, &k, PODS_WATCH, HTTP_STREAM_LINES, 0);
	pump(c, 5000, &k, 0);
	assert_true(k.done);
	assert_int_equal(k.err, -EPROTO);       /* the certificate does not name 127.0.0.1 */
	assert_int_equal(k.attempts, 1);        /* never retried, never downgraded */
	assert_int_equal(k.status, 0);
	assert_int_equal(log_count(), 0);       /* the server never saw a request (nor the token) */
	sink_free(&k);
	http_client_free(c);
}

/* ---- a reflector driven over streams: what the daemon loop will do --------------------------- */

struct rig {
	struct http_client *c;
	struct reflector *r;
	struct http_stream *s;
	bool watching;
};

static void rig_line(void *data, struct http_stream *s, const char *line, size_t len)
{
	struct rig *g = data;

	if (reflector_watch_line(g->r, now_ms(), line, len) != 0) {
		http_stream_close(s);
		g->s = NULL;
	}
}

static void rig_done(void *data, struct http_stream *s, const struct http_stream_end *end)
{
	struct rig *g = data;

	g->s = NULL;
	if (g->watching)
		reflector_watch_done(g->r, now_ms(), end->status, end->err, end->attempts, end->retry_after_s);
	else
		reflector_list_done(g->r, now_ms(), end->status, end->body, end->len, end->attempts, end->retry_after_s);
}

static const struct http_stream_ops rig_ops = { .line = rig_line, .done = rig_done };

/* Turns of the loop until @until(@g) or @ms pass. */
static bool rig_run(struct rig *g, unsigned ms, bool (*until)(struct rig *))
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		uint64_t wake;
		char *path = NULL;
		enum reflector_step st = reflector_next(g->r, now_ms(), &path, &wake);

		if (st == REFLECTOR_LIST || st == REFLECTOR_WATCH) {
			struct http_stream_config cfg = {
				.mode = st == REFLECTOR_LIST ? HTTP_STREAM_WHOLE : HTTP_STREAM_LINES,
				.timeout_ms = st == REFLECTOR_WATCH ? (reflector_watch_timeout_s(g->r) + 30) * 1000u : 0,
			};

			assert_null(g->s);
			g->watching = st == REFLECTOR_WATCH;
			assert_int_equal(http_stream_open(g->c, path, &cfg, &rig_ops, g, &g->s), 0);
		} else if (st == REFLECTOR_CLOSE) {
			http_stream_close(g->s);
			g->s = NULL;
		}
		free(path);
		pump(g->c, 10, NULL, 0);
		if (until(g))
			return true;
	}
	return false;
}

/* Filled, and a watch open. */
static bool rig_synced(struct rig *g)
{
	return reflector_synced(g->r) && g->s != NULL && g->watching;
}

static bool rig_never(struct rig *g)
{
	return false;
}

static bool rig_has_w3(struct rig *g)
{
	return reflector_find(g->r, "ml", "w3") != NULL;
}

static bool rig_relisted(struct rig *g)
{
	return reflector_stats(g->r)->gone > 0 && reflector_find(g->r, "ml", "w5") != NULL && g->s && g->watching;
}

static void test_reflector_over_streams(void **state)
{
	for (int watchlist = 0; watchlist < 2; watchlist++) {
		struct reflector_config cfg = {
			.path = "/api/v1/pods", .query = "fieldSelector=spec.nodeName%3D" NODE, .kind = "Pod",
			.watchlist = watchlist, .timeout_min_s = 2, .backoff_base_ms = 50, .backoff_cap_ms = 200, .seed = 3,
		};
		struct rig g = { .c = client() };
		const struct reflector_stats *st;

		stream_reset(NULL);
		write_str("requests.log", "");
		assert_int_equal(reflector_new(&cfg, &g.r), 0);
		st = reflector_stats(g.r);
		assert_true(rig_run(&g, 10000, rig_synced));
		assert_int_equal(reflector_count(g.r), 1);      /* the fixture's installer pod */
		/* Filled and following: a list and a watch, or one watchlist watch. */
		assert_int_equal(st->requests, watchlist ? 1 : 2);
		assert_int_equal(log_count_wait(watchlist ? 1 : 2), watchlist ? 1 : 2);
		control(g.c, POD("w3", NODE, ""));
		assert_true(rig_run(&g, 10000, rig_has_w3));
		/* The watch outlives its timeoutSeconds (2..3 s here): resumed, nothing lost. */
		assert_false(rig_run(&g, 4500, rig_never));  /* longer than any timeoutSeconds in [2, 4) */
		assert_true(st->resumes >= 1);
		assert_true(rig_has_w3(&g));
		/* Too old after a compaction and a dropped stream: 410, relisted, w5 seen. */
		/* (The loop does not run meanwhile: the cut stream cannot have seen w5.) */
		control(g.c, "{\"op\":\"close\",\"mode\":\"cut\"}");
		while (server_watchers(g.c) > 0)
			usleep(10000);
		control(g.c, "[" POD("w4", "node-b", "") "," POD("w5", NODE, "") ",{\"op\":\"compact\"}]");
		assert_true(rig_run(&g, 15000, rig_relisted));
		assert_int_equal(reflector_count(g.r), 3);
		assert_true(st->relists_by[REFLECTOR_RELIST_GONE] + st->relists_by[REFLECTOR_RELIST_RESYNC] +
			    st->relists_by[REFLECTOR_RELIST_ERROR] >= 1);
		for (size_t i = 0; i < 3; i++)
			assert_non_null(json_get(json_get(reflector_object(g.r, i), "metadata"), "name"));
		print_message("reflector over streams (%s): %lu requests, %lu lists, %lu watches, %lu resumes, "
			      "%lu gone, %lu events, %lu bookmarks, %lu errors\n", watchlist ? "watchlist" : "list+watch",
			      st->requests, st->lists, st->watches, st->resumes, st->gone, st->events, st->bookmarks,
			      st->errors);
		assert_int_equal(st->requests, log_count_wait(st->requests));    /* its count is what the server saw */
		http_stream_close(g.s);
		reflector_free(g.r);
		http_client_free(g.c);
	}
}

static bool rig_fell_back(struct rig *g)
{
	return reflector_stats(g->r)->watchlist_fallbacks == 1 && reflector_synced(g->r) && g->s && g->watching;
}

static void test_reflector_watchlist_refused(void **state)
{
	struct reflector_config cfg = { .path = "/api/v1/pods", .kind = "Pod", .watchlist = true, .seed = 5 };
	struct rig g = { .c = client() };

	write_str("settings", "{\"watchlist\":false}");       /* a 1.33 server: WatchList off */
	assert_int_equal(reflector_new(&cfg, &g.r), 0);
	assert_true(rig_run(&g, 10000, rig_fell_back));
	assert_int_equal(reflector_stats(g.r)->lists, 1);
	assert_int_equal(reflector_count(g.r), 2);
	http_stream_close(g.s);
	reflector_free(g.r);
	http_client_free(g.c);
}

static void test_prerequisites_missing(void **state)
{
	print_message("skip: needs /usr/bin/python3 and openssl (scripts/deps.sh test)\n");
	skip();
}

static bool have_prerequisites(void)
{
	return access("/usr/bin/python3", X_OK) == 0 &&
	       (access("/usr/bin/openssl", X_OK) == 0 || access("/bin/openssl", X_OK) == 0);
}

int main(void)
{
	const struct CMUnitTest missing[] = { cmocka_unit_test(test_prerequisites_missing) };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_get_node, reset),
		cmocka_unit_test_setup(test_keepalive, reset),
		cmocka_unit_test_setup(test_token_rotated_on_disk, reset),
		cmocka_unit_test_setup(test_token_401_rereads, reset),
		cmocka_unit_test_setup(test_401_retried_once_only, reset),
		cmocka_unit_test_setup(test_403_404_not_retried, reset),
		cmocka_unit_test_setup(test_429_honours_retry_after, reset),
		cmocka_unit_test_setup(test_retry_after_capped, reset),
		cmocka_unit_test_setup(test_500_three_times_then_ok, reset),
		cmocka_unit_test_setup(test_500_forever_within_budget, reset),
		cmocka_unit_test_setup(test_503_bounded_by_attempts, reset),
		cmocka_unit_test_setup(test_dropped_connection_retried, reset),
		cmocka_unit_test_setup(test_bad_json_reaches_the_parser, reset),
		cmocka_unit_test_setup(test_oversized_body, reset),
		cmocka_unit_test_setup(test_hang_times_out, reset),
		cmocka_unit_test_setup(test_cancel, reset),
		cmocka_unit_test_setup(test_wrong_ca_refused, reset),
		cmocka_unit_test_setup(test_wrong_name_refused, reset),
		cmocka_unit_test_setup(test_server_url_rules, reset),
		cmocka_unit_test_setup(test_in_cluster_environment, reset),
		cmocka_unit_test_setup(test_user_agent, reset),
		cmocka_unit_test_setup(test_patch_node, reset),
		cmocka_unit_test_setup(test_list_pods, reset),
		cmocka_unit_test_setup(test_list_nodes_paging, reset),
		cmocka_unit_test_setup(test_node_names, reset),
		cmocka_unit_test_setup(test_token_file_problems, reset),
		cmocka_unit_test_setup(test_token_never_in_errors, reset),
		cmocka_unit_test_setup(test_malformed_requests_refused, reset),
		cmocka_unit_test_setup(test_stream_events_in_order, stream_reset),
		cmocka_unit_test_setup(test_stream_initial_state, stream_reset),
		cmocka_unit_test_setup(test_stream_lines_split_and_joined, stream_reset),
		cmocka_unit_test_setup(test_stream_line_too_long, stream_reset),
		cmocka_unit_test_setup(test_stream_timeout_seconds, stream_reset),
		cmocka_unit_test_setup(test_stream_gone, stream_reset),
		cmocka_unit_test_setup(test_stream_429_retry_after, stream_reset),
		cmocka_unit_test_setup(test_stream_token_rotation, stream_reset),
		cmocka_unit_test_setup(test_stream_many_at_once, stream_reset),
		cmocka_unit_test_setup(test_stream_close_in_callback, stream_reset),
		cmocka_unit_test_setup(test_stream_whole_body_and_cut, stream_reset),
		cmocka_unit_test_setup(test_stream_cancel, stream_reset),
		cmocka_unit_test_setup(test_stream_tls_verified, stream_reset),
		cmocka_unit_test_setup(test_reflector_over_streams, stream_reset),
		cmocka_unit_test_setup(test_reflector_watchlist_refused, stream_reset),
	};

	if (!have_prerequisites())
		return cmocka_run_group_tests_name("http", missing, NULL, NULL);
	return cmocka_run_group_tests_name("http", tests, group_setup, group_teardown);
}
