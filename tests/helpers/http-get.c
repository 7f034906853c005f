/* http-get.c - a tiny client over probes/kube/http.c and probes/kube/kube.c for the HTTP integration tests. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes/kube/http.h"
#include "probes/kube/kube.h"
#include "probes/kube/kubenodes.h"

static void usage(FILE *f)
{
	fputs("usage: http-get [--server URL] [--token-file F] [--ca-file F] [--max-attempts N]\n"
	      "                [--max-total-ms N] [--timeout-ms N] [--repeat N]\n"
	      "                (PATH | --method M [--content-type T] [--body B] PATH\n"
	      "                 | --get-node NODE | --list-pods NODE | --patch-node NODE --body PATCH\n"
	      "                 | --list-nodes [--selector S] [--limit N] [--continue T])\n"
	      "Prints the body on stdout and one line on stderr:\n"
	      "  http-get: rc=N (ERRNO) status=N attempts=N retry_after=N ms=N error=TEXT\n"
	      "Exit: 0 when every request returned 0, 1 otherwise, 2 for bad usage.\n", f);
}

static unsigned num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > 0xffffffffUL) {
		fprintf(stderr, "http-get: not a number: %s\n", s);
		exit(2);
	}
	return (unsigned)v;
}

static const char *errname(int r)
{
	switch (-r) {
	case 0: return "OK";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case EFBIG: return "EFBIG";
	case EINTR: return "EINTR";
	case ENOMEM: return "ENOMEM";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ECONNRESET: return "ECONNRESET";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case ENETUNREACH: return "ENETUNREACH";
	case EPROTO: return "EPROTO";
	case EACCES: return "EACCES";
	default: return "E?";
	}
}

int main(int argc, char **argv)
{
	enum { O_SERVER = 256, O_TOKEN, O_CA, O_ATTEMPTS, O_TOTAL, O_TIMEOUT, O_REPEAT, O_METHOD,
	       O_CTYPE, O_BODY, O_GET_NODE, O_LIST_PODS, O_PATCH_NODE, O_LIST_NODES, O_SELECTOR,
	       O_LIMIT, O_CONTINUE };
	static const struct option opts[] = {
		{ "server", required_argument, NULL, O_SERVER },
		{ "token-file", required_argument, NULL, O_TOKEN },
		{ "ca-file", required_argument, NULL, O_CA },
		{ "max-attempts", required_argument, NULL, O_ATTEMPTS },
		{ "max-total-ms", required_argument, NULL, O_TOTAL },
		{ "timeout-ms", required_argument, NULL, O_TIMEOUT },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "method", required_argument, NULL, O_METHOD },
		{ "content-type", required_argument, NULL, O_CTYPE },
		{ "body", required_argument, NULL, O_BODY },
		{ "get-node", required_argument, NULL, O_GET_NODE },
		{ "list-pods", required_argument, NULL, O_LIST_PODS },
		{ "patch-node", required_argument, NULL, O_PATCH_NODE },
		{ "list-nodes", no_argument, NULL, O_LIST_NODES },
		{ "selector", required_argument, NULL, O_SELECTOR },
		{ "limit", required_argument, NULL, O_LIMIT },
		{ "continue", required_argument, NULL, O_CONTINUE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct http_config cfg = { 0 };
	const char *method = "GET", *ctype = NULL, *body = NULL, *node = NULL, *selector = NULL;
	const char *cont = NULL, *path = NULL;
	unsigned repeat = 1, limit = 0;
	int op = 0, opt, failed = 0;
	struct http_client *c;
	char err[256];
	int r;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case O_SERVER: cfg.server = optarg; break;
		case O_TOKEN: cfg.token_file = optarg; break;
		case O_CA: cfg.ca_file = optarg; break;
		case O_ATTEMPTS: cfg.max_attempts = num(optarg); break;
		case O_TOTAL: cfg.max_total_ms = num(optarg); break;
		case O_TIMEOUT: cfg.timeout_ms = num(optarg); break;
		case O_REPEAT: repeat = num(optarg); break;
		case O_METHOD: method = optarg; break;
		case O_CTYPE: ctype = optarg; break;
		case O_BODY: body = optarg; break;
		case O_GET_NODE: case O_LIST_PODS: case O_PATCH_NODE:
			node = optarg;
			op = opt;
			break;
		case O_LIST_NODES: op = opt; break;
		case O_SELECTOR: selector = optarg; break;
		case O_LIMIT: limit = num(optarg); break;
		case O_CONTINUE: cont = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (op == 0) {
		if (optind != argc - 1) {
			usage(stderr);
			return 2;
		}
		path = argv[optind];
	} else if (optind != argc) {
		usage(stderr);
		return 2;
	}

	r = http_client_new(&cfg, &c, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "http-get: rc=%d (%s) client: %s\n", r, errname(r), err);
		return 1;
	}
	for (unsigned i = 0; i < repeat; i++) {
		struct http_response resp;
		struct timespec t0, t1;
		char *list_path = NULL;
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		switch (op) {
		case O_GET_NODE: r = kube_get_node(c, node, &resp); break;
		case O_LIST_PODS: r = kube_list_pods(c, node, &resp); break;
		case O_PATCH_NODE: r = kube_patch_node(c, node, false, body, &resp); break;
		case O_LIST_NODES:
			r = kubenodes_path(selector, cont, limit, &list_path);
			if (r == 0)
				r = http_request(c, "GET", list_path, NULL, NULL, &resp);
			else
				resp = (struct http_response){ .error = "out of memory" };
			free(list_path);
			list_path = NULL;
			break;
		default: r = http_request(c, method, path, ctype, body, &resp); break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (resp.body)
			fwrite(resp.body, 1, resp.len, stdout);
		fprintf(stderr, "http-get: rc=%d (%s) status=%ld attempts=%u retry_after=%u ms=%ld error=%s\n",
			r, errname(r), resp.status, resp.attempts, resp.retry_after_s, ms, resp.error);
		http_response_free(&resp);
		failed |= r < 0;
	}
	http_client_free(c);
	return failed ? 1 : 0;
}
