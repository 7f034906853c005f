/* kube_event.h - an events.k8s.io/v1 Event object as the agent posts it, for a Node or a Pod (pure). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define KUBE_EVENT_CONTROLLER "fabric.aicr.run/tcpxo-agent"     /* reportingController */
#define KUBE_EVENT_NAME_MAX 253                 /* metadata.name: a DNS subdomain */
#define KUBE_EVENT_FIELD_MAX 128                /* reason, action, reportingInstance */
#define KUBE_EVENT_NOTE_MAX 1024                /* note, in bytes */
#define KUBE_EVENT_TIME_MAX 40                  /* "2026-01-20T10:00:00.123456Z" */

/* The object an Event is about (its regarding reference). */
struct kube_event_ref {
	const char *kind;               /* "Node" or "Pod" */
	const char *ns;                 /* the Pod's namespace; NULL for the Node */
	const char *name;
	const char *uid;                /* NULL or "" when unknown: left out */
};

struct kube_event {
	const char *ns;                 /* where the Event lives: the Pod's namespace, "default" for the Node */
	const char *name;               /* metadata.name, from kube_event_name() */
	const char *time;               /* eventTime: RFC 3339 UTC with microseconds */
	struct kube_event_ref regarding;
	const char *type;               /* "Normal" or "Warning" */
	const char *reason, *action, *note;
	const char *instance;           /* reportingInstance: the node's name */
};

/**
 * kube_event_name() - a name for an Event about @regarding, unique by @unique (the time in ns,
 * as client-go's recorder does): "<regarding>.<hex>". @regarding is cut (and anything not
 * [a-z0-9.-] dropped) so the name stays a DNS subdomain of at most KUBE_EVENT_NAME_MAX
 * characters; "tcpxo-agent" stands in when nothing is left.
 * @buf: at least KUBE_EVENT_NAME_MAX + 1 bytes.
 * Return: 0; -ENOSPC when @len is too small.
 */
int kube_event_name(const char *regarding, uint64_t unique, char *buf, size_t len);

/**
 * kube_event_render() - the Event as compact JSON (apiVersion events.k8s.io/v1), with
 * reportingController KUBE_EVENT_CONTROLLER.
 * @ret: malloc'd, written on success.
 * Return: 0; -EINVAL when a required field is missing or longer than the API server accepts
 * (reason, action, reportingInstance 128 characters, note 1 KiB, a name over 253); -ENOMEM.
 */
int kube_event_render(const struct kube_event *e, char **ret);
