/* pod_event.c - reason, action, type and a bounded note for the Event of a partial or unattached GPU pod. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"
#include "report/render/pod_event.h"
#include "report/render/render.h"

#define POD_EVENT_DETAILS 2             /* failed findings whose message the note quotes */

/* Copy @s into @dst (POD_EVENT_NOTE_MAX + 1 bytes), cut on a UTF-8 boundary with "..." when too long. */
static void pod_event_fit(const char *s, char *dst)
{
	size_t n = render_cut(s, POD_EVENT_NOTE_MAX);

	memcpy(dst, s, n);
	strcpy(dst + n, s[n] ? "..." : "");
}

/* A Warning to Check, for @reason (static). */
static void pod_event_warning(struct pod_event *ret, const char *reason)
{
	*ret = (struct pod_event){ .type = "Warning", .action = "Check", .reason = reason };
}

/*
 * The note of @ret from the text built in @sb (freed): shown by kubectl describe, so no control
 * characters whatever the pod carried, cut to fit; @fallback when building ran out of memory.
 */
static void pod_event_note(struct strbuf *sb, const char *fallback, struct pod_event *ret)
{
	char *printable = sb->oom ? NULL : strbuf_printable(sb->s ? sb->s : "", 4 * POD_EVENT_NOTE_MAX);

	pod_event_fit(printable ? printable : fallback, ret->note);
	free(printable);
	strbuf_free(sb);
}

bool pod_event_build(const struct attach_result *r, enum profile_kind kind, struct pod_event *ret)
{
	const char *runtime = profile_runtime_name(kind);
	const struct finding *first = NULL;
	struct strbuf sb = { 0 }, ids = { 0 }, details = { 0 };
	size_t n_fail = 0;

	if (r->verdict != ATTACH_UNATTACHED && r->verdict != ATTACH_PARTIAL)
		return false;
	for (size_t i = 0; i < ATTACH__COUNT; i++) {
		const char *id = attach_finding_name((enum attach_finding_id)i);

		if (r->findings[i].status != CHECK_FAIL)
			continue;
		strbuf_appendf(&ids, "%s%s", ids.len ? ", " : "", id);
		if (n_fail++ < POD_EVENT_DETAILS)
			strbuf_appendf(&details, " %s: %s.", id, r->findings[i].message);
		if (!first)
			first = &r->findings[i];
	}
	pod_event_warning(ret, r->verdict == ATTACH_UNATTACHED ? "TCPXOUnattached" : "TCPXOPartiallyAttached");
	if (r->verdict == ATTACH_UNATTACHED) {
		strbuf_appendf(&sb, "requests %lld GPUs and carries no %s wiring: NCCL will use TCP sockets over eth0. "
			       "Remedy: reference runtimeRef %s in the TrainJob (or wire the pod: %s fail; "
			       "tcpxo-agent workloads shows each finding).", r->gpus,
			       profile_fabric_name(kind), runtime ? runtime : "torch-distributed-tcpxo",
			       ids.s ? ids.s : "no finding");
	} else {
		strbuf_appendf(&sb, "%s wiring incomplete (%s fail%s): NCCL will fail at init or fall back to TCP.",
			       profile_fabric_name(kind), ids.s ? ids.s : "", n_fail == 1 ? "s" : "");
		strbuf_append(&sb, details.s ? details.s : "");
		sb.oom |= details.oom;
		if (first && first->remedy)
			strbuf_appendf(&sb, " Remedy: %s.", first->remedy);
		else
			strbuf_appendf(&sb, " Remedy: reference runtimeRef %s.", runtime ? runtime : "torch-distributed-tcpxo");
	}
	pod_event_note(&sb, "TCPXO wiring incomplete: see tcpxo-agent workloads", ret);
	strbuf_free(&ids);
	strbuf_free(&details);
	return true;
}

bool pod_event_transport(const struct transport_result *t, struct pod_event *ret)
{
	struct strbuf sb = { 0 };

	/* A partial seen once may be ranks still connecting: only the second sample in a row posts. */
	if (t->state != TRANSPORT_TCP && !(t->state == TRANSPORT_PARTIAL && t->repeated))
		return false;
	pod_event_warning(ret, t->state == TRANSPORT_TCP ? "TCPXONotInUse" : "TCPXOPartialRails");
	if (t->state == TRANSPORT_TCP) {
		strbuf_appendf(&sb, "Transport tcp: %s. Check that NCCL loads the FasTrak plugin "
			       "(NCCL_DEBUG=INFO says NET/FasTrak) and that the pod's TCPXO daemon runs; "
			       "tcpxo-agent workloads shows the pod's wiring.", t->evidence);
	} else {
		strbuf_appendf(&sb, "Transport partial (%zu of %u NIC addresses) on two samples in a row: %s. Check the "
			       "TCPXO daemon's NICs (--gpu_nic_preset) and NCCL_FASTRAK_IFNAME in the pod.", t->rails,
			       t->need, t->evidence);
	}
	pod_event_note(&sb, "TCPXO transport not in use: see tcpxo-agent workloads", ret);
	return true;
}
