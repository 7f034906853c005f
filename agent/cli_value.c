/* cli_value.c - the values of options: durations, byte rates, the key prefix, each checked against its range. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "probes/kube/kubename.h"
#include "probes/model/timetext.h"

int cli_refuse(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

int cli_duration_in(const char *prog, const char *name, const char *s, unsigned min_s, unsigned max_s,
			   bool zero, unsigned *ret_s)
{
	unsigned long long v = 0;
	int r = timetext_duration_parse(s, max_s, &v);

	if (r == -EINVAL)
		return cli_refuse(prog, "%s: expected a duration such as 90s, 5m or 1h30m (a bare number is seconds), got "
			"'%s'", name, s);
	if (r == -ERANGE) {
		bool h = max_s % 3600 == 0, m = max_s % 60 == 0;

		fprintf(stderr, "%s: %s: at most %u%s (%u seconds), got '%s'\n", prog, name,
			h ? max_s / 3600 : m ? max_s / 60 : max_s, h ? "h" : m ? "m" : "s", max_s, s);
		return -EINVAL;
	}
	if ((v || !zero) && v < min_s)
		return cli_refuse(prog, "%s: at least %u seconds%s, got '%s'", name, min_s,
			zero ? " (or 0 for off)" : "", s);
	*ret_s = (unsigned)v;
	return 0;
}

static int cli_check_prefix(const char *p)
{
	size_t n = strlen(p);

	/* A DNS subdomain followed by '/': the qualified-name prefix of an annotation key. */
	if (n < 2 || n > 254 || p[n - 1] != '/')
		return -EINVAL;
	for (size_t i = 0; i + 1 < n; i++) {
		char c = p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
			return -EINVAL;
	}
	if (p[0] == '.' || p[0] == '-' || p[n - 2] == '.' || p[n - 2] == '-')
		return -EINVAL;
	return 0;
}


int cli_rate(const char *prog, const char *name, const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "", 1 }, { "B", 1 }, { "kB", 1e3 }, { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
		{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	};
	char unit[8];
	double v, mul = 0;
	char *end;
	size_t n;

	errno = 0;
	v = strtod(s, &end);
	n = strlen(end);
	if (n >= 2 && strcmp(end + n - 2, "/s") == 0)
		n -= 2;
	if (!errno && end != s && strspn(s, "0123456789.") == (size_t)(end - s) && n < sizeof(unit)) {
		memcpy(unit, end, n);
		unit[n] = '\0';
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(unit, units[i].unit) == 0)
				mul = units[i].mul;
	}
	/* strtod also reads "inf", "nan", hex and exponents: the number must be digits and a point only. */
	if (!mul || !(v * mul >= (double)min && v * mul <= (double)max))
		return cli_refuse(prog, "%s: expected a rate such as 100MB/s, 1.5GB/s or 64MiB/s from %llu to %llu "
			"bytes/s, got '%s'", name, (unsigned long long)min, (unsigned long long)max, s);
	*ret = (uint64_t)(v * mul);
	return 0;
}

/* More than one input file of runtime is "-": only one can have standard input. */
static bool cli_stdin_twice(const struct cli_options *o)
{
	const char *files[] = { o->nodes_file, o->runtime_file, o->networks_file };
	int n = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		n += files[i] && strcmp(files[i], "-") == 0;
	return n > 1;
}

/* The values' own rules, and what each command needs. */
int cli_check_values(const char *prog, const struct cli_options *o)
{

	if (!*o->root)
		return cli_refuse(prog, "--root must not be empty");
	if (cli_check_prefix(o->prefix) < 0)
		return cli_refuse(prog, "--prefix: expected a DNS subdomain ending in '/', got '%s'", o->prefix);
	if (o->node && strlen(o->node) > KUBENAME_MAX)
		return cli_refuse(prog, "--node: a node name has at most %d characters", KUBENAME_MAX);
	if (o->name && !kubename_valid(o->name))
		return cli_refuse(prog, "--name: a runtime's name is a DNS subdomain ([a-z0-9.-], at most 253 "
			"characters)");
	if (o->cmd == CLI_CMD_RUNTIME && cli_stdin_twice(o))
		return cli_refuse(prog, "runtime: standard input (-) can feed one of --nodes-file, --runtime-file "
			"and --networks-file");
	if (o->cmd == CLI_CMD_HEALTH && !o->health_file)
		return cli_refuse(prog, "health needs --health-file");
	/* No accidental daemon: on a workstation, a bare tcpxo-agent would loop with no node to publish on. */
	if (o->cmd == CLI_CMD_DAEMON && !o->node)
		return cli_refuse(prog, "no node name: the daemon publishes on its own Node; give --node NAME (the "
			"DaemonSet sets NODE_NAME from spec.nodeName), or run --once to look at this machine once "
			"(see --help)");
	if (o->cmd == CLI_CMD_WORKLOADS && o->prog == CLI_PROG_FABRIC && !o->node)
		return cli_refuse(prog, "workloads needs the node's name: kubectl fabric workloads NODE");
	if (o->cmd == CLI_CMD_WORKLOADS && o->prog == CLI_PROG_FABRIC && !kubename_valid(o->node))
		return cli_refuse(prog, "workloads: '%s' is not a node name (a DNS subdomain: [a-z0-9.-])",
			o->node);
	return 0;
}
