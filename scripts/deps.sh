#!/bin/sh
# deps.sh - install the Debian packages the build and the tests need, only when missing; the test goal also installs tests/k8s's npm packages from its lockfile.
# Usage: scripts/deps.sh [build|test|bench|fuzz]...
# promtool (for test_alerting) comes out of Debian's prometheus package without installing it (that
# would add a Prometheus server and its service): apt-get download, then dpkg-deb -x into .tools/bin.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

need_pc="libnl-3.0 libnl-route-3.0 libudev libcurl libcjson yaml-0.1 libmicrohttpd"
build_pkgs="build-essential pkg-config libnl-3-dev libnl-route-3-dev libudev-dev libcurl4-openssl-dev libcjson-dev libyaml-dev libmicrohttpd-dev"
test_pkgs="libcmocka-dev umockdev libumockdev-dev iproute2 pciutils openssl python3 python3-jsonschema python3-yaml util-linux groff-base man-db valgrind strace"
bench_pkgs="hyperfine time"
fuzz_pkgs="clang libclang-rt-14-dev"

missing=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }


# tests/k8s/node_modules from package-lock.json, exactly (npm ci), when missing or older than the
# lockfile: the stamp is the lockfile's hash, written after a complete install.
npm_install() {
	[ "${npm_ci:-0}" = 1 ] || return 0
	_dir=$top/tests/k8s
	_want=$(sha256sum "$_dir/package-lock.json" | cut -d' ' -f1)
	[ "$(cat "$_dir/node_modules/.tcpxo-lock-sha256" 2>/dev/null)" = "$_want" ] && return 0
	echo "deps.sh: npm ci in tests/k8s" >&2
	(cd "$_dir" && npm ci --no-audit --no-fund --ignore-scripts --prefer-offline --loglevel=error >/dev/null) || {
		echo "deps.sh: npm ci in tests/k8s failed" >&2
		exit 1
	}
	printf '%s\n' "$_want" >"$_dir/node_modules/.tcpxo-lock-sha256"
}

# .tools/bin/promtool from the prometheus package's files, when no promtool is on PATH. Best effort:
# without it test_alerting skips its two promtool cases and says why.
promtool_fetch() {
	[ "${want_promtool:-0}" = 1 ] || return 0
	have_cmd promtool && return 0
	[ -x "$top/.tools/bin/promtool" ] && return 0
	_t=$(mktemp -d) || return 0
	if ! (cd "$_t" && apt-get download -qq prometheus >/dev/null 2>&1); then
		if [ "$(id -u)" = 0 ] && [ -z "${apt_updated:-}" ]; then
			apt-get update -qq >/dev/null 2>&1 || true
		fi
		(cd "$_t" && apt-get download -qq prometheus >/dev/null 2>&1) || {
			echo "deps.sh: could not download Debian's prometheus package for promtool (test_alerting skips its promtool cases)" >&2
			rm -rf "$_t"
			return 0
		}
	fi
	echo "deps.sh: promtool from $(ls "$_t") into .tools/bin" >&2
	if dpkg-deb -x "$_t"/prometheus_*.deb "$_t/x" && [ -x "$_t/x/usr/bin/promtool" ]; then
		mkdir -p "$top/.tools/bin" && cp "$_t/x/usr/bin/promtool" "$top/.tools/bin/promtool"
	else
		echo "deps.sh: the prometheus package held no usr/bin/promtool" >&2
	fi
	rm -rf "$_t"
}

# apt_install PKG... - apt-get update, then install PKG... (root). Another apt or dpkg (unattended
# upgrades, a second shell) may hold the dpkg lock: apt-get waits DEPS_APT_LOCK_WAIT seconds (600)
# for it rather than failing at once, and we say so first, as apt-get's own waiting line is hidden.
apt_install() {
	_wait=${DEPS_APT_LOCK_WAIT:-600}
	echo "deps.sh: installing: $*" >&2
	echo "deps.sh: if another apt or dpkg holds the lock, waiting up to ${_wait}s for it" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o "DPkg::Lock::Timeout=$_wait" update -qq >/dev/null || { echo "deps.sh: apt-get update failed" >&2; return 1; }
	apt_updated=1
	apt-get -o "DPkg::Lock::Timeout=$_wait" install -y -qq --no-install-recommends "$@" >/dev/null \
		|| { echo "deps.sh: apt-get install failed" >&2; return 1; }
}

# DEPS_SH_LIB=1: define the functions only (tests/integration/test_deps.sh sources this file).
[ "${DEPS_SH_LIB:-0}" = 1 ] && return 0

for goal in "${@:-build}"; do
	case "$goal" in
	build)
		ok=1
		have_cmd pkg-config || ok=0
		have_cmd cc || ok=0
		if [ $ok = 1 ]; then for p in $need_pc; do have_pc "$p" || ok=0; done; fi
		[ $ok = 1 ] || missing="$missing $build_pkgs" ;;
	test)
		have_pc cmocka && have_cmd umockdev-run && have_cmd ip && have_cmd lspci && have_cmd openssl \
			&& have_cmd groff && have_cmd man && have_cmd valgrind && have_cmd strace \
			&& /usr/bin/python3 -c 'import jsonschema, yaml' 2>/dev/null \
			|| missing="$missing $test_pkgs"
		# Node.js and npm for tests/k8s (the CEL engine and the Kubernetes OpenAPI models).
		have_cmd node || missing="$missing nodejs"
		have_cmd npm || missing="$missing npm"
		npm_ci=1
		want_promtool=1 ;;
	bench)
		have_cmd hyperfine && [ -x /usr/bin/time ] || missing="$missing $bench_pkgs" ;;
	fuzz)
		have_cmd clang && [ -n "$(ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] \
			|| missing="$missing $fuzz_pkgs" ;;
	*) echo "deps.sh: unknown goal '$goal'" >&2; exit 2 ;;
	esac
done

if [ -z "$missing" ]; then
	npm_install
	promtool_fetch
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing" >&2
	echo "deps.sh: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
# shellcheck disable=SC2086
apt_install $missing || exit 1
npm_install
promtool_fetch
