# tcpxo-agent - one hand-written Makefile. Sources and tests are discovered by directory.
#   make            build build/tcpxo-agent and build/kubectl-fabric (the workstation's kubectl plugin, portable C)
#   make check      unit + integration tests (installs missing Debian packages first)
#   make demo       run the agent on the bundled A3 Mega fixture inside a private netns
#   make SAN=1 ...  address+undefined sanitizers (objects under build-san/)
#   make WERROR=1   warnings are errors (CI)
#   make bench      measure the agent beside peer tools; writes bench/results.md
#   make lint-layers  includes point down (fabric -> agent -> report -> probes), one adapter per library, no cycles
#   make update-docs  rewrite the user guide's command reference from each command's --help
#   make fuzz       libFuzzer run of every fuzz/fuzz_*.c target, FUZZ_SECONDS each (default 60)
#   make FUZZ=1 ... clang build for libFuzzer (objects under build-fuzz/)

VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= cc
PKG_CONFIG ?= pkg-config
PKGS      := libnl-3.0 libnl-route-3.0 libudev libcurl libcjson yaml-0.1 libmicrohttpd

ifeq ($(FUZZ),1)
BUILD     ?= build-fuzz
CC        := clang
SANFLAGS  := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_DRIVER := fuzz/libfuzzer.c
FUZZ_LINK := -fsanitize=fuzzer
else ifeq ($(SAN),1)
BUILD     ?= build-san
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD     ?= build
SANFLAGS  :=
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Lazy (=): pkg-config runs when a recipe needs the flags, after `deps` has installed them.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS))
# libcurl: cflags only. probes/kube/http_conf.c dlopens libcurl.so.4 when a client is first made: linked
# plainly, libcurl and the ~30 libraries behind it cost every run ~6 MiB of RSS and 10-25 ms, API or not
# (docs/ARCHITECTURE.md). Its compile-time type checks still run: see CURL_TYPECHECK below.
# libmicrohttpd: cflags only as well. agent/metrics_http.c dlopens libmicrohttpd.so.12 when --metrics-address
# is given: linked, it and the GnuTLS it links cost every run ~2.6 MiB of RSS and ~5 ms.
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs $(filter-out libcurl libmicrohttpd,$(PKGS))) -ldl
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka)
CMOCKA_LIBS   = $(shell $(PKG_CONFIG) --libs cmocka)

WARN      := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-unused-parameter -Wswitch-enum -Wno-switch-default
ifeq ($(WERROR),1)
WARN      += -Werror
endif
OPT       ?= -O2 -g
CPPFLAGS  += -I. -D_GNU_SOURCE -DTCPXO_VERSION='"$(VERSION)"'
CFLAGS    += -std=gnu11 $(OPT) $(WARN) $(SANFLAGS) -fstack-protector-strong -D_FORTIFY_SOURCE=2 -MMD -MP
LDFLAGS   += $(SANFLAGS) -Wl,-z,relro,-z,now

LIB_SRCS  := $(sort $(wildcard probes/*/*.c report/*/*.c) $(filter-out agent/main.c,$(wildcard agent/*.c)))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ  := $(BUILD)/obj/agent/main.o
BIN       := $(BUILD)/tcpxo-agent
LIBA      := $(BUILD)/libtcpxo.a

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# cmocka binaries that fork a fake server or another process: run with the integration scripts.
INTEG_SRCS := $(sort $(wildcard tests/integration/test_*.c))
INTEG_BINS := $(INTEG_SRCS:tests/integration/%.c=$(BUILD)/tests/integration/%)
TEST_HELPER_SRCS := $(sort $(wildcard tests/helpers/*.c))
TEST_HELPER_BINS := $(TEST_HELPER_SRCS:tests/helpers/%.c=$(BUILD)/tests/helpers/%)
# Fuzz targets: libFuzzer binaries with FUZZ=1, else replay drivers that make check runs over fixtures/fuzz/.
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_DRIVER ?= fuzz/replay.c
FUZZ_SECONDS ?= 60
# The builds that check, unit and integration start run one compiler per CPU (the parent make has no -j).
NPROC     := $(shell nproc 2>/dev/null || echo 2)
BENCH_BINS := $(BUILD)/bench/floor $(BUILD)/bench/floor-nocurl $(BUILD)/bench/judge

# kubectl-fabric: the fleet commands for a workstation (kubectl does the API). Portable C: its own objects,
# built with -std=c11 -D_POSIX_C_SOURCE=200809L and no _GNU_SOURCE (glibc then declares no extension, and an
# undeclared call is an error), from fabric/, the agent's fleet commands and what lies below them that reads
# no host: report/, probes/model and the pure parsers. scripts/portable-check.sh holds every header they reach
# to C11's and POSIX.1-2008's lists (no linux/, no libnl, libpci, libudev, libcurl); the link takes only
# cJSON and libyaml. A file added here that is not portable fails the build.
FABRIC_BIN := $(BUILD)/kubectl-fabric
FABRIC_AGENT := agent/cli.c agent/cli_help.c agent/cli_parse.c agent/cli_value.c agent/cmd_interfaces.c agent/cmd_runtime.c agent/cmd_status.c \
	agent/cmd_workloads_published.c agent/infile.c agent/kubesrc.c agent/output.c agent/podsread.c agent/relfile.c
FABRIC_PURE := probes/host/bar4.c probes/host/cmdline.c probes/host/hostfiles.c probes/host/pcitopo_parse.c probes/kube/imageref.c \
	probes/kube/kubejson.c probes/kube/kubename.c probes/kube/kubeparse.c probes/kube/kubeparse_pods.c \
	probes/kube/kubepod.c probes/kube/nodelist.c probes/kube/trainruntime.c
FABRIC_SRCS := $(sort $(wildcard fabric/*.c) $(FABRIC_AGENT) $(wildcard probes/model/*.c report/*/*.c) $(FABRIC_PURE))
FABRIC_OBJS := $(FABRIC_SRCS:%.c=$(BUILD)/obj-portable/%.o)
FABRIC_LIBA := $(BUILD)/libfabric.a
FABRIC_PKGS := libcjson yaml-0.1
PORTABLE_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Werror=implicit-function-declaration $(OPT) $(WARN) \
	$(SANFLAGS) -MMD -MP
PORTABLE_CHECK := $(BUILD)/obj-portable/portable-check.ok
# GNU ld's hardening where the linker takes it (not Apple's ld).
FABRIC_LDFLAGS = $(SANFLAGS) $(if $(filter Darwin,$(shell uname -s)),,-Wl,-z,relro,-z,now)

.PHONY: all deps test-deps check unit integration demo install install-fabric uninstall clean update-golden update-docs fixtures \
	fuzz fuzz-build bench lint-layers
.DEFAULT_GOAL := all

all: $(BIN) $(FABRIC_BIN)

deps:
	@sh scripts/deps.sh build

test-deps:
	@sh scripts/deps.sh build test

$(BUILD)/.deps-ok: scripts/deps.sh
	@sh scripts/deps.sh build
	@mkdir -p $(@D) && touch $@

$(BUILD)/obj/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJS)
	@rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)$(AR) rcs $@ $^

# libcurl's type checks (typecheck-gcc.h: every curl_easy_setopt() option against its value's type) work
# on its real function names, which the dlopen'd adapter does not call: each adapter file is compiled once
# more with HTTP_CURL_TYPECHECK (HTTP_CURL(f) is then curl_f) and the object dropped. The checks are calls
# to functions with a warning attribute that -O2 removes when the type is right; they stand in a system
# header, whose warnings GCC hides, hence -Wsystem-headers (only that warning is made an error).
CURL_ADAPTER := probes/kube/http.c probes/kube/http_stream.c probes/kube/http_conf.c
CURL_TYPECHECK := $(BUILD)/obj/probes/kube/curl-typecheck.ok
$(CURL_TYPECHECK): $(CURL_ADAPTER) probes/kube/http_conf.h probes/kube/http.h | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CHECK   libcurl option types")
	$(Q)for f in $(CURL_ADAPTER); do \
		$(CC) $(CPPFLAGS) -std=gnu11 -O2 -Wsystem-headers -Werror=attribute-warning $(PKG_CFLAGS) \
			-DHTTP_CURL_TYPECHECK -c $$f -o /dev/null 2>$(@D)/curl-typecheck.err || \
			{ grep -B2 -A2 'error' $(@D)/curl-typecheck.err >&2; exit 1; }; \
	done
	@touch $@

$(BIN): $(MAIN_OBJ) $(LIBA) $(CURL_TYPECHECK)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LIBA) $(PKG_LIBS) -lm

# kubectl-fabric needs a C11 compiler, pkg-config, cJSON and libyaml only: where they are there (a Mac with
# `brew install pkg-config cjson libyaml`), nothing is installed; else Debian's build packages, as for the agent.
$(BUILD)/.deps-fabric-ok: scripts/deps.sh
	@if $(PKG_CONFIG) --exists $(FABRIC_PKGS) 2>/dev/null; then :; \
	elif command -v apt-get >/dev/null 2>&1; then sh scripts/deps.sh build; \
	else echo "kubectl-fabric needs pkg-config, cJSON and libyaml ($(FABRIC_PKGS)); e.g. brew install pkg-config cjson libyaml" >&2; \
		exit 1; fi
	@mkdir -p $(@D) && touch $@

# No -D_GNU_SOURCE here (CPPFLAGS has it): the portable objects see only what POSIX.1-2008 and C11 declare.
$(BUILD)/obj-portable/%.o: %.c | $(BUILD)/.deps-fabric-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CCPORT  $<")
	$(Q)$(CC) -I. -DTCPXO_VERSION='"$(VERSION)"' $(PORTABLE_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(FABRIC_PKGS)) \
		-c $< -o $@

$(PORTABLE_CHECK): $(FABRIC_SRCS) $(wildcard agent/*.h probes/*/*.h report/*/*.h fabric/*.h) scripts/portable-check.sh
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CHECK   kubectl-fabric's headers: C11 and POSIX.1-2008 only")
	$(Q)sh scripts/portable-check.sh $(FABRIC_SRCS) >$(@D)/portable-check.out || \
		{ cat $(@D)/portable-check.out >&2; exit 1; }
	@touch $@

$(FABRIC_LIBA): $(filter-out $(BUILD)/obj-portable/fabric/%,$(FABRIC_OBJS))
	@rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)$(AR) rcs $@ $^

$(FABRIC_BIN): $(filter $(BUILD)/obj-portable/fabric/%,$(FABRIC_OBJS)) $(FABRIC_LIBA) $(PORTABLE_CHECK)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(FABRIC_LDFLAGS) -o $@ $(filter %.o,$^) $(FABRIC_LIBA) $(shell $(PKG_CONFIG) --libs $(FABRIC_PKGS)) -lm

$(BUILD)/tests/%: tests/unit/%.c $(LIBA) | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) $(CMOCKA_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(PKG_LIBS) $(CMOCKA_LIBS) -lm

$(BUILD)/tests/integration/%: tests/integration/%.c $(LIBA) | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) $(CMOCKA_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(PKG_LIBS) $(CMOCKA_LIBS) -lm

$(BUILD)/tests/helpers/%: tests/helpers/%.c $(LIBA) | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  HELPER  $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(PKG_LIBS) -lm

$(BUILD)/fuzz/%: fuzz/%.c fuzz/fuzz.c $(FUZZ_DRIVER) fuzz/fuzz.h $(LIBA) | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(CPPFLAGS) $(filter-out -MMD -MP,$(CFLAGS)) $(PKG_CFLAGS) $< fuzz/fuzz.c $(FUZZ_DRIVER) -o $@ \
		$(LDFLAGS) $(FUZZ_LINK) $(LIBA) $(PKG_LIBS) -lm

fuzz-build: $(FUZZ_BINS)

fuzz:
	@sh scripts/deps.sh build fuzz
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-build
	@BUILD=build-fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh $(FUZZ_TARGETS)

# The floor: do-nothing programs linked with the agent's libraries (with / without libcurl).
$(BUILD)/bench/floor: bench/floor.c | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(filter-out -MMD -MP,$(CFLAGS)) $(PKG_CFLAGS) -DFLOOR_CURL $< -o $@ $(LDFLAGS) \
		-Wl,--no-as-needed $(shell $(PKG_CONFIG) --libs $(filter-out libmicrohttpd,$(PKGS))) -Wl,--as-needed -lm

$(BUILD)/bench/floor-nocurl: bench/floor.c | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(filter-out -MMD -MP,$(CFLAGS)) $(PKG_CFLAGS) $< -o $@ $(LDFLAGS) \
		-Wl,--no-as-needed $(shell $(PKG_CONFIG) --libs $(filter-out libcurl libmicrohttpd,$(PKGS))) -Wl,--as-needed -lm

# The workload check's own cost inside --once, timed in process over the agent's library.
$(BUILD)/bench/judge: bench/judge.c $(LIBA) | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(filter-out -MMD -MP,$(CFLAGS)) $(PKG_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(PKG_LIBS) -lm

bench:
	@sh scripts/deps.sh build test bench
	@$(MAKE) --no-print-directory $(BIN) $(BENCH_BINS) $(TEST_HELPER_BINS)
	@BUILD=$(BUILD) sh bench/run.sh

# The objects too: who calls whom (nm) catches a circle that no #include line shows.
lint-layers: $(LIB_OBJS) $(FABRIC_OBJS)
	@/usr/bin/python3 scripts/lint-layers.py --objects $(BUILD)/obj --objects $(BUILD)/obj-portable

check: test-deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(BIN) $(FABRIC_BIN) $(UNIT_BINS) $(INTEG_BINS) $(TEST_HELPER_BINS) $(FUZZ_BINS)
	@$(MAKE) --no-print-directory lint-layers
	@BUILD=$(BUILD) SAN=$(SAN) sh tests/run.sh

unit: test-deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(BIN) $(FABRIC_BIN) $(UNIT_BINS) $(INTEG_BINS) $(TEST_HELPER_BINS) $(FUZZ_BINS)
	@BUILD=$(BUILD) SAN=$(SAN) ONLY=unit sh tests/run.sh

integration: test-deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(BIN) $(FABRIC_BIN) $(UNIT_BINS) $(INTEG_BINS) $(TEST_HELPER_BINS) $(FUZZ_BINS)
	@BUILD=$(BUILD) SAN=$(SAN) ONLY=integration sh tests/run.sh

# The user guide's command reference from each command's --help (test_docs.sh fails when they differ).
update-docs: $(BIN) $(FABRIC_BIN)
	@sh scripts/command-reference.sh --update $(BUILD)

update-golden: test-deps
	@$(MAKE) --no-print-directory $(BIN)
	@BUILD=$(BUILD) sh tests/integration/update-golden.sh

fixtures:
	@sh scripts/deps.sh build test
	/usr/bin/python3 fixtures/gen.py

demo: deps
	@$(MAKE) --no-print-directory $(BIN)
	@SCENARIO=$(SCENARIO) sh scripts/demo.sh $(BIN)

install: $(BIN) $(FABRIC_BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/tcpxo-agent
	install -D -m 0644 docs/tcpxo-agent.8 $(DESTDIR)$(PREFIX)/share/man/man8/tcpxo-agent.8
	install -D -m 0755 $(FABRIC_BIN) $(DESTDIR)$(PREFIX)/bin/kubectl-fabric

# kubectl-fabric alone, on a workstation (no GNU install -D needed): make install-fabric PREFIX=$HOME/.local
install-fabric: $(FABRIC_BIN)
	mkdir -p $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(FABRIC_BIN) $(DESTDIR)$(PREFIX)/bin/kubectl-fabric

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/tcpxo-agent $(DESTDIR)$(PREFIX)/share/man/man8/tcpxo-agent.8 \
		$(DESTDIR)$(PREFIX)/bin/kubectl-fabric

clean:
	rm -rf build build-san build-fuzz

-include $(LIB_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(FABRIC_OBJS:.o=.d)
# The test programs' own headers (checkfx.h, obsbuild.h, ...): an edit rebuilds the tests that include them.
-include $(UNIT_BINS:=.d) $(INTEG_BINS:=.d) $(TEST_HELPER_BINS:=.d) $(FUZZ_BINS:=.d)
