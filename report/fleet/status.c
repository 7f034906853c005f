/* status.c - pure: the fleet's status from the Nodes its agents published: which nodes are listed, ready, stale, and why not. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/errmsg.h"
#include "probes/model/timetext.h"
#include "report/checks/checks.h"
#include "report/fleet/status.h"

/* Whether the status lists @n: a fabric profile other than "none", or an A3 GPU machine type the agent knows. */
static bool status_listed(const struct coherence_node *n)
{
	if (n->profile && strcmp(n->profile, "none") != 0)
		return true;
	return check_machine_kind(n->itype);
}

static int status_cause(struct stresult_node *sn, const char *id)
{
	char *c;

	for (size_t k = 0; k < sn->n_causes; k++)
		if (strcmp(sn->causes[k], id) == 0)
			return 0;       /* a check listed twice by a hostile attachment: once here */
	c = strdup(id);
	if (!c)
		return -ENOMEM;
	sn->causes[sn->n_causes++] = c;
	return 0;
}

static int status_strdup(const char *s, char **ret)
{
	*ret = NULL;
	if (!s)
		return 0;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* A count the attachment's pairs gave (coherence_node's text), or -1. */
static int status_count(const char *text)
{
	char *end;
	long v;

	if (!text)
		return -1;
	v = strtol(text, &end, 10);
	return end != text && !*end && v >= 0 && v <= 4096 ? (int)v : -1;
}

/* The data path a published profile gives the GPUs' collectives. */
static const char *status_transport(const char *profile)
{
	static const struct {
		const char *profile, *transport;
	} paths[] = {
		{ "tcpxo", STRESULT_TRANSPORT_TCPXO },
		{ "tcpx", STRESULT_TRANSPORT_TCPX },
		{ "rdma", STRESULT_TRANSPORT_RDMA },
	};

	for (size_t i = 0; profile && i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strcmp(profile, paths[i].profile) == 0)
			return paths[i].transport;
	return NULL;
}

/*
 * What the node's heartbeat vouches for: NULL when the verdict is current, else the cause that
 * says why it cannot be vouched for (no condition, no readable heartbeat, one ahead of this clock
 * by more than the skew, one older than the staleness). Sets the row's age and stale flag.
 */
static const char *status_heartbeat(const struct coherence_node *n, long long now, unsigned period_s,
				    struct stresult_node *sn)
{
	long long hb;

	if (n->cond == COHERENCE_NODE_COND_MISSING)
		return STRESULT_CONDITION_MISSING;
	if (!n->heartbeat || timetext_parse(n->heartbeat, &hb) < 0)
		return STRESULT_HEARTBEAT_UNKNOWN;
	/* A node's clock ahead of this one: within the skew it is now; further, its age is unknown. */
	if (hb > now + STRESULT_SKEW_S)
		return STRESULT_HEARTBEAT_FUTURE;
	sn->age_s = now > hb ? now - hb : 0;
	sn->stale = period_s && sn->age_s > (long long)STRESULT_STALE_PERIODS * period_s;
	return sn->stale ? STRESULT_STALE : NULL;
}

/* One listed node's row. */
static int status_node(const struct coherence_node *n, long long now, unsigned period_s, struct stresult_node *sn)
{
	const char *hb_cause;
	int r;

	sn->age_s = -1;
	sn->transport = status_transport(n->profile);
	sn->gpus = status_count(n->gpus);
	sn->nics = status_count(n->nics);
	sn->causes = calloc(n->n_fails + 4, sizeof(*sn->causes));
	if (!sn->causes || status_strdup(n->name, &sn->name) < 0 || status_strdup(n->profile, &sn->profile) < 0 ||
	    status_strdup(n->itype, &sn->machine) < 0 || status_strdup(n->heartbeat, &sn->heartbeat) < 0)
		return -ENOMEM;
	if (!n->profile) {
		sn->unobserved = true;
		return status_cause(sn, STRESULT_UNOBSERVED);
	}
	hb_cause = status_heartbeat(n, now, period_s, sn);
	/* Unknown: the daemon could not observe the node for 30 s; its annotations keep their last values. */
	sn->unknown = hb_cause || n->cond == COHERENCE_NODE_COND_UNKNOWN || n->ready == COHERENCE_NODE_READY_MISSING ||
		      n->ready == COHERENCE_NODE_READY_BAD;
	sn->ready = n->ready == COHERENCE_NODE_READY_TRUE && !sn->unknown;
	for (size_t f = 0; f < n->n_fails; f++)
		if ((r = status_cause(sn, n->fails[f].id)) < 0)
			return r;
	if ((n->ready == COHERENCE_NODE_READY_MISSING || n->ready == COHERENCE_NODE_READY_BAD) &&
	    (r = status_cause(sn, STRESULT_READY_UNKNOWN)) < 0)
		return r;
	if (n->ready == COHERENCE_NODE_READY_FALSE && !n->n_fails && (r = status_cause(sn, STRESULT_CHECKS_UNKNOWN)) < 0)
		return r;
	if (n->cond == COHERENCE_NODE_COND_UNKNOWN && (r = status_cause(sn, STRESULT_OBSERVATION_FAILED)) < 0)
		return r;
	if (hb_cause && (r = status_cause(sn, hb_cause)) < 0)
		return r;
	return 0;
}

static int status_cmp_node(const void *a, const void *b)
{
	return strcmp(((const struct stresult_node *)a)->name, ((const struct stresult_node *)b)->name);
}

/* A (cause, node) pair of a not-ready node, to be grouped. */
struct status_pair {
	const char *id;
	size_t node;
};

static int status_cmp_pair(const void *a, const void *b)
{
	const struct status_pair *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static int status_cmp_cause(const void *a, const void *b)
{
	const struct stresult_cause *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The not-ready nodes grouped by cause: the most nodes first, then by id. */
static int status_group(struct stresult *res)
{
	struct status_pair *pairs;
	size_t np = 0, total = 0;
	int r = -ENOMEM;

	for (size_t i = 0; i < res->n_nodes; i++)
		total += res->nodes[i].ready ? 0 : res->nodes[i].n_causes;
	if (!total)
		return 0;
	pairs = calloc(total, sizeof(*pairs));
	res->causes = calloc(total, sizeof(*res->causes));
	if (!pairs || !res->causes)
		goto out;
	for (size_t i = 0; i < res->n_nodes; i++)
		for (size_t k = 0; !res->nodes[i].ready && k < res->nodes[i].n_causes; k++)
			pairs[np++] = (struct status_pair){ res->nodes[i].causes[k], i };
	qsort(pairs, np, sizeof(*pairs), status_cmp_pair);
	for (size_t i = 0; i < np;) {
		struct stresult_cause *c = &res->causes[res->n_causes];
		size_t j = i;

		while (j < np && strcmp(pairs[j].id, pairs[i].id) == 0)
			j++;
		c->id = strdup(pairs[i].id);
		c->nodes = calloc(j - i, sizeof(*c->nodes));
		res->n_causes++;
		if (!c->id || !c->nodes)
			goto out;
		for (; i < j; i++)
			c->nodes[c->n++] = pairs[i].node;
	}
	qsort(res->causes, res->n_causes, sizeof(*res->causes), status_cmp_cause);
	r = 0;
out:
	free(pairs);
	return r;
}

int status_judge(const struct coherence_node *nodes, size_t n, long long now, unsigned period_s,
		 struct stresult *ret, char *err, size_t errlen)
{
	struct stresult res = { .period_s = period_s };
	size_t listed = 0;
	int r = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		listed += status_listed(&nodes[i]);
	res.nodes = calloc(listed ? listed : 1, sizeof(*res.nodes));
	if (!res.nodes)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		if (!status_listed(&nodes[i]))
			continue;
		r = status_node(&nodes[i], now, res.period_s, &res.nodes[res.n_nodes++]);
		if (r < 0)
			goto fail;
	}
	qsort(res.nodes, res.n_nodes, sizeof(*res.nodes), status_cmp_node);
	for (size_t i = 0; i < res.n_nodes; i++) {
		if (i && strcmp(res.nodes[i].name, res.nodes[i - 1].name) == 0) {
			r = errmsg_set(err, errlen, -EINVAL, "node '%s' appears more than once in the list",
				       res.nodes[i].name);
			goto fail;
		}
		res.n_ready += res.nodes[i].ready;
		res.n_unknown += res.nodes[i].unknown;
	}
	r = status_group(&res);
	if (r < 0)
		goto fail;
	*ret = res;
	return 0;
fail:
	if (r == -ENOMEM)
		errmsg_set(err, errlen, r, "out of memory");
	stresult_free(&res);
	return r;
}
