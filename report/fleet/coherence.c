/* coherence.c - collect the TCPXO nodes of NodeLists, judge whether their mappings agree, print it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "report/fleet/coherence.h"

#define COHERENCE_PREFIX_MAX 254
#define COHERENCE_NAME_MAX 253          /* a Node name is a DNS subdomain */
#define COHERENCE_TEXT_MAX 240          /* bytes of one message from an annotation we print */
#define COHERENCE_ID_MAX 64
#define COHERENCE_ATTACH_MAX (64u << 10)
#define COHERENCE_FAILS_MAX 32          /* failed checks kept per node */
#define COHERENCE_CONTINUE_MAX (16u << 10)

enum coherence_kind {
	COHERENCE_KIND_TCPXO = 0,       /* profile annotation "tcpxo" */
	COHERENCE_KIND_UNOBSERVED,      /* labelled a3-megagpu-8g, no profile annotation yet */
	COHERENCE_KIND_TCPX,
	COHERENCE_KIND_NONE,
	COHERENCE_KIND_OTHER,           /* no profile and another machine type, or an unknown profile */
};

enum coherence_ready {
	COHERENCE_READY_TRUE = 0,
	COHERENCE_READY_FALSE,
	COHERENCE_READY_MISSING,
	COHERENCE_READY_BAD,
};

enum coherence_map {
	COHERENCE_MAP_VALID = 0,
	COHERENCE_MAP_MISSING,
	COHERENCE_MAP_MALFORMED,
	COHERENCE_MAP_INVALID,          /* parses, breaks the renderer's rules */
};

enum coherence_attach {
	COHERENCE_ATTACH_OK = 0,
	COHERENCE_ATTACH_MISSING,
	COHERENCE_ATTACH_BAD,
};

struct coherence_fail {
	char *id;
	char *message;
};

/* Only the facts of TCPXO nodes are kept; the others are counted by kind. */
struct coherence_node {
	char *name;                     /* printable (control bytes replaced), owned */
	enum coherence_kind kind;
	enum coherence_ready ready;
	char *ready_value;              /* COHERENCE_READY_BAD: the value, printable */
	enum coherence_map map;
	struct profile_iface ifaces[IFACEMAP_ENTRIES];  /* COHERENCE_MAP_VALID, sorted eth1..eth8 */
	char *map_why;                  /* COHERENCE_MAP_INVALID: the broken rules, printable */
	enum coherence_attach attach;
	struct coherence_fail *fails;
	size_t n_fails;
};

struct coherence {
	char *prefix;
	char *key_profile, *key_ready, *key_interfaces, *key_attachment;
	struct coherence_node *nodes;
	size_t n, cap;
};

/* A printable copy of hostile text: control bytes become '?', at most @max bytes, then "…". */
static char *coherence_clean(const char *s, size_t max)
{
	size_t n = strlen(s), keep = n > max ? max : n;
	char *out;

	/* Cut at a UTF-8 character boundary: never leave half a character before the "…". */
	while (keep < n && keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	out = malloc(keep + sizeof("…"));
	if (!out)
		return NULL;
	for (size_t i = 0; i < keep; i++) {
		unsigned char ch = (unsigned char)s[i];

		out[i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	out[keep] = '\0';
	if (keep < n)
		strcat(out, "…");
	return out;
}

static char *coherence_key(const char *prefix, const char *name)
{
	char *k;

	if (asprintf(&k, "%s%s", prefix, name) < 0)
		return NULL;
	return k;
}

int coherence_new(const char *prefix, struct coherence **ret)
{
	struct coherence *c;

	if (!prefix || !*prefix || strlen(prefix) > COHERENCE_PREFIX_MAX)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->prefix = strdup(prefix);
	c->key_profile = coherence_key(prefix, "profile");
	c->key_ready = coherence_key(prefix, "ready");
	c->key_interfaces = coherence_key(prefix, "interfaces");
	c->key_attachment = coherence_key(prefix, "attachment");
	if (!c->prefix || !c->key_profile || !c->key_ready || !c->key_interfaces || !c->key_attachment) {
		coherence_free(c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

static void coherence_node_clear(struct coherence_node *n)
{
	free(n->name);
	free(n->ready_value);
	free(n->map_why);
	for (size_t i = 0; i < n->n_fails; i++) {
		free(n->fails[i].id);
		free(n->fails[i].message);
	}
	free(n->fails);
	memset(n, 0, sizeof(*n));
}

/* Drop the nodes from index @from on. */
static void coherence_truncate(struct coherence *c, size_t from)
{
	while (c->n > from)
		coherence_node_clear(&c->nodes[--c->n]);
}

void coherence_reset(struct coherence *c)
{
	if (c)
		coherence_truncate(c, 0);
}

void coherence_free(struct coherence *c)
{
	if (!c)
		return;
	coherence_truncate(c, 0);
	free(c->nodes);
	free(c->prefix);
	free(c->key_profile);
	free(c->key_ready);
	free(c->key_interfaces);
	free(c->key_attachment);
	free(c);
}

/* The "checks" list of the attachment annotation: keep the failed ones. Tolerates its absence. */
static int coherence_parse_attachment(struct coherence_node *n, const char *text)
{
	const struct json *checks;
	struct json *root = NULL;
	int r;

	if (strlen(text) > COHERENCE_ATTACH_MAX) {
		n->attach = COHERENCE_ATTACH_BAD;
		return 0;
	}
	r = json_parse(text, strlen(text), &root);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || json_type(root) != JSON_OBJECT) {
		n->attach = COHERENCE_ATTACH_BAD;
		goto out;
	}
	checks = json_get(root, "checks");
	if (!checks) {
		n->attach = COHERENCE_ATTACH_OK;
		goto out;
	}
	if (json_type(checks) != JSON_ARRAY) {
		n->attach = COHERENCE_ATTACH_BAD;
		goto out;
	}
	n->attach = COHERENCE_ATTACH_OK;
	for (const struct json *e = json_first(checks); e && n->n_fails < COHERENCE_FAILS_MAX; e = json_next(e)) {
		const char *id = json_get_string(e, "id");
		const char *status = json_get_string(e, "status");
		const char *msg = json_get_string(e, "message");
		struct coherence_fail *f;

		if (!id || !*id || !status || strcmp(status, "fail") != 0)
			continue;
		if (!n->fails) {
			n->fails = calloc(COHERENCE_FAILS_MAX, sizeof(*n->fails));
			if (!n->fails) {
				r = -ENOMEM;
				goto out;
			}
		}
		f = &n->fails[n->n_fails];
		f->id = coherence_clean(id, COHERENCE_ID_MAX);
		f->message = coherence_clean(msg ? msg : "", COHERENCE_TEXT_MAX);
		n->n_fails++;
		if (!f->id || !f->message) {
			r = -ENOMEM;
			goto out;
		}
	}
	r = 0;
out:
	json_free(root);
	return r < 0 && r != -EINVAL ? r : 0;
}

struct coherence_field {
	bool present;
	char *s;                        /* the string value; NULL when present but not a string */
	char type;                      /* first byte of the value: its JSON type */
};

static int coherence_parse_interfaces(struct coherence_node *n, const struct coherence_field *v)
{
	struct strbuf why = { 0 };
	struct profile_iface *m = NULL;
	const char *text = v->s;
	size_t cnt = 0;
	int r;

	if (!v->present) {
		n->map = COHERENCE_MAP_MISSING;
		return 0;
	}
	if (!text) {
		n->map = COHERENCE_MAP_MALFORMED;
		return 0;
	}
	r = ifacemap_parse(text, strlen(text), &m, &cnt);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		n->map = COHERENCE_MAP_MALFORMED;
		return 0;
	}
	r = ifacemap_validate(m, cnt, &why);
	if (r == 0) {
		n->map = COHERENCE_MAP_VALID;
		memcpy(n->ifaces, m, sizeof(n->ifaces));
	} else if (r == -EINVAL) {
		n->map = COHERENCE_MAP_INVALID;
		n->map_why = coherence_clean(why.s ? why.s : "", 4 * COHERENCE_TEXT_MAX);
		r = n->map_why ? 0 : -ENOMEM;
	}
	free(m);
	strbuf_free(&why);
	return r;
}

/*
 * A NodeList is mostly bytes we never look at (status, images, GKE's own annotations): a full
 * tree of 5,000 nodes costs half a second and 130 MiB. So the list is walked once by a strict
 * validating scanner (RFC 8259 grammar, depth-limited) that keeps only the few values the verdict
 * needs, and only those are handed to the JSON adapter. Keys are matched byte for byte (a key
 * written with escapes is not recognised); the first of duplicate keys wins, as in json_get().
 */
struct coherence_raw {
	struct coherence_field kind, name, itype, profile, ready, interfaces, attachment;
};

struct coherence_scan {
	struct coherence *c;
	struct strbuf *err;
	bool refused;                   /* err says why: not a NodeList (the JSON itself may be fine) */
	bool oom;
	struct coherence_field kind, items_type, cont;
	bool items;
	size_t idx;
	struct coherence_raw raw;       /* the item being read */
};

typedef const char *(*coherence_member_fn)(struct coherence_scan *sc, const char *key, size_t klen,
					   const char *v, const char *end, int depth);
typedef const char *(*coherence_element_fn)(struct coherence_scan *sc, const char *v, const char *end, int depth);

static const char *coherence_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static bool coherence_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* @p at '"': the byte after the closing quote, or NULL. */
static const char *coherence_scan_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '"')
			return p + 1;
		if (ch < 0x20)
			return NULL;
		if (ch != '\\')
			continue;
		if (++p >= end)
			return NULL;
		switch (*p) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			break;
		case 'u':
			if (end - p < 5 || !coherence_hex(p[1]) || !coherence_hex(p[2]) ||
			    !coherence_hex(p[3]) || !coherence_hex(p[4]))
				return NULL;
			p += 4;
			break;
		default:
			return NULL;
		}
	}
	return NULL;
}

static const char *coherence_scan_digits(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

static const char *coherence_scan_number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = coherence_scan_digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = coherence_scan_digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!(p = coherence_scan_digits(p, end)))
			return NULL;
	}
	return p;
}

static const char *coherence_scan_value(struct coherence_scan *sc, const char *p, const char *end, int depth);

/* @p at '{': walk the members, @fn (NULL: skip) reads each value; the byte after '}' or NULL. */
static const char *coherence_scan_object(struct coherence_scan *sc, const char *p, const char *end, int depth,
					 coherence_member_fn fn)
{
	if (depth >= JSON_MAX_DEPTH)
		return NULL;
	p = coherence_ws(p + 1, end);
	if (p < end && *p == '}')
		return p + 1;
	for (;;) {
		const char *key = p, *v;

		if (p >= end || *p != '"' || !(p = coherence_scan_string(p, end)))
			return NULL;
		v = coherence_ws(p, end);
		if (v >= end || *v != ':')
			return NULL;
		v = coherence_ws(v + 1, end);
		if (v >= end)
			return NULL;    /* "key": at the end of input: callbacks may read *v */
		p = fn ? fn(sc, key + 1, (size_t)(p - key - 2), v, end, depth + 1) :
			coherence_scan_value(sc, v, end, depth + 1);
		if (!p)
			return NULL;
		p = coherence_ws(p, end);
		if (p < end && *p == ',') {
			p = coherence_ws(p + 1, end);
			continue;
		}
		return p < end && *p == '}' ? p + 1 : NULL;
	}
}

static const char *coherence_scan_array(struct coherence_scan *sc, const char *p, const char *end, int depth,
					coherence_element_fn fn)
{
	if (depth >= JSON_MAX_DEPTH)
		return NULL;
	p = coherence_ws(p + 1, end);
	if (p < end && *p == ']')
		return p + 1;
	for (;;) {
		p = fn ? fn(sc, p, end, depth + 1) : coherence_scan_value(sc, p, end, depth + 1);
		if (!p)
			return NULL;
		p = coherence_ws(p, end);
		if (p < end && *p == ',') {
			p = coherence_ws(p + 1, end);
			continue;
		}
		return p < end && *p == ']' ? p + 1 : NULL;
	}
}

static const char *coherence_scan_value(struct coherence_scan *sc, const char *p, const char *end, int depth)
{
	if (p >= end)
		return NULL;
	switch (*p) {
	case '"': return coherence_scan_string(p, end);
	case '{': return coherence_scan_object(sc, p, end, depth, NULL);
	case '[': return coherence_scan_array(sc, p, end, depth, NULL);
	case 't': return end - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f': return end - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL;
	case 'n': return end - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default: return coherence_scan_number(p, end);
	}
}

static const char *coherence_type_name(char type)
{
	switch (type) {
	case '"': return "string";
	case '{': return "object";
	case '[': return "array";
	case 't': case 'f': return "boolean";
	case 'n': return "null";
	default: return "number";
	}
}

/* Keep a value (the first of duplicate keys): its string decoded by the JSON adapter. */
static const char *coherence_scan_field(struct coherence_scan *sc, struct coherence_field *f, const char *v,
					const char *end, int depth)
{
	const char *e = coherence_scan_value(sc, v, end, depth);
	struct json *str = NULL;

	if (!e || f->present)
		return e;
	f->present = true;
	f->type = *v;
	if (*v != '"')
		return e;
	if (!memchr(v, '\\', (size_t)(e - v)))
		f->s = strndup(v + 1, (size_t)(e - v - 2));
	else if (json_parse(v, (size_t)(e - v), &str) == 0 && json_string(str))
		f->s = strdup(json_string(str));
	json_free(str);
	if (!f->s) {
		sc->oom = sc->refused = true;
		return NULL;
	}
	return e;
}

#define COHERENCE_KEY(k, klen, lit) ((klen) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

static bool coherence_key_is(const char *k, size_t klen, const char *want)
{
	return strlen(want) == klen && memcmp(k, want, klen) == 0;
}

static const char *coherence_on_label(struct coherence_scan *sc, const char *k, size_t klen,
				      const char *v, const char *end, int depth)
{
	if (COHERENCE_KEY(k, klen, "node.kubernetes.io/instance-type"))
		return coherence_scan_field(sc, &sc->raw.itype, v, end, depth);
	return coherence_scan_value(sc, v, end, depth);
}

static const char *coherence_on_annotation(struct coherence_scan *sc, const char *k, size_t klen,
					   const char *v, const char *end, int depth)
{
	const struct coherence *c = sc->c;
	struct coherence_field *f = NULL;

	/* Every one of ours starts with the prefix: one compare rejects GKE's own. */
	if (klen > strlen(c->prefix) && memcmp(k, c->prefix, strlen(c->prefix)) == 0) {
		if (coherence_key_is(k, klen, c->key_profile))
			f = &sc->raw.profile;
		else if (coherence_key_is(k, klen, c->key_ready))
			f = &sc->raw.ready;
		else if (coherence_key_is(k, klen, c->key_interfaces))
			f = &sc->raw.interfaces;
		else if (coherence_key_is(k, klen, c->key_attachment))
			f = &sc->raw.attachment;
	}
	return f ? coherence_scan_field(sc, f, v, end, depth) : coherence_scan_value(sc, v, end, depth);
}

static const char *coherence_on_node_meta(struct coherence_scan *sc, const char *k, size_t klen,
					  const char *v, const char *end, int depth)
{
	if (COHERENCE_KEY(k, klen, "name"))
		return coherence_scan_field(sc, &sc->raw.name, v, end, depth);
	if (COHERENCE_KEY(k, klen, "labels") && *v == '{')
		return coherence_scan_object(sc, v, end, depth, coherence_on_label);
	if (COHERENCE_KEY(k, klen, "annotations") && *v == '{')
		return coherence_scan_object(sc, v, end, depth, coherence_on_annotation);
	return coherence_scan_value(sc, v, end, depth);
}

static const char *coherence_on_node(struct coherence_scan *sc, const char *k, size_t klen,
				     const char *v, const char *end, int depth)
{
	if (COHERENCE_KEY(k, klen, "kind"))
		return coherence_scan_field(sc, &sc->raw.kind, v, end, depth);
	if (COHERENCE_KEY(k, klen, "metadata") && *v == '{')
		return coherence_scan_object(sc, v, end, depth, coherence_on_node_meta);
	return coherence_scan_value(sc, v, end, depth);
}

static void coherence_raw_clear(struct coherence_raw *raw)
{
	struct coherence_field *f[] = { &raw->kind, &raw->name, &raw->itype, &raw->profile, &raw->ready,
					&raw->interfaces, &raw->attachment };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		free(f[i]->s);
	memset(raw, 0, sizeof(*raw));
}

static int coherence_parse_node(struct coherence_scan *sc, struct coherence_node *n);

static const char *coherence_on_item(struct coherence_scan *sc, const char *v, const char *end, int depth)
{
	struct coherence *c = sc->c;
	struct coherence_node *n;
	const char *e;
	size_t idx = sc->idx++;
	int r;

	if (v >= end)
		return NULL;
	if (*v != '{') {
		e = coherence_scan_value(sc, v, end, depth);
		if (e) {
			strbuf_appendf(sc->err, "items[%zu] is a JSON %s, not a Node object", idx, coherence_type_name(*v));
			sc->refused = true;
		}
		return NULL;
	}
	coherence_raw_clear(&sc->raw);
	e = coherence_scan_object(sc, v, end, depth, coherence_on_node);
	if (!e)
		return NULL;
	if (c->n >= COHERENCE_MAX_NODES) {
		strbuf_appendf(sc->err, "more than %d nodes", COHERENCE_MAX_NODES);
		sc->refused = true;
		return NULL;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct coherence_node *nn = realloc(c->nodes, cap * sizeof(*nn));

		if (!nn) {
			sc->oom = sc->refused = true;
			return NULL;
		}
		c->nodes = nn;
		c->cap = cap;
	}
	n = &c->nodes[c->n++];
	memset(n, 0, sizeof(*n));
	r = coherence_parse_node(sc, n);
	if (r < 0) {
		sc->oom = r == -ENOMEM;
		sc->refused = true;
		return NULL;
	}
	return e;
}

static const char *coherence_on_list_meta(struct coherence_scan *sc, const char *k, size_t klen,
					  const char *v, const char *end, int depth)
{
	if (COHERENCE_KEY(k, klen, "continue"))
		return coherence_scan_field(sc, &sc->cont, v, end, depth);
	return coherence_scan_value(sc, v, end, depth);
}

static const char *coherence_on_list(struct coherence_scan *sc, const char *k, size_t klen,
				     const char *v, const char *end, int depth)
{
	if (COHERENCE_KEY(k, klen, "kind")) {
		const char *e = coherence_scan_field(sc, &sc->kind, v, end, depth);

		/* Refuse a PodList before reading its items as nodes. */
		if (e && sc->kind.s && strcmp(sc->kind.s, "NodeList") != 0 && strcmp(sc->kind.s, "List") != 0) {
			char *kind = coherence_clean(sc->kind.s, COHERENCE_ID_MAX);

			strbuf_appendf(sc->err, "expected kind NodeList or List (kubectl get nodes -o json), got '%s'",
				       kind ? kind : "?");
			free(kind);
			sc->refused = true;
			return NULL;
		}
		return e;
	}
	if (COHERENCE_KEY(k, klen, "metadata") && *v == '{')
		return coherence_scan_object(sc, v, end, depth, coherence_on_list_meta);
	if (COHERENCE_KEY(k, klen, "items") && !sc->items) {
		sc->items = true;
		sc->items_type.type = *v;
		if (*v == '[')
			return coherence_scan_array(sc, v, end, depth, coherence_on_item);
	}
	return coherence_scan_value(sc, v, end, depth);
}

static int coherence_parse_node(struct coherence_scan *sc, struct coherence_node *n)
{
	struct coherence_raw *raw = &sc->raw;
	size_t idx = sc->idx - 1;
	const char *p = raw->profile.s, *ready = raw->ready.s;
	int r;

	if (raw->kind.s && strcmp(raw->kind.s, "Node") != 0) {
		char *k = coherence_clean(raw->kind.s, COHERENCE_ID_MAX);

		strbuf_appendf(sc->err, "items[%zu] is a %s, not a Node", idx, k ? k : "?");
		free(k);
		return -EINVAL;
	}
	if (!raw->name.s || !*raw->name.s) {
		strbuf_appendf(sc->err, "items[%zu] has no metadata.name", idx);
		return -EINVAL;
	}
	if (strlen(raw->name.s) > COHERENCE_NAME_MAX) {
		strbuf_appendf(sc->err, "items[%zu]: a node name has at most %d characters", idx, COHERENCE_NAME_MAX);
		return -EINVAL;
	}
	n->name = coherence_clean(raw->name.s, COHERENCE_NAME_MAX);
	if (!n->name)
		return -ENOMEM;

	if (!raw->profile.present)
		n->kind = raw->itype.s && strcmp(raw->itype.s, COHERENCE_INSTANCE_TYPE) == 0 ?
			COHERENCE_KIND_UNOBSERVED : COHERENCE_KIND_OTHER;
	else if (p && strcmp(p, "tcpxo") == 0)
		n->kind = COHERENCE_KIND_TCPXO;
	else if (p && strcmp(p, "tcpx") == 0)
		n->kind = COHERENCE_KIND_TCPX;
	else if (p && strcmp(p, "none") == 0)
		n->kind = COHERENCE_KIND_NONE;
	else
		n->kind = COHERENCE_KIND_OTHER;
	if (n->kind != COHERENCE_KIND_TCPXO)
		return 0;

	if (!raw->ready.present) {
		n->ready = COHERENCE_READY_MISSING;
	} else if (ready && strcmp(ready, "true") == 0) {
		n->ready = COHERENCE_READY_TRUE;
	} else if (ready && strcmp(ready, "false") == 0) {
		n->ready = COHERENCE_READY_FALSE;
	} else {
		n->ready = COHERENCE_READY_BAD;
		n->ready_value = coherence_clean(ready ? ready : "(not a string)", COHERENCE_ID_MAX);
		if (!n->ready_value)
			return -ENOMEM;
	}

	r = coherence_parse_interfaces(n, &raw->interfaces);
	if (r < 0)
		return r;

	if (!raw->attachment.present)
		n->attach = COHERENCE_ATTACH_MISSING;
	else if (!raw->attachment.s)
		n->attach = COHERENCE_ATTACH_BAD;
	else if ((r = coherence_parse_attachment(n, raw->attachment.s)) < 0)
		return r;
	return 0;
}

int coherence_add_nodelist(struct coherence *c, const char *text, size_t len, char **ret_continue,
			   struct strbuf *err)
{
	struct strbuf local = { 0 };
	struct coherence_scan sc = { .c = c, .err = err ? err : &local };
	const char *p, *end = text + len;
	size_t start = c->n;
	int r = -EINVAL;

	p = coherence_ws(text, end);
	if (p < end && *p != '{') {
		if (coherence_scan_value(&sc, p, end, 0) && coherence_ws(coherence_scan_value(&sc, p, end, 0), end) == end)
			strbuf_appendf(sc.err, "expected a NodeList object, got a JSON %s", coherence_type_name(*p));
		else
			strbuf_appendf(sc.err, "not valid JSON (or nested deeper than %d levels)", JSON_MAX_DEPTH);
		goto out;
	}
	p = p < end ? coherence_scan_object(&sc, p, end, 0, coherence_on_list) : NULL;
	if (p)
		p = coherence_ws(p, end);
	if (!p || p != end) {
		if (sc.oom) {
			strbuf_append(sc.err, "out of memory");
			r = -ENOMEM;
		} else if (!sc.refused) {
			strbuf_appendf(sc.err, "not valid JSON (or nested deeper than %d levels)", JSON_MAX_DEPTH);
		}
		goto out;
	}
	if (!sc.items) {
		strbuf_append(sc.err, "no \"items\" list: not a NodeList");
		goto out;
	}
	if (sc.items_type.type != '[' && sc.items_type.type != 'n') {
		strbuf_appendf(sc.err, "\"items\" is a JSON %s, not a list", coherence_type_name(sc.items_type.type));
		goto out;
	}
	if (sc.cont.s && strlen(sc.cont.s) > COHERENCE_CONTINUE_MAX) {
		strbuf_appendf(sc.err, "metadata.continue is longer than %u bytes", COHERENCE_CONTINUE_MAX);
		goto out;
	}
	if (ret_continue) {
		*ret_continue = sc.cont.s && *sc.cont.s ? sc.cont.s : NULL;
		if (*ret_continue)
			sc.cont.s = NULL;
	}
	r = (int)(c->n - start);
out:
	if (r < 0)
		coherence_truncate(c, start);   /* a refused page adds nothing */
	coherence_raw_clear(&sc.raw);
	free(sc.kind.s);
	free(sc.cont.s);
	strbuf_free(&local);
	return r;
}

/* ---- evaluation ---- */

struct coherence_eval {
	const struct coherence *c;
	const struct coherence_node **by_name;  /* every node, sorted by name */
	size_t n;
	struct strbuf *out;
};

static int coherence_cmp_node(const void *a, const void *b)
{
	const struct coherence_node *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static const char *coherence_plural(size_t n)
{
	return n == 1 ? "node" : "nodes";
}

/* " (a, b, c, …)": the first COHERENCE_NAMES_SHOWN of @v (already in name order). */
static void coherence_names(struct strbuf *sb, const struct coherence_node *const *v, size_t n)
{
	if (!n)
		return;
	strbuf_append(sb, " (");
	for (size_t i = 0; i < n && i < COHERENCE_NAMES_SHOWN; i++)
		strbuf_appendf(sb, "%s%s", i ? ", " : "", v[i]->name);
	if (n > COHERENCE_NAMES_SHOWN)
		strbuf_append(sb, ", …");
	strbuf_append(sb, ")");
}

/* A (label, message, node) triple; grouped by label into one diagnostic line each. */
struct coherence_item {
	const char *label;
	const char *message;            /* may be NULL */
	const struct coherence_node *node;
	size_t pos;                     /* node's place in name order */
};

struct coherence_group {
	size_t first, count;            /* a run of items with one label */
};

static int coherence_cmp_item(const void *a, const void *b)
{
	const struct coherence_item *x = a, *y = b;
	int d = strcmp(x->label, y->label);

	if (d)
		return d;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int coherence_cmp_group(const void *a, const void *b, void *items)
{
	const struct coherence_group *x = a, *y = b;
	const struct coherence_item *it = items;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(it[x->first].label, it[y->first].label);
}

/*
 * One line per label, largest groups first, ties by label. Without @head:
 * "  <label>: N nodes (a, b, c, …)" then ": <message>" when every node of the group says the
 * same, else ", e.g. <first node>: <its message>". With @head: "<head>: N nodes (…): <label>".
 */
static int coherence_print_groups(struct strbuf *sb, const char *head, struct coherence_item *items, size_t n)
{
	struct coherence_group *g;
	const struct coherence_node **names;
	size_t ng = 0;

	if (!n)
		return 0;
	g = calloc(n, sizeof(*g));
	names = calloc(n, sizeof(*names));
	if (!g || !names) {
		free(g);
		free(names);
		return -ENOMEM;
	}
	qsort(items, n, sizeof(*items), coherence_cmp_item);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(items[i].label, items[i - 1].label) != 0)
			g[ng++] = (struct coherence_group){ .first = i };
		g[ng - 1].count++;
	}
	qsort_r(g, ng, sizeof(*g), coherence_cmp_group, items);
	for (size_t k = 0; k < ng; k++) {
		const struct coherence_item *it = &items[g[k].first];
		const char *m0 = it->message ? it->message : "";
		bool same = true;

		for (size_t i = 0; i < g[k].count; i++) {
			names[i] = it[i].node;
			if (strcmp(m0, it[i].message ? it[i].message : "") != 0)
				same = false;
		}
		strbuf_appendf(sb, "%s%s: %zu %s", head ? "" : "  ", head ? head : it->label, g[k].count,
			       coherence_plural(g[k].count));
		coherence_names(sb, names, g[k].count);
		if (head)
			strbuf_appendf(sb, ": %s", it->label);
		else if (same && *m0)
			strbuf_appendf(sb, ": %s", m0);
		else if (!same)
			strbuf_appendf(sb, ", e.g. %s: %s", it->node->name, *m0 ? m0 : "(no message)");
		strbuf_append(sb, "\n");
	}
	free(g);
	free(names);
	return 0;
}

struct coherence_vote {
	const char *network;
	const struct coherence_node *node;
	size_t pos;
};

static int coherence_cmp_vote(const void *a, const void *b)
{
	const struct coherence_vote *x = a, *y = b;
	int d = strcmp(x->network, y->network);

	if (d)
		return d;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

struct coherence_tally {
	size_t first, count;
};

static int coherence_cmp_tally(const void *a, const void *b, void *votes)
{
	const struct coherence_tally *x = a, *y = b;
	const struct coherence_vote *v = votes;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(v[x->first].network, v[y->first].network);
}

/*
 * For each of eth1..eth8, the networks the valid mappings give it:
 * "eth1: 14 nodes → gpu-nic-0, 2 nodes → gpu-nic-7 (a, b)". The majority's names are left out
 * unless another network ties with it. Return: interfaces in disagreement, or -ENOMEM.
 */
static int coherence_disagreement(struct coherence_eval *ev, const struct coherence_node **valid,
				  const size_t *valid_pos, size_t nv)
{
	struct coherence_vote *votes = NULL;
	struct coherence_tally *t = NULL;
	const struct coherence_node **names = NULL;
	int differ = 0;

	if (nv < 2)
		return 0;
	votes = calloc(nv, sizeof(*votes));
	t = calloc(nv, sizeof(*t));
	names = calloc(nv, sizeof(*names));
	if (!votes || !t || !names) {
		differ = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < IFACEMAP_ENTRIES; k++) {
		size_t nt = 0;

		for (size_t i = 0; i < nv; i++)
			votes[i] = (struct coherence_vote){ valid[i]->ifaces[k].network, valid[i], valid_pos[i] };
		qsort(votes, nv, sizeof(*votes), coherence_cmp_vote);
		for (size_t i = 0; i < nv; i++) {
			if (i == 0 || strcmp(votes[i].network, votes[i - 1].network) != 0)
				t[nt++] = (struct coherence_tally){ .first = i };
			t[nt - 1].count++;
		}
		if (nt < 2)
			continue;
		differ++;
		qsort_r(t, nt, sizeof(*t), coherence_cmp_tally, votes);
		strbuf_appendf(ev->out, "%s: ", valid[0]->ifaces[k].name);
		for (size_t j = 0; j < nt; j++) {
			const struct coherence_vote *v = &votes[t[j].first];

			strbuf_appendf(ev->out, "%s%zu %s → %s", j ? ", " : "", t[j].count,
				       coherence_plural(t[j].count), v->network);
			if (j == 0 && t[0].count > t[1].count)
				continue;
			for (size_t i = 0; i < t[j].count; i++)
				names[i] = v[i].node;
			coherence_names(ev->out, names, t[j].count);
		}
		strbuf_append(ev->out, "\n");
	}
out:
	free(votes);
	free(t);
	free(names);
	return differ;
}

/* Collect the nodes of @kind (and, for TCPXO nodes, @map) into @sel in name order. */
static size_t coherence_select(const struct coherence_eval *ev, enum coherence_kind kind, int map,
			       const struct coherence_node **sel)
{
	size_t k = 0;

	for (size_t i = 0; i < ev->n; i++)
		if (ev->by_name[i]->kind == kind && (map < 0 || (int)ev->by_name[i]->map == map))
			sel[k++] = ev->by_name[i];
	return k;
}

/* "<head>: N nodes (a, b, c, …)<tail>\n" for a non-empty selection. */
static void coherence_print_list(struct strbuf *sb, const char *head, const struct coherence_node **sel,
				 size_t n, const char *tail)
{
	if (!n)
		return;
	strbuf_appendf(sb, "%s: %zu %s", head, n, coherence_plural(n));
	coherence_names(sb, sel, n);
	strbuf_appendf(sb, "%s\n", tail);
}

int coherence_evaluate(const struct coherence *c, struct coherence_result *ret, struct strbuf *err)
{
	struct coherence_result res = { .n_nodes = c->n };
	struct strbuf out = { 0 }, tmp = { 0 };
	struct coherence_eval ev = { .c = c, .n = c->n, .out = &out };
	const struct coherence_node **sel = NULL, **valid = NULL;
	struct coherence_item *items = NULL;
	size_t *valid_pos = NULL;
	size_t n_unobs, n_notready = 0, n_nomap, n_malformed, n_invalid = 0, nv = 0;
	size_t n_tcpx = 0, n_none = 0, n_other = 0, ni, need = 1;
	char *no_ready = NULL, *no_attach = NULL, *bad_attach = NULL;
	int differ, r = -ENOMEM;

	for (size_t i = 0; i < c->n; i++)
		need += c->nodes[i].n_fails ? c->nodes[i].n_fails : 1;
	ev.by_name = calloc(c->n ? c->n : 1, sizeof(*ev.by_name));
	sel = calloc(c->n ? c->n : 1, sizeof(*sel));
	valid = calloc(c->n ? c->n : 1, sizeof(*valid));
	valid_pos = calloc(c->n ? c->n : 1, sizeof(*valid_pos));
	items = calloc(need, sizeof(*items));
	if (!ev.by_name || !sel || !valid || !valid_pos || !items ||
	    asprintf(&no_ready, "no %s annotation", c->key_ready) < 0 ||
	    asprintf(&no_attach, "no %s annotation", c->key_attachment) < 0 ||
	    asprintf(&bad_attach, "the %s annotation is not JSON with a checks list", c->key_attachment) < 0)
		goto out;
	for (size_t i = 0; i < c->n; i++)
		ev.by_name[i] = &c->nodes[i];
	qsort(ev.by_name, c->n, sizeof(*ev.by_name), coherence_cmp_node);
	for (size_t i = 1; i < c->n; i++)
		if (strcmp(ev.by_name[i]->name, ev.by_name[i - 1]->name) == 0) {
			if (err)
				strbuf_appendf(err, "node '%s' appears more than once in the list", ev.by_name[i]->name);
			r = -EINVAL;
			goto out;
		}

	for (size_t i = 0; i < c->n; i++) {
		switch (ev.by_name[i]->kind) {
		case COHERENCE_KIND_TCPXO:
		case COHERENCE_KIND_UNOBSERVED:
			res.n_tcpxo++;
			break;
		case COHERENCE_KIND_TCPX: n_tcpx++; break;
		case COHERENCE_KIND_NONE: n_none++; break;
		case COHERENCE_KIND_OTHER: n_other++; break;
		}
	}

	n_unobs = coherence_select(&ev, COHERENCE_KIND_UNOBSERVED, -1, sel);
	strbuf_appendf(&tmp, ": labelled %s, no %s annotation yet", COHERENCE_INSTANCE_TYPE, c->key_profile);
	if (tmp.oom)
		goto out;
	coherence_print_list(&out, "not yet observed", sel, n_unobs, tmp.s);
	strbuf_free(&tmp);

	/* Not ready: one line per failing check (or per reason the checks are unknown). */
	ni = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct coherence_node *n = ev.by_name[i];

		if (n->kind != COHERENCE_KIND_TCPXO || n->ready == COHERENCE_READY_TRUE)
			continue;
		sel[n_notready++] = n;
		if (n->ready == COHERENCE_READY_MISSING)
			items[ni++] = (struct coherence_item){ "ready unknown", no_ready, n, i };
		else if (n->ready == COHERENCE_READY_BAD)
			items[ni++] = (struct coherence_item){ "ready unknown", n->ready_value, n, i };
		else if (n->n_fails)
			for (size_t f = 0; f < n->n_fails; f++)
				items[ni++] = (struct coherence_item){ n->fails[f].id, n->fails[f].message, n, i };
		else
			items[ni++] = (struct coherence_item){ "failing checks unknown",
				n->attach == COHERENCE_ATTACH_MISSING ? no_attach :
				n->attach == COHERENCE_ATTACH_BAD ? bad_attach :
				"the attachment lists no failed check", n, i };
	}
	coherence_print_list(&out, "not ready", sel, n_notready, "");
	if (coherence_print_groups(&out, NULL, items, ni) < 0)
		goto out;

	/* The mapping each observed TCPXO node publishes. */
	strbuf_appendf(&tmp, "no %s annotation", c->key_interfaces);
	if (tmp.oom)
		goto out;
	n_nomap = coherence_select(&ev, COHERENCE_KIND_TCPXO, COHERENCE_MAP_MISSING, sel);
	coherence_print_list(&out, tmp.s, sel, n_nomap, "");
	strbuf_free(&tmp);
	strbuf_appendf(&tmp, "unreadable %s annotation", c->key_interfaces);
	if (tmp.oom)
		goto out;
	n_malformed = coherence_select(&ev, COHERENCE_KIND_TCPXO, COHERENCE_MAP_MALFORMED, sel);
	coherence_print_list(&out, tmp.s, sel, n_malformed,
			     ": not a JSON list of {\"interfaceName\", \"network\"} entries");
	strbuf_free(&tmp);
	ni = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct coherence_node *n = ev.by_name[i];

		if (n->kind != COHERENCE_KIND_TCPXO)
			continue;
		if (n->map == COHERENCE_MAP_VALID) {
			valid_pos[nv] = i;
			valid[nv++] = n;
		} else if (n->map == COHERENCE_MAP_INVALID) {
			items[ni++] = (struct coherence_item){ n->map_why, NULL, n, i };
			n_invalid++;
		}
	}
	if (coherence_print_groups(&out, "mapping breaks the renderer's rules", items, ni) < 0)
		goto out;

	differ = coherence_disagreement(&ev, valid, valid_pos, nv);
	if (differ < 0)
		goto out;

	res.coherent = res.n_tcpxo > 0 && !n_unobs && !n_notready && !n_nomap && !n_malformed &&
		       !n_invalid && !differ;
	if (res.coherent) {
		memcpy(res.ifaces, valid[0]->ifaces, sizeof(res.ifaces));
		res.n_ifaces = IFACEMAP_ENTRIES;
		strbuf_appendf(&out, "coherent: %zu TCPXO %s the same mapping", res.n_tcpxo,
			       res.n_tcpxo == 1 ? "node carries" : "nodes carry");
	} else if (!res.n_tcpxo) {
		strbuf_appendf(&out, "incoherent: no TCPXO nodes among %zu %s; no mapping printed",
			       c->n, coherence_plural(c->n));
	} else {
		const char *sep = ": ";

		strbuf_appendf(&out, "incoherent: %zu TCPXO %s", res.n_tcpxo, coherence_plural(res.n_tcpxo));
#define COHERENCE_TERM(cnt, ...) do { \
		if (cnt) { \
			strbuf_append(&out, sep); \
			strbuf_appendf(&out, __VA_ARGS__); \
			sep = ", "; \
		} \
	} while (0)
		COHERENCE_TERM(n_unobs, "%zu not yet observed", n_unobs);
		COHERENCE_TERM(n_notready, "%zu not ready", n_notready);
		COHERENCE_TERM(n_nomap, "%zu without a mapping", n_nomap);
		COHERENCE_TERM(n_malformed, "%zu with an unreadable mapping", n_malformed);
		COHERENCE_TERM(n_invalid, "%zu breaking the renderer's rules", n_invalid);
		COHERENCE_TERM(differ, "mappings differ on %d %s", differ, differ == 1 ? "interface" : "interfaces");
#undef COHERENCE_TERM
		strbuf_append(&out, "; no mapping printed");
	}
	if (n_tcpx || n_none || n_other) {
		const char *sep = "";

		strbuf_append(&out, " (not counted:");
		if (n_tcpx) {
			strbuf_appendf(&out, "%s %zu tcpx", sep, n_tcpx);
			sep = ",";
		}
		if (n_none) {
			strbuf_appendf(&out, "%s %zu none", sep, n_none);
			sep = ",";
		}
		if (n_other)
			strbuf_appendf(&out, "%s %zu other", sep, n_other);
		strbuf_append(&out, ")");
	}
	strbuf_append(&out, "\n");
	res.diagnostics = strbuf_take(&out);
	if (!res.diagnostics)
		goto out;
	*ret = res;
	r = 0;
out:
	if (r == -ENOMEM && err)
		strbuf_append(err, "out of memory");
	strbuf_free(&out);
	strbuf_free(&tmp);
	free(no_ready);
	free(no_attach);
	free(bad_attach);
	free(ev.by_name);
	free(sel);
	free(valid);
	free(valid_pos);
	free(items);
	return r;
}

void coherence_result_free(struct coherence_result *r)
{
	if (!r)
		return;
	free(r->diagnostics);
	r->diagnostics = NULL;
}

int coherence_format_mapping(const struct profile_iface *v, size_t n, enum coherence_format f, char **ret)
{
	struct profile_iface s[IFACEMAP_ENTRIES];
	struct strbuf sb = { 0 };
	char *json, *text;
	int r;

	r = ifacemap_validate(v, n, NULL);
	if (r < 0)
		return r;
	memcpy(s, v, sizeof(s));
	ifacemap_sort(s, IFACEMAP_ENTRIES);
	switch (f) {
	case COHERENCE_FORMAT_FLAG:
		for (size_t i = 0; i < IFACEMAP_ENTRIES; i++)
			strbuf_appendf(&sb, "%s%s=%s", i ? "," : "", s[i].name, s[i].network);
		strbuf_append(&sb, "\n");
		break;
	case COHERENCE_FORMAT_YAML:
		/* Networks passed the renderer's rules: DNS labels, safe unquoted in YAML. */
		strbuf_append(&sb, "tcpxoInterfaces:\n");
		for (size_t i = 0; i < IFACEMAP_ENTRIES; i++)
			strbuf_appendf(&sb, "  - interfaceName: %s\n    network: %s\n", s[i].name, s[i].network);
		break;
	case COHERENCE_FORMAT_JSON:
		json = ifacemap_to_json(s, IFACEMAP_ENTRIES);
		if (!json)
			return -ENOMEM;
		strbuf_appendf(&sb, "%s\n", json);
		free(json);
		break;
	}
	text = strbuf_take(&sb);
	if (!text)
		return -ENOMEM;
	*ret = text;
	return 0;
}
