#!/bin/sh
# test_deps.sh - scripts/deps.sh's apt_install waits for another apt's lock (apt-get's
# DPkg::Lock::Timeout) and says so, and fails with a message when apt-get does. apt-get is a stub on
# PATH that records its arguments: nothing is installed.
# Env: TOPDIR (repo root). Prints ok/not ok per case.
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOPDIR/tests/lib/tap.sh"

tmp=$(mktemp -d /tmp/tcpxo-deps.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/bin"
cat >"$tmp/bin/apt-get" <<'STUB'
#!/bin/sh
echo "$*" >>"$APT_LOG"
case " $* " in *" install "*) exit "${APT_INSTALL_RC:-0}" ;; esac
exit 0
STUB
chmod +x "$tmp/bin/apt-get"

run_install() {  # PKG... -> stdout: apt-get's calls; $tmp/err: deps.sh's stderr
	: >"$tmp/log"
	(
		PATH=$tmp/bin:$PATH APT_LOG=$tmp/log DEPS_SH_LIB=1 DEPS_APT_LOCK_WAIT=7
		export PATH APT_LOG
		. "$TOPDIR/scripts/deps.sh"
		apt_install "$@"
	) 2>"$tmp/err"
}

if run_install libfoo-dev bar; then
	if grep -qx -- '-o DPkg::Lock::Timeout=7 update -qq' "$tmp/log" \
		&& grep -qx -- '-o DPkg::Lock::Timeout=7 install -y -qq --no-install-recommends libfoo-dev bar' "$tmp/log"; then
		ok apt-waits-for-lock
	else
		nok apt-waits-for-lock "apt-get called as: $(cat "$tmp/log")"
	fi
	if grep -q 'waiting up to 7s' "$tmp/err"; then
		ok says-it-waits
	else
		nok says-it-waits "stderr: $(cat "$tmp/err")"
	fi
else
	nok apt-waits-for-lock "apt_install failed: $(cat "$tmp/err")"
	nok says-it-waits "apt_install failed"
fi

if APT_INSTALL_RC=100 run_install libfoo-dev; then
	nok install-failure-fails "apt_install returned 0 when apt-get install failed"
elif grep -q 'deps.sh: apt-get install failed' "$tmp/err"; then
	ok install-failure-fails
else
	nok install-failure-fails "stderr: $(cat "$tmp/err")"
fi
exit $failed
