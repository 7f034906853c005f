/* pod_event.h - the content of the Kubernetes Event a partial or unattached GPU pod gets (pure; posted by the daemon). */
#pragma once

#include <stdbool.h>

#include "report/checks/attach.h"
#include "report/checks/transport.h"

#define POD_EVENT_NOTE_MAX 1024         /* events.k8s.io/v1 note: at most 1 KiB */

struct pod_event {
	const char *type;               /* "Warning" */
	const char *reason;             /* "TCPXOUnattached" or "TCPXOPartiallyAttached" */
	const char *action;             /* "Check" */
	char note[POD_EVENT_NOTE_MAX + 1];      /* what failed and the remedy, cut on a UTF-8 boundary */
};

#define POD_EVENT_CONTROLLER "fabric.aicr.run/tcpxo-agent"     /* reportingController */

/**
 * pod_event_build() - the Event of one judged pod: type Warning, action Check, reason
 * TCPXOUnattached (no wiring: NCCL runs over TCP on eth0) or TCPXOPartiallyAttached (a finding
 * fails: NCCL fails at init or falls back), and a note of at most POD_EVENT_NOTE_MAX bytes that
 * names the failed findings, the first ones' messages, and the remedy ("reference runtimeRef
 * torch-distributed-tcpxo"). Hostile text from the pod is escaped.
 * @kind: the node's profile (which runtime the remedy names).
 * @ret: written when an Event is due.
 *
 * Return: true when the pod gets an Event; false for attached and not-fabric pods (nothing written).
 */
bool pod_event_build(const struct attach_result *r, enum profile_kind kind, struct pod_event *ret);

/**
 * pod_event_transport() - the Event of a pod whose processes do not use the fabric they are
 * wired for: type Warning, action Check, reason TCPXONotInUse (state tcp: no buffer-op client
 * of the TCPXO daemon after the grace, and bulk traffic both ways: NCCL runs over TCP) or
 * TCPXOPartialRails (state partial on two samples in a row: clients on fewer NIC addresses than
 * its GPUs need), and a note of at most POD_EVENT_NOTE_MAX bytes: the evidence, then what to
 * look at.
 * Return: true when the pod gets an Event; false for every other state, a partial seen on one
 * sample and idle included (nothing written).
 */
bool pod_event_transport(const struct transport_result *t, struct pod_event *ret);
