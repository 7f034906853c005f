/* cmdline.c - /proc/<pid>/cmdline splitting and GPUDirect daemon argument findings (pure). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/cmdline.h"

#define CMDLINE_SCRIPT_MAX (64 * 1024)  /* bytes of an `sh -c` script examined */
#define CMDLINE_SCRIPT_WORDS 1024
#include "probes/model/obs_host.h"
#include "probes/model/strbuf.h"

#define CMDLINE_MANAGER "fastrak_gpumem_manager"
#define CMDLINE_ENTRYPOINT "entrypoint_rxdm_container.sh"
#define CMDLINE_TCPX "tcpgpudmarxd"

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
	       strcmp(comm, CMDLINE_TCPX) == 0 || cmdline_is_shell(comm);
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

		while (rewritten && i < len && cmdline_blank(buf[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && (rewritten ? !cmdline_blank(buf[i]) : buf[i] != '\0'))
			i++;
		end = i++;      /* past the NUL or blank that ends it */
		if (argc == max_args) {
			truncated = true;
			break;
		}
		if (strbuf_grow_array(&argv, &cap, argc, sizeof(*argv), 8) < 0)
			goto oom;
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
	strbuf_strv_free(argv, argc);
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
	if (strcmp(prog, CMDLINE_TCPX) == 0)
		return CMDLINE_DAEMON_TCPX;
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
	if (comm && strcmp(comm, CMDLINE_TCPX) == 0)
		return CMDLINE_DAEMON_TCPX;
	return CMDLINE_NOT_DAEMON;
}

const char *cmdline_daemon_name(enum cmdline_daemon d)
{
	switch (d) {
	case CMDLINE_NOT_DAEMON: return NULL;
	case CMDLINE_DAEMON_MANAGER: return CMDLINE_MANAGER;
	case CMDLINE_DAEMON_ENTRYPOINT: return CMDLINE_ENTRYPOINT;
	case CMDLINE_DAEMON_TCPX: return CMDLINE_TCPX;
	}
	return NULL;
}

enum cmdline_fabric cmdline_daemon_fabric(enum cmdline_daemon d)
{
	return d == CMDLINE_DAEMON_TCPX ? CMDLINE_FABRIC_TCPX : CMDLINE_FABRIC_TCPXO;
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

/* ---- findings ---- */

#define CMDLINE_SCRIPT_DEPTH 2          /* `sh -c "sh -c ..."`: scripts inside scripts examined */

/* What the scan saw, for the findings that depend on the whole command line. */
struct cmdline_scan {
	enum cmdline_fabric fabric;
	int v18, v20;                   /* the daemon is at least v1.0.18 / v1.0.20: 1, 0, or -1 unknown */
	struct cmdline_findings *out;
	size_t added;
	unsigned seen;                  /* TCPX: 1 << the index in cmdline_tcpx_valued of each flag seen */
	bool manual;                    /* TCPX --gpu_nic_preset manual */
};

/* The TCPX daemon's flags that take a value (seen bits in this order). */
enum { CMDLINE_PRESET, CMDLINE_TOPOLOGY, CMDLINE_SHMEM, CMDLINE_UDS, CMDLINE_SETUP, CMDLINE_TCPX_VALUED };
static const char *const cmdline_tcpx_valued[CMDLINE_TCPX_VALUED] = {
	"gpu_nic_preset", "gpu_nic_topology", "gpu_shmem_type", "uds_path", "setup_param",
};

void cmdline_findings_free(struct cmdline_findings *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].text);
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

int cmdline_findings_worst(const struct cmdline_findings *f)
{
	int worst = 0;

	for (size_t i = 0; f && i < f->n; i++)
		if ((int)f->v[i].severity > worst)
			worst = (int)f->v[i].severity;
	return worst;
}

int cmdline_findings_join(const struct cmdline_findings *f, enum cmdline_severity min_severity,
			  struct strbuf *out)
{
	int n = 0;

	for (size_t i = 0; f && i < f->n; i++) {
		if (f->v[i].severity < min_severity)
			continue;
		if (strbuf_appendf(out, "%s%s", n ? "; " : "", f->v[i].text) < 0)
			return -ENOMEM;
		n++;
	}
	return n;
}

/*
 * Whether the release @version is at least v<a>.<b>.<c>: 1 yes, 0 no, -1 unknown. Accepts an
 * optional 'v', numeric components (at most 4, each at most 9 digits) and one build suffix
 * after '-' or '_' ("v1.0.13_1", "v1.0.6-sctp"), as the release tags are written.
 */
static int cmdline_version_at_least(const char *version, unsigned long a, unsigned long b, unsigned long c)
{
	const unsigned long want[3] = { a, b, c };
	unsigned long have[4] = { 0 };
	const char *p = version;
	size_t n = 0;

	if (!p || !*p)
		return -1;
	if (*p == 'v' || *p == 'V')
		p++;
	for (;;) {
		const char *d = p;
		unsigned long x = 0;

		while (*p >= '0' && *p <= '9' && p - d < 9)
			x = x * 10 + (unsigned long)(*p++ - '0');
		if (p == d || (*p >= '0' && *p <= '9') || n == 4)
			return -1;
		have[n++] = x;
		if (*p != '.')
			break;
		p++;
	}
	if (*p && *p != '-' && *p != '_')
		return -1;
	for (size_t i = 0; i < 3; i++)
		if (have[i] != want[i])
			return have[i] > want[i];
	return 1;
}

/* Append one finding: @before, the escaped host-supplied @arg (NULL: none), @after. */
static int cmdline_add(struct cmdline_scan *s, enum cmdline_severity sev, const char *before, const char *arg,
		       const char *after)
{
	struct cmdline_findings *f = s->out;
	struct cmdline_finding *v;
	char q[96] = "", *t;

	if (arg)
		obs_host_quote(arg, q, sizeof(q));
	if (!(t = strbuf_printf("%s%s%s", before, q, after)))
		return -ENOMEM;
	v = realloc(f->v, (f->n + 1) * sizeof(*v));
	if (!v) {
		free(t);
		return -ENOMEM;
	}
	f->v = v;
	f->v[f->n++] = (struct cmdline_finding){ .severity = sev, .text = t };
	s->added++;
	return 0;
}

/* A flag's value: after '=', else the next argument unless it is a flag (then it is consumed). */
static const char *cmdline_value(const char *const *argv, size_t argc, size_t *i, const char *value)
{
	if (value)
		return value;
	if (*i + 1 < argc && argv[*i + 1][0] != '-') {
		(*i)++;
		return argv[*i];
	}
	return NULL;
}

static int cmdline_scan_args(struct cmdline_scan *s, const char *const *argv, size_t argc, bool shell, int depth);

/* Findings in a shell script's words (split on blanks; quoting is not interpreted). */
static int cmdline_scan_script(struct cmdline_scan *s, const char *script, int depth)
{
	char **words = NULL;
	size_t n = 0;
	bool trunc = false;
	int r;

	r = cmdline_split(script, strnlen(script, CMDLINE_SCRIPT_MAX), CMDLINE_SCRIPT_WORDS, &words, &n, &trunc);
	if (r == 0)
		r = cmdline_scan_args(s, (const char *const *)words, n, true, depth + 1);
	strbuf_strv_free(words, n);
	return r;
}

static int cmdline_tcpxo_flag(struct cmdline_scan *s, const char *const *argv, size_t argc, size_t *i,
			      const char *name, const char *value)
{
	const char *arg = argv[*i];

	if (strcmp(name, "num_nics") == 0 || strcmp(name, "uid") == 0 || strcmp(name, "alsologtostderr") == 0) {
		int release = strcmp(name, "num_nics") == 0 ? 20 : 18;
		char msg[160];

		if ((release == 20 ? s->v20 : s->v18) == 0)
			return 0;
		snprintf(msg, sizeof(msg), ": --%s was retired in daemon v1.0.%d (accepted, no effect); remove it",
			 name, release);
		return cmdline_add(s, CMDLINE_SEVERITY_WARN, "", arg, msg);
	}
	if (strcmp(name, "num_hops") == 0) {
		value = cmdline_value(argv, argc, i, value);
		if (!value)
			return cmdline_add(s, CMDLINE_SEVERITY_WARN, "", arg, " has no value; TCPXO expects --num_hops=2");
		if (strcmp(value, "2") != 0)
			return cmdline_add(s, CMDLINE_SEVERITY_WARN, "--num_hops=", value, ": TCPXO expects --num_hops=2");
		return 0;
	}
	if (strcmp(name, "enforce_kernel_ipv6_support") == 0 || strcmp(name, "noenforce_kernel_ipv6_support") == 0) {
		if (s->v18 == 0)
			return 0;
		if (s->v18 > 0)
			return cmdline_add(s, CMDLINE_SEVERITY_FAIL, "", arg, ": daemons v1.0.18 and later do not "
					   "define this flag and exit at start on an unknown flag; remove it");
		return cmdline_add(s, CMDLINE_SEVERITY_WARN, "", arg, ": daemons v1.0.18 and later do not define "
				   "this flag and exit at start on an unknown flag (this daemon's version is unknown); "
				   "remove it");
	}
	return 0;
}

static int cmdline_tcpx_flag(struct cmdline_scan *s, const char *const *argv, size_t argc, size_t *i,
			     const char *name, const char *value)
{
	const char *arg = argv[*i];
	size_t k = 0;

	while (k < CMDLINE_TCPX_VALUED && strcmp(name, cmdline_tcpx_valued[k]) != 0)
		k++;
	if (k == CMDLINE_TCPX_VALUED) {
		if (strcmp(name, "num_hops") == 0 || strcmp(name, "num_nics") == 0 || strcmp(name, "uid") == 0 ||
		    strcmp(name, "enforce_kernel_ipv6_support") == 0 || strcmp(name, "noenforce_kernel_ipv6_support") == 0)
			return cmdline_add(s, CMDLINE_SEVERITY_WARN, "", arg, ": a flag of the TCPXO daemon (RxDM); "
					   "the TCPX daemon tcpgpudmarxd does not take it");
		return 0;
	}
	s->seen |= 1u << k;
	value = cmdline_value(argv, argc, i, value);
	if (k == CMDLINE_PRESET) {
		s->manual = value && strcmp(value, "manual") == 0;     /* judged at the end: needs --gpu_nic_topology */
		if (!value)
			return cmdline_add(s, CMDLINE_SEVERITY_WARN, "", arg, " has no value; A3 High uses "
					   "--gpu_nic_preset a3vm");
		if (!s->manual && strcmp(value, "a3vm") != 0)
			return cmdline_add(s, CMDLINE_SEVERITY_WARN, "--gpu_nic_preset ", value,
					   ": A3 High uses --gpu_nic_preset a3vm");
	}
	if (k == CMDLINE_SHMEM && (!value || strcmp(value, "fd") != 0))
		return cmdline_add(s, CMDLINE_SEVERITY_WARN, "--gpu_shmem_type ", value ? value : "",
				   ": the TCPX plugin shares GPU memory with --gpu_shmem_type fd");
	return 0;
}

/* The arguments after the program (@shell: it is a shell, so "-c" gives a script), or a script's words. */
static int cmdline_scan_args(struct cmdline_scan *s, const char *const *argv, size_t argc, bool shell, int depth)
{
	for (size_t i = 0; i < argc; i++) {
		const char *value;
		char name[64];
		int r;

		if (strcmp(argv[i], "--") == 0)
			break;
		/* `sh -c "<script>"` (how GKE's manifests start the daemon): the script's words. */
		if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && shell) {
			if (depth < CMDLINE_SCRIPT_DEPTH && (r = cmdline_scan_script(s, argv[i + 1], depth)) < 0)
				return r;
			i++;
			continue;
		}
		if (!cmdline_flag(argv[i], name, sizeof(name), &value))
			continue;
		switch (s->fabric) {
		case CMDLINE_FABRIC_TCPXO:
			r = cmdline_tcpxo_flag(s, argv, argc, &i, name, value);
			break;
		case CMDLINE_FABRIC_TCPX:
			r = cmdline_tcpx_flag(s, argv, argc, &i, name, value);
			break;
		}
		if (r < 0)
			return -ENOMEM;
	}
	return 0;
}

int cmdline_daemon_findings(const char *const *argv, size_t argc, enum cmdline_fabric fabric,
			    const char *version, struct cmdline_findings *out)
{
	struct cmdline_scan s = {
		.fabric = fabric,
		.v18 = cmdline_version_at_least(version, 1, 0, 18),
		.v20 = cmdline_version_at_least(version, 1, 0, 20),
		.out = out,
	};
	size_t before = out->n;
	int r;

	r = argc ? cmdline_scan_args(&s, argv + 1, argc - 1, cmdline_is_shell(cmdline_basename(argv[0])), 0) : 0;
	if (r == 0 && fabric == CMDLINE_FABRIC_TCPX && argc > 0) {
		if (!(s.seen & 1u << CMDLINE_PRESET))
			r = cmdline_add(&s, CMDLINE_SEVERITY_WARN, "no --gpu_nic_preset: Google's A3 High "
					"manifests run tcpgpudmarxd --gpu_nic_preset a3vm", NULL, "");
		else if (s.manual && !(s.seen & 1u << CMDLINE_TOPOLOGY))
			r = cmdline_add(&s, CMDLINE_SEVERITY_WARN, "--gpu_nic_preset manual without "
					"--gpu_nic_topology: the daemon has no GPU-NIC map", NULL, "");
		if (r == 0 && !(s.seen & 1u << CMDLINE_SHMEM))
			r = cmdline_add(&s, CMDLINE_SEVERITY_WARN, "no --gpu_shmem_type: the TCPX plugin shares "
					"GPU memory with --gpu_shmem_type fd", NULL, "");
		if (r == 0 && !(s.seen & 1u << CMDLINE_UDS))
			r = cmdline_add(&s, CMDLINE_SEVERITY_WARN, "no --uds_path: the workers reach the daemon "
					"through the socket directory it names (Google's manifests: --uds_path "
					"/run/tcpx on a hostPath both mount)", NULL, "");
	}
	if (r < 0) {
		/* Keep what @out had: drop this call's findings. */
		for (size_t i = before; i < out->n; i++)
			free(out->v[i].text);
		out->n = before;
		return -ENOMEM;
	}
	return (int)s.added;
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
