#!/bin/sh
# deps.sh - install the Debian packages the build and the tests need, only when missing.
# Usage: scripts/deps.sh [build|test|bench|fuzz]...
set -eu

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
			|| missing="$missing $test_pkgs" ;;
	bench)
		have_cmd hyperfine && [ -x /usr/bin/time ] || missing="$missing $bench_pkgs" ;;
	fuzz)
		have_cmd clang && [ -n "$(ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] \
			|| missing="$missing $fuzz_pkgs" ;;
	*) echo "deps.sh: unknown goal '$goal'" >&2; exit 2 ;;
	esac
done

[ -n "$missing" ] || exit 0
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
