/* checkfx.h - a healthy A3 Mega / A3 High observation and profile for the host and daemon checks' tests. */
#pragma once

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/checks/checks.h"

struct fx {
	struct obs_kube k;               /* the API facts f->o lends */
	struct observation o;
	struct profile p;
	struct obs_pci_func pci[32];
	struct obs_aperture_entry ap[16];
	struct obs_devnode dn[16];
	struct obs_host_file files[16];
	struct profile_nic nics[8];
	struct obs_process procs[4];
	struct finding c;
};

static const char *const llcm[8] = {
	"0000:00:10.0", "0000:00:11.0", "0000:00:12.0", "0000:00:13.0",
	"0000:80:10.0", "0000:80:11.0", "0000:80:12.0", "0000:80:13.0",
};

static const char *const lib64[] = {
	"a3plus_guest_config.textproto", "a3plus_tuner_config.textproto", "libcuda.so", "libcuda.so.1",
	"libnccl-net.so", "libnccl-net_internal.so", "libnccl-tuner.so", "libnccl.so.2.28.7",
	"libnvidia-ml.so.1", "nccl-env-profile.sh", "libnccl.so.2",
};

/* A healthy A3 Mega (or, with PROFILE_TCPX, an A3 High: 4 NICs, no LLCM, no dmabuf). */
static inline struct fx *fx_new(enum profile_kind kind)
{
	struct fx *f = calloc(1, sizeof(*f));
	size_t n_nics = kind == PROFILE_TCPX ? 4 : 8, np = 0;

	assert_non_null(f);
	f->o.kube = &f->k;
	f->p.kind = kind;
	f->p.n_gpus = 8;
	for (size_t i = 0; i < 8; i++) {
		snprintf(f->pci[np].bdf, OBS_BDF_MAX, "0000:%02zx:00.0", i < 4 ? 4 + i : 0x84 + i);
		f->pci[np++].kind = PCI_KIND_GPU;
	}
	for (size_t i = 0; i < n_nics; i++) {
		struct profile_nic *n = &f->nics[i];

		snprintf(n->name, sizeof(n->name), "eth%zu", i + 1);
		snprintf(n->bdf, sizeof(n->bdf), "0000:%02zx:00.0", i < 4 ? 6 + i : 0x86 + i);
		snprintf(n->ipv4, sizeof(n->ipv4), "10.0.%zu.3/32", 16 + i);
		n->state = NIC_STATE_UP;
	}
	f->p.nics = f->nics;
	f->p.n_nics = n_nics;
	if (kind == PROFILE_TCPXO) {
		for (size_t i = 0; i < 8; i++) {
			struct obs_aperture_entry *e = &f->ap[i];
			char ip[32];

			snprintf(f->pci[np].bdf, OBS_BDF_MAX, "%s", llcm[i]);
			f->pci[np++].kind = PCI_KIND_LLCM;
			snprintf(e->name, sizeof(e->name), "%s", llcm[i]);
			e->type = OBS_FILE_DIR;
			e->ids_known = true;
			e->vendor = 0x1ae0;
			e->device = 0x0084;
			e->n_resources = 5;
			e->bar4 = OBS_BAR4_OK;
			e->bar4_mapped = true;
			snprintf(ip, sizeof(ip), "10.0.%zu.3", 16 + i);
			e->bar4_ipv4 = inet_addr(ip);
		}
		f->o.host.aperture.present = true;
		f->o.host.aperture.n = 8;
	}
	f->o.pci.v = f->pci;
	f->o.pci.n = np;
	f->o.pci.status.state = PROBE_OK;
	f->o.host.aperture.v = f->ap;
	f->o.host.aperture.status.state = PROBE_OK;

	for (size_t i = 0; i < 8; i++)
		snprintf(f->dn[i].name, sizeof(f->dn[i].name), "nvidia%zu", i);
	snprintf(f->dn[8].name, sizeof(f->dn[8].name), "nvidiactl");
	snprintf(f->dn[9].name, sizeof(f->dn[9].name), "nvidia-uvm");
	snprintf(f->dn[10].name, sizeof(f->dn[10].name), "dmabuf_import_helper");
	for (size_t i = 0; i < 11; i++)
		f->dn[i].type = OBS_FILE_CHAR;
	if (kind == PROFILE_TCPX)
		f->dn[10].type = OBS_FILE_ABSENT;
	f->o.host.devnodes.v = f->dn;
	f->o.host.devnodes.n = 11;
	f->o.host.devnodes.n_gpus = 8;
	f->o.host.devnodes.status.state = PROBE_OK;

	for (size_t i = 0; i < sizeof(lib64) / sizeof(lib64[0]); i++) {
		f->files[i].name = (char *)lib64[i];
		f->files[i].type = OBS_FILE_REGULAR;
	}
	f->o.host.nvpath.dir = OBS_FILE_DIR;
	f->o.host.nvpath.smi = OBS_FILE_REGULAR;
	f->o.host.nvpath.lib64_dir = OBS_FILE_DIR;
	f->o.host.nvpath.lib64 = f->files;
	f->o.host.nvpath.n_lib64 = sizeof(lib64) / sizeof(lib64[0]);
	f->o.host.nvpath.status.state = PROBE_OK;

	f->o.host.procs.v = f->procs;
	f->o.host.procs.status.state = PROBE_OK;
	return f;
}

static inline void fx_free(struct fx *f)
{
	free(f->c.message);
	free(f->c.remedy);
	free(f->p.marks);
	free(f);
}

static inline const char *check_status_name_test(enum check_status s)
{
	static const char *const names[] = { "skip", "pass", "warn", "fail" };

	return (unsigned)s < 4 ? names[s] : "?";
}

/* Run check @id as the evaluation does, expect @st, and (when not NULL) the message to contain each of the NULL-ended strings. */
static inline void expect(struct fx *f, enum check_id id, enum check_status st, ...)
{
	va_list ap;
	const char *s;

	assert_int_equal(evaluate_check(id, &f->o, &f->p, &f->c), 0);
	if (f->c.status != st)
		fail_msg("status %s, want %s: %s", check_status_name_test(f->c.status),
			 check_status_name_test(st), f->c.message);
	va_start(ap, st);
	while ((s = va_arg(ap, const char *)))
		if (!strstr(f->c.message, s))
			fail_msg("message lacks \"%s\": %s", s, f->c.message);
	va_end(ap);
}
