#!/bin/sh
# deps.sh - install the Debian packages the build and the tests need, only when missing; the test goal also installs tests/k8s's npm packages from its lockfile.
# Usage: scripts/deps.sh [build|test|bench|fuzz]...
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

need_pc="libnl-3.0 libnl-route-3.0 libpci libudev libcurl libcjson yaml-0.1"
build_pkgs="build-essential pkg-config libnl-3-dev libnl-route-3-dev libpci-dev libudev-dev libcurl4-openssl-dev libcjson-dev libyaml-dev"
test_pkgs="libcmocka-dev umockdev libumockdev-dev iproute2 pciutils openssl python3 python3-jsonschema python3-yaml util-linux groff-base man-db valgrind"
bench_pkgs="hyperfine time"
fuzz_pkgs="clang libclang-rt-14-dev"

missing=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }

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
			&& have_cmd groff && have_cmd man && have_cmd valgrind \
			&& /usr/bin/python3 -c 'import jsonschema, yaml' 2>/dev/null \
			|| missing="$missing $test_pkgs"
		# Node.js and npm for tests/k8s (the CEL engine and the Kubernetes OpenAPI models).
		have_cmd node || missing="$missing nodejs"
		have_cmd npm || missing="$missing npm"
		npm_ci=1 ;;
	bench)
		have_cmd hyperfine && [ -x /usr/bin/time ] || missing="$missing $bench_pkgs" ;;
	fuzz)
		have_cmd clang && [ -n "$(ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] \
			|| missing="$missing $fuzz_pkgs" ;;
	*) echo "deps.sh: unknown goal '$goal'" >&2; exit 2 ;;
	esac
done

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

if [ -z "$missing" ]; then
	npm_install
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing" >&2
	echo "deps.sh: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "deps.sh: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || { echo "deps.sh: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
npm_install
