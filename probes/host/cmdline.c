/* cmdline.c - /proc/<pid>/cmdline splitting and TCPXO daemon argument findings (pure). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/cmdline.h"

#define CMDLINE_SCRIPT_MAX (64 * 1024)  /* bytes of an `sh -c` script examined */
#define CMDLINE_SCRIPT_WORDS 1024
#include "probes/model/obs_host.h"

#define CMDLINE_MANAGER "fastrak_gpumem_manager"
#define CMDLINE_ENTRYPOINT "entrypoint_rxdm_container.sh"

static const char *const cmdline_shells[] = { "sh", "bash", "dash", "ash" };

static bool cmdline_is_shell(const char *name)
{
	for (size_t i = 0; i < sizeof(cmdline_shells) / sizeof(cmdline_shells[0]); i++)
		if (strcmp(name, cmdline_shells[i]) == 0)
			return true;
	return false;
}

bool cmdline_comm_candidate(const char *comm)
{
	/* comm is the program's base name cut to 15 bytes. */
	return strcmp(comm, "fastrak_gpumem_") == 0 || strcmp(comm, "entrypoint_rxdm") == 0 ||
	       cmdline_is_shell(comm);
}

void cmdline_argv_free(char **argv, size_t argc)
{
	if (!argv)
		return;
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

static bool cmdline_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int cmdline_split(const char *buf, size_t len, size_t max_args, char ***ret_argv, size_t *ret_argc,
		  bool *ret_truncated)
{
	bool rewritten = memchr(buf, '\0', len) == NULL;
	char **argv = NULL;
	size_t argc = 0, cap = 0, i = 0;
	bool truncated = false;

	while (i < len) {
		size_t start, end;

		if (rewritten) {
			while (i < len && cmdline_blank(buf[i]))
				i++;
			if (i == len)
				break;
			start = i;
			while (i < len && !cmdline_blank(buf[i]))
				i++;
			end = i;
		} else {
			start = i;
			while (i < len && buf[i] != '\0')
				i++;
			end = i;
			i++;            /* the NUL */
		}
		if (argc == max_args) {
			truncated = true;
			break;
		}
		if (argc == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			char **n = realloc(argv, ncap * sizeof(*argv));

			if (!n)
				goto oom;
			argv = n;
			cap = ncap;
		}
		argv[argc] = strndup(buf + start, end - start);
		if (!argv[argc])
			goto oom;
		argc++;
	}
	*ret_argv = argv;
	*ret_argc = argc;
	if (truncated)
		*ret_truncated = true;
	return 0;
oom:
	cmdline_argv_free(argv, argc);
	return -ENOMEM;
}

static const char *cmdline_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

enum cmdline_daemon cmdline_daemon_kind(const char *comm, const char *const *argv, size_t argc)
{
	const char *prog = argc > 0 ? cmdline_basename(argv[0]) : "";

	if (strcmp(prog, CMDLINE_MANAGER) == 0)
		return CMDLINE_DAEMON_MANAGER;
	if (strcmp(prog, CMDLINE_ENTRYPOINT) == 0)
		return CMDLINE_DAEMON_ENTRYPOINT;
	if (cmdline_is_shell(prog)) {
		/* sh [-opts] /fts/entrypoint_rxdm_container.sh ...: the first non-option. */
		for (size_t i = 1; i < argc; i++) {
			if (argv[i][0] == '-')
				continue;
			if (strcmp(cmdline_basename(argv[i]), CMDLINE_ENTRYPOINT) == 0)
				return CMDLINE_DAEMON_ENTRYPOINT;
			break;
		}
	}
	/* A rewritten or unreadable cmdline: the kernel's comm still names the manager. */
	if (comm && strcmp(comm, "fastrak_gpumem_") == 0)
		return CMDLINE_DAEMON_MANAGER;
	return CMDLINE_NOT_DAEMON;
}

const char *cmdline_daemon_name(enum cmdline_daemon d)
{
	switch (d) {
	case CMDLINE_NOT_DAEMON: return NULL;
	case CMDLINE_DAEMON_MANAGER: return CMDLINE_MANAGER;
	case CMDLINE_DAEMON_ENTRYPOINT: return CMDLINE_ENTRYPOINT;
	}
	return NULL;
}

/* Split "-name", "--name=value" into name and value (value NULL when there is no '='). */
static bool cmdline_flag(const char *arg, char *name, size_t name_len, const char **value)
{
	const char *eq;
	size_t n;

	if (arg[0] != '-' || arg[1] == '\0')
		return false;
	arg += arg[1] == '-' ? 2 : 1;
	eq = strchr(arg, '=');
	n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (n == 0 || n >= name_len)
		return false;
	memcpy(name, arg, n);
	name[n] = '\0';
	*value = eq ? eq + 1 : NULL;
	return true;
}

/* Append one finding: @before, the escaped host-supplied @arg, @after. */
static int cmdline_add(struct strbuf *out, int *count, const char *before, const char *arg,
		       const char *after)
{
	char q[96];

	obs_host_quote(arg, q, sizeof(q));
	if (*count > 0 && strbuf_append(out, "; ") < 0)
		return -ENOMEM;
	(*count)++;
	return strbuf_appendf(out, "%s%s%s", before, q, after);
}

/* Findings in a shell script's words (split on blanks; quoting is not interpreted). */
static int cmdline_script_findings(const char *script, struct strbuf *out)
{
	char **words = NULL, **argv;
	size_t n = 0;
	bool trunc = false;
	int r;

	r = cmdline_split(script, strnlen(script, CMDLINE_SCRIPT_MAX), CMDLINE_SCRIPT_WORDS, &words, &n, &trunc);
	if (r < 0)
		return r;
	argv = calloc(n + 1, sizeof(*argv));
	if (!argv) {
		cmdline_argv_free(words, n);
		return -ENOMEM;
	}
	argv[0] = (char *)"sh";         /* argv[0] is never examined */
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = words[i];
	r = cmdline_daemon_findings((const char *const *)argv, n + 1, out);
	free(argv);
	cmdline_argv_free(words, n);
	return r;
}

int cmdline_daemon_findings(const char *const *argv, size_t argc, struct strbuf *out)
{
	int count = 0;

	for (size_t i = 1; i < argc; i++) {
		const char *value;
		char name[64];
		int r = 0;

		if (strcmp(argv[i], "--") == 0)
			break;
		/* `sh -c "<script>"` (how GKE's manifests start the daemon): the script's words. */
		if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && cmdline_is_shell(cmdline_basename(argv[0]))) {
			r = cmdline_script_findings(argv[i + 1], out);
			if (r < 0)
				return r;
			count += r;
			i++;
			continue;
		}
		if (!cmdline_flag(argv[i], name, sizeof(name), &value))
			continue;
		if (strcmp(name, "num_nics") == 0) {
			r = cmdline_add(out, &count, "", argv[i], ": --num_nics was retired in "
					"daemon v1.0.20 (accepted, no effect); remove it");
		} else if (strcmp(name, "num_hops") == 0) {
			const char *shown = argv[i];

			if (!value && i + 1 < argc && argv[i + 1][0] != '-') {
				value = argv[i + 1];
				i++;
			}
			if (!value)
				r = cmdline_add(out, &count, "", shown,
						" has no value; TCPXO expects --num_hops=2");
			else if (strcmp(value, "2") != 0)
				r = cmdline_add(out, &count, "--num_hops=", value,
						": TCPXO expects --num_hops=2");
		} else if (strcmp(name, "enforce_kernel_ipv6_support") == 0 ||
			   strcmp(name, "noenforce_kernel_ipv6_support") == 0) {
			r = cmdline_add(out, &count, "", argv[i], ": daemons v1.0.18 and later do "
					"not know this flag and are believed to exit at start; remove it");
		}
		if (r < 0)
			return -ENOMEM;
	}
	return count;
}

int cmdline_format(const char *const *argv, size_t argc, size_t max_bytes, struct strbuf *out)
{
	size_t start = out->len;

	for (size_t i = 0; i < argc; i++) {
		char q[256];

		obs_host_quote(argv[i], q, sizeof(q));
		if (out->len - start + strlen(q) + 1 > max_bytes)
			return strbuf_append(out, i ? " ..." : "...");
		if (strbuf_appendf(out, "%s%s", i ? " " : "", q) < 0)
			return -ENOMEM;
	}
	return 0;
}
