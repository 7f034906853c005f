/* test_render_tree.c - the human report's PCIe tree over observations built in memory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/checks/evaluate.h"
#include "report/render/render_tree.h"
#include "tests/unit/obsbuild.h"

/* One aperture entry per LLCM function, LLCM k serving eth(k+1) (10.0.(16+k).3), as the installer leaves them. */
static void tr_apertures(struct observation *o)
{
	struct obs_aperture *a = &o->host.aperture;
	unsigned k = 0;

	a->present = true;
	a->status.state = PROBE_OK;
	for (size_t i = 0; i < o->pci.n; i++) {
		struct obs_aperture_entry *e;
		char ip[20];

		if (o->pci.v[i].kind != PCI_KIND_LLCM)
			continue;
		a->v = realloc(a->v, (a->n + 1) * sizeof(*a->v));
		assert_non_null(a->v);
		e = &a->v[a->n++];
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", o->pci.v[i].bdf);
		e->type = OBS_FILE_DIR;
		e->ids_known = true;
		e->vendor = 0x1ae0;
		e->device = 0x0084;
		e->n_resources = 5;
		e->bar4 = OBS_BAR4_OK;
		snprintf(ip, sizeof(ip), "10.0.%u.3", 16 + k++);
		e->bar4_ipv4 = inet_addr(ip);
	}
}

static void tr_mega(struct observation *o)
{
	ob_a3mega(o, true);
	tr_apertures(o);
}

/* The tree of @o evaluated, after @tweak_p changed the profile (may be NULL); caller frees. */
static char *tr_render(struct observation *o, void (*tweak_p)(struct profile *))
{
	struct strbuf sb = { 0 };
	struct profile p;
	char *t;

	assert_int_equal(profile_evaluate(o, &p), 0);
	if (tweak_p)
		tweak_p(&p);
	assert_int_equal(render_tree(o, &p, &sb), 0);
	t = strbuf_take(&sb);
	assert_non_null(t);
	profile_free(&p);
	return t;
}

/* The line of @t that contains @needle, copied into @buf; fails the test when there is none. */
static const char *tr_line(const char *t, const char *needle, char *buf, size_t len)
{
	const char *at = strstr(t, needle), *b, *e;

	assert_non_null(at);
	for (b = at; b > t && b[-1] != '\n'; b--)
		;
	e = strchr(at, '\n');
	assert_non_null(e);
	assert_true((size_t)(e - b) < len);
	memcpy(buf, b, (size_t)(e - b));
	buf[e - b] = '\0';
	return buf;
}

static size_t tr_count(const char *t, const char *needle)
{
	size_t n = 0;

	for (const char *p = t; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Every line at most 100 characters; only our own glyphs outside printable ASCII; no control byte. */
static void tr_assert_bounded(const char *t)
{
	static const char *const glyphs[] = { "├", "└", "│", "─", "→", "…" };
	int col = 0;

	for (const char *p = t; *p;) {
		unsigned char c = (unsigned char)*p;
		size_t k;

		if (c == '\n') {
			col = 0;
			p++;
			continue;
		}
		assert_true(c >= 0x20 && c != 0x7f);
		if (c < 0x80) {
			p++;
		} else {
			for (k = 0; k < sizeof(glyphs) / sizeof(glyphs[0]); k++)
				if (strncmp(p, glyphs[k], strlen(glyphs[k])) == 0)
					break;
			assert_true(k < sizeof(glyphs) / sizeof(glyphs[0]));
			p += strlen(glyphs[k]);
		}
		assert_true(++col <= RENDER_WIDTH);
	}
}

static const char healthy[] =
	"  PCIe tree: 4 GPU switches by NUMA node, 8 GPUs, 8 GPU NICs\n"
	"  numa 0\n"
	"  ├─ switch 0000:01:00.0  buses 02-07\n"
	"  │  ├─ GPU  0000:04:00.0  → eth1\n"
	"  │  ├─ GPU  0000:05:00.0  → eth2\n"
	"  │  ├─ NIC  0000:06:00.0  eth1  up  10.0.16.3/32  aperture 0000:00:10.0\n"
	"  │  └─ NIC  0000:07:00.0  eth2  up  10.0.17.3/32  aperture 0000:00:11.0\n"
	"  └─ switch 0000:08:00.0  buses 09-0e\n"
	"     ├─ GPU  0000:0b:00.0  → eth3\n"
	"     ├─ GPU  0000:0c:00.0  → eth4\n"
	"     ├─ NIC  0000:0d:00.0  eth3  up  10.0.18.3/32  aperture 0000:00:12.0\n"
	"     └─ NIC  0000:0e:00.0  eth4  up  10.0.19.3/32  aperture 0000:00:13.0\n"
	"  numa 1\n"
	"  ├─ switch 0000:81:00.0  buses 82-87\n"
	"  │  ├─ GPU  0000:84:00.0  → eth5\n"
	"  │  ├─ GPU  0000:85:00.0  → eth6\n"
	"  │  ├─ NIC  0000:86:00.0  eth5  up  10.0.20.3/32  aperture 0000:00:14.0\n"
	"  │  └─ NIC  0000:87:00.0  eth6  up  10.0.21.3/32  aperture 0000:00:15.0\n"
	"  └─ switch 0000:88:00.0  buses 89-8e\n"
	"     ├─ GPU  0000:8b:00.0  → eth7\n"
	"     ├─ GPU  0000:8c:00.0  → eth8\n"
	"     ├─ NIC  0000:8d:00.0  eth7  up  10.0.22.3/32  aperture 0000:00:16.0\n"
	"     └─ NIC  0000:8e:00.0  eth8  up  10.0.23.3/32  aperture 0000:00:17.0\n";

static void test_healthy_mega(void **state)
{
	struct observation o;
	char *t, *again;

	tr_mega(&o);
	t = tr_render(&o, NULL);
	assert_string_equal(t, healthy);
	again = tr_render(&o, NULL);
	assert_string_equal(t, again);          /* deterministic */
	free(again);
	free(t);
	observation_free(&o);
}

static void test_nic_down_marked_on_its_row(void **state)
{
	struct observation o;
	struct obs_link *l;
	char line[256], *t;

	tr_mega(&o);
	l = (struct obs_link *)observation_link_find(&o, "eth3");
	l->admin_up = false;
	l->oper = LINK_OPER_DOWN;
	t = tr_render(&o, NULL);
	assert_string_equal(tr_line(t, "eth3  down", line, sizeof(line)),
			    "     ├─ NIC  0000:0d:00.0  eth3  down  10.0.18.3/32  aperture 0000:00:12.0  "
			    "FAIL links: admin down");
	assert_int_equal(tr_count(t, "FAIL"), 1);
	tr_assert_bounded(t);
	free(t);
	observation_free(&o);
}

/* A mark follows its check: with links forced to pass, the down NIC is shown down but not marked. */
static void tr_links_pass(struct profile *p)
{
	p->checks[CHECK_LINKS].status = CHECK_PASS;
}

static void test_mark_follows_check(void **state)
{
	struct observation o;
	char *t;

	tr_mega(&o);
	((struct obs_link *)observation_link_find(&o, "eth3"))->oper = LINK_OPER_DOWN;
	t = tr_render(&o, tr_links_pass);
	assert_non_null(strstr(t, "eth3  down"));
	assert_null(strstr(t, "FAIL"));
	free(t);
	observation_free(&o);
}

static void test_tcpx_two_gpus_per_nic(void **state)
{
	struct observation o;
	char *t;

	ob_a3high(&o);
	t = tr_render(&o, NULL);
	assert_non_null(strstr(t, "  PCIe tree: 4 GPU switches by NUMA node, 8 GPUs, 4 GPU NICs\n"
				  "  numa 0\n"
				  "  ├─ switch 0000:01:00.0  buses 02-07\n"
				  "  │  ├─ GPU  0000:04:00.0  → eth1\n"
				  "  │  ├─ GPU  0000:05:00.0  → eth1\n"
				  "  │  └─ NIC  0000:06:00.0  eth1  up  10.0.16.3/32\n"));
	assert_null(strstr(t, "aperture"));     /* no LLCM on TCPX */
	assert_null(strstr(t, "FAIL"));
	assert_int_equal(tr_count(t, "─ GPU  "), 8);
	assert_int_equal(tr_count(t, "─ NIC  "), 4);
	free(t);
	observation_free(&o);
}

/* Switches sort by NUMA node, then by BDF; a node unknown everywhere comes last. */
static void test_numa_order_and_unknown(void **state)
{
	struct observation o;
	const char *n0, *n1, *nu;
	char *t;

	tr_mega(&o);
	for (size_t i = 0; i < o.pci.n; i++) {
		struct obs_pci_func *f = &o.pci.v[i];

		if (f->bus >= 0x81 && f->bus <= 0x87)
			f->numa = 0;
		else if (f->bus >= 0x01 && f->bus <= 0x07)
			f->numa = -1;
	}
	t = tr_render(&o, NULL);
	n0 = strstr(t, "  numa 0\n");
	n1 = strstr(t, "  numa 1\n");
	nu = strstr(t, "  numa unknown\n");
	assert_non_null(n0);
	assert_non_null(n1);
	assert_non_null(nu);
	assert_true(n0 < n1 && n1 < nu);
	/* In numa 0: the switch at 08 before the one at 81 (BDF order); 01 alone under "unknown". */
	assert_true(strstr(t, "switch 0000:08:00.0") < strstr(t, "switch 0000:81:00.0"));
	assert_true(strstr(t, "switch 0000:81:00.0") < n1);
	assert_true(strstr(t, "switch 0000:01:00.0") > nu);
	assert_non_null(strstr(t, "  numa unknown\n  └─ switch 0000:01:00.0  buses 02-07\n"));
	free(t);
	observation_free(&o);
}

/* A member on another NUMA node than its switch says so on its row. */
static void test_member_numa_differs(void **state)
{
	struct observation o;
	char line[256], *t;

	tr_mega(&o);
	((struct obs_pci_func *)observation_pci_find(&o, "0000:05:00.0"))->numa = 1;
	t = tr_render(&o, NULL);
	assert_string_equal(tr_line(t, "0000:05:00.0", line, sizeof(line)),
			    "  │  ├─ GPU  0000:05:00.0  → eth2  numa 1");
	free(t);
	observation_free(&o);
}

/* The API's Network on each NIC row; a flapping link and one without an address marked on theirs. */
static void tr_networks(struct profile *p)
{
	for (size_t i = 0; i < p->n_nics; i++)
		snprintf(p->nics[i].network, sizeof(p->nics[i].network), "gpu-nic-%zu", i);
}

static void test_network_flap_no_address(void **state)
{
	struct observation o;
	char line[256], *t;

	tr_mega(&o);
	snprintf(o.flaps.v[0].name, sizeof(o.flaps.v[0].name), "eth2");
	o.flaps.v[0].changes = 4;
	o.flaps.n = 1;
	o.flaps.hold_s = 60;
	((struct obs_link *)observation_link_find(&o, "eth5"))->n_ipv4 = 0;
	t = tr_render(&o, tr_networks);
	assert_string_equal(tr_line(t, "  eth1  ", line, sizeof(line)),
			    "  │  ├─ NIC  0000:06:00.0  eth1  up  10.0.16.3/32  aperture 0000:00:10.0  network gpu-nic-0");
	assert_non_null(strstr(t, "  │  └─ NIC  0000:07:00.0  eth2  up  10.0.17.3/32  aperture 0000:00:11.0  network gpu-nic-1\n"
				  "  │          FAIL links: flapping: 4 up/down changes\n"));
	/* eth5 has no address: no aperture entry can be matched to it either (the check warns). */
	assert_non_null(strstr(t, "  │  ├─ NIC  0000:86:00.0  eth5  up  -             aperture -  network gpu-nic-4\n"
				  "  │  │       FAIL links: no IPv4 address  WARN aperture-devices: IPv4 unknown: no entry matched\n"));
	tr_assert_bounded(t);
	free(t);
	observation_free(&o);
}

/*
 * The API's view: nic-info puts eth1..eth7 (by PCI address) on gpu-nic-0..6 and eth8 on none; the
 * Network objects listed are gpu-nic-0..7 Ready Device Networks, but gpu-nic-2 absent and gpu-nic-5
 * not Ready.
 */
static void tr_kube_networks(struct observation *o, struct obs_kube *k)
{
	static const char *const bdf[7] = { "0000:06:00.0", "0000:07:00.0", "0000:0d:00.0", "0000:0e:00.0",
					    "0000:86:00.0", "0000:87:00.0", "0000:8d:00.0" };
	o->kube = k;
	k->configured = true;
	k->node_fetch.state = KUBE_FETCH_OK;
	k->nics = calloc(7, sizeof(*k->nics));
	assert_non_null(k->nics);
	for (size_t i = 0; i < 7; i++) {
		snprintf(k->nics[i].bdf, sizeof(k->nics[i].bdf), "%s", bdf[i]);
		snprintf(k->nics[i].network, sizeof(k->nics[i].network), "gpu-nic-%zu", i);
	}
	k->n_nics = 7;
	k->networks = calloc(8, sizeof(*k->networks));
	assert_non_null(k->networks);
	for (size_t i = 0; i < 8; i++) {
		struct kube_network *net;

		if (i == 2)
			continue;
		net = &k->networks[k->n_networks++];
		snprintf(net->name, sizeof(net->name), "gpu-nic-%zu", i);
		snprintf(net->type, sizeof(net->type), "Device");
		net->has_params_ref = true;
		net->ready = i != 5;
		net->params_ready = true;
	}
	k->networks_fetch.state = KUBE_FETCH_OK;
	k->has_nic_info = true;
	k->has_north = true;
}

/* The networks check fails on the observation alone, and each NIC row it marks is one its message names. */
static void test_network_marks(void **state)
{
	struct strbuf sb = { 0 };
	struct obs_kube k = { 0 };
	struct observation o;
	struct profile p;
	const char *msg;
	char *t;

	tr_mega(&o);
	tr_kube_networks(&o, &k);
	assert_int_equal(profile_evaluate(&o, &p), 0);
	assert_int_equal(p.checks[CHECK_NETWORKS].status, CHECK_FAIL);
	msg = p.checks[CHECK_NETWORKS].message;
	assert_non_null(strstr(msg, "Network gpu-nic-2 does not exist"));
	assert_non_null(strstr(msg, "Network gpu-nic-5 is not Ready"));
	assert_non_null(strstr(msg, "eth8"));
	assert_int_equal(render_tree(&o, &p, &sb), 0);
	t = strbuf_take(&sb);
	assert_non_null(t);
	profile_free(&p);
	assert_non_null(strstr(t, "  │  ├─ NIC  0000:06:00.0  eth1  up  10.0.16.3/32  aperture 0000:00:10.0  network gpu-nic-0\n"
				  "  │  └─ NIC"));
	assert_non_null(strstr(t, "     ├─ NIC  0000:0d:00.0  eth3  up  10.0.18.3/32  aperture 0000:00:12.0  network gpu-nic-2\n"
				  "     │       FAIL networks: no such Network\n"));
	assert_non_null(strstr(t, "  │  └─ NIC  0000:87:00.0  eth6  up  10.0.21.3/32  aperture 0000:00:15.0  network gpu-nic-5\n"
				  "  │          FAIL networks: Network not Ready\n"));
	assert_non_null(strstr(t, "     └─ NIC  0000:8e:00.0  eth8  up  10.0.23.3/32  aperture 0000:00:17.0\n"
				  "             FAIL networks: no Network in nic-info\n"));
	assert_int_equal(tr_count(t, "FAIL"), 3);
	tr_assert_bounded(t);
	free(t);
	observation_free(&o);
	obs_kube_free(&k);
}

/* A switch that lost its NICs, one with one NIC for two GPUs, and a stale aperture entry: marked where they sit. */
static void test_unpaired_and_stale(void **state)
{
	struct observation o;
	struct obs_aperture_entry *e;
	char line[256], *t;

	tr_mega(&o);
	((struct obs_pci_func *)observation_pci_find(&o, "0000:06:00.0"))->kind = PCI_KIND_OTHER;
	((struct obs_pci_func *)observation_pci_find(&o, "0000:07:00.0"))->kind = PCI_KIND_OTHER;
	((struct obs_pci_func *)observation_pci_find(&o, "0000:0e:00.0"))->kind = PCI_KIND_OTHER;
	o.host.aperture.v = realloc(o.host.aperture.v, (o.host.aperture.n + 1) * sizeof(*e));
	e = &o.host.aperture.v[o.host.aperture.n++];
	*e = o.host.aperture.v[2];
	snprintf(e->name, sizeof(e->name), "0000:00:1f.0");
	t = tr_render(&o, NULL);
	assert_string_equal(tr_line(t, "0000:04:00.0", line, sizeof(line)),
			    "  │  ├─ GPU  0000:04:00.0  FAIL pairing: no GPU NIC in its switch");
	assert_string_equal(tr_line(t, "0000:05:00.0", line, sizeof(line)),
			    "  │  └─ GPU  0000:05:00.0  FAIL pairing: no GPU NIC in its switch");
	/* The daemon's division: two GPUs on the switch's one NIC. */
	assert_string_equal(tr_line(t, "0000:0c:00.0", line, sizeof(line)), "     ├─ GPU  0000:0c:00.0  → eth3");
	assert_non_null(strstr(t, "     └─ NIC  0000:0d:00.0  eth3  up  10.0.18.3/32  aperture 0000:00:12.0\n"
				  "             FAIL pairing: serves 2 GPUs, expected 1\n"));
	/* The entries of the NICs gone serve no row: outside, by name, the stale one last. */
	assert_non_null(strstr(t, "  outside the GPU switches\n"
				  "  ├─ aperture  0000:00:10.0  BAR4 10.0.16.3  FAIL aperture-devices: serves no GPU NIC\n"
				  "  ├─ aperture  0000:00:11.0  BAR4 10.0.17.3  FAIL aperture-devices: serves no GPU NIC\n"
				  "  ├─ aperture  0000:00:13.0  BAR4 10.0.19.3  FAIL aperture-devices: serves no GPU NIC\n"));
	assert_non_null(strstr(t, "  └─ aperture  0000:00:1f.0  BAR4 10.0.18.3\n"
				  "          FAIL aperture-devices: stale: no live LLCM function behind it\n"));
	tr_assert_bounded(t);
	free(t);
	observation_free(&o);
}

/* Hostile names: control bytes, non-ASCII, far too long: printable ASCII, 100 columns, nothing lost but the tail. */
static void tr_hostile_networks(struct profile *p)
{
	for (size_t i = 0; i < p->n_nics; i++) {
		memset(p->nics[i].network, 'n', sizeof(p->nics[i].network) - 1);
		p->nics[i].network[sizeof(p->nics[i].network) - 1] = '\0';
		p->nics[i].network[3] = '\x1b';
		p->nics[i].network[4] = '\xc3';
		p->nics[i].network[5] = '\xa9';
		p->nics[i].network[6] = ' ';
	}
}

static void test_hostile_names_bounded(void **state)
{
	struct observation o;
	struct obs_aperture_entry *e;
	char *t;

	tr_mega(&o);
	o.host.aperture.v = realloc(o.host.aperture.v, (o.host.aperture.n + 1) * sizeof(*e));
	e = &o.host.aperture.v[o.host.aperture.n++];
	memset(e, 0, sizeof(*e));
	memset(e->name, 'z', sizeof(e->name) - 1);
	e->name[1] = '\n';
	e->name[2] = '\x9b';
	e->type = OBS_FILE_OTHER;
	o.host.aperture.v[0].n_narrow = 1;
	snprintf(o.host.aperture.v[0].narrow, sizeof(o.host.aperture.v[0].narrow), "resource\x1b" "0 0644");
	t = tr_render(&o, tr_hostile_networks);
	tr_assert_bounded(t);
	assert_non_null(strstr(t, "network nnn????nnn"));
	assert_non_null(strstr(t, "  └─ aperture  z??zzz"));     /* cut on its row, not moved */
	assert_non_null(strstr(t, "zzz…\n"));   /* the 255-byte name is cut at the edge */
	assert_non_null(strstr(t, "FAIL aperture-devices: is a fifo or socket, not a directory"));
	assert_non_null(strstr(t, "FAIL aperture-devices: not a+rw: resource?0 0644\n"));
	free(t);
	observation_free(&o);
}

static void test_no_tree(void **state)
{
	struct observation o;
	struct strbuf sb = { 0 };
	struct profile p;

	memset(&o, 0, sizeof(o));
	o.kube = &ob_unread;
	ob_nic(&o, 0, 4, "eth0");
	ob_link(&o, "eth0", 1460, "10.128.0.2")->default_route = true;
	ob_finish(&o);
	assert_int_equal(profile_evaluate(&o, &p), 0);
	assert_int_equal(render_tree(&o, &p, &sb), 0);
	assert_int_equal(sb.len, 0);            /* a CPU node: no GPU, no GPU NIC */
	profile_free(&p);
	observation_free(&o);

	tr_mega(&o);
	assert_int_equal(profile_evaluate(&o, &p), 0);
	o.pci.status.state = PROBE_FAILED;
	assert_int_equal(render_tree(&o, &p, &sb), 0);
	assert_int_equal(sb.len, 0);            /* the bus not read: no shape to draw */
	profile_free(&p);
	observation_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_mega),
		cmocka_unit_test(test_nic_down_marked_on_its_row),
		cmocka_unit_test(test_mark_follows_check),
		cmocka_unit_test(test_tcpx_two_gpus_per_nic),
		cmocka_unit_test(test_numa_order_and_unknown),
		cmocka_unit_test(test_network_flap_no_address),
		cmocka_unit_test(test_network_marks),
		cmocka_unit_test(test_member_numa_differs),
		cmocka_unit_test(test_unpaired_and_stale),
		cmocka_unit_test(test_hostile_names_bounded),
		cmocka_unit_test(test_no_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
