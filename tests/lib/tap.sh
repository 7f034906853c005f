# tap.sh - the one dialect of the integration scripts (sourced): each case prints one line, which
# tests/run.sh counts; the script ends with `exit $failed`.
#   ok NAME                  the case passed
#   nok NAME WHY             it failed (sets failed=1)
#   skip NAME WHY            it cannot run here, and why
#   wait_for CMD SECONDS     eval CMD (a string) every 50 ms until it succeeds (return 0) or SECONDS
#                            (may be fractional) have passed (return 1): wait for a condition, never a fixed sleep
#   need_promtool SCRIPT CASE...  return 0 with promtool on PATH or in $TOPDIR/.tools/bin (added to PATH);
#                            else fail SCRIPT/promtool under REQUIRE_PROMTOOL=1 (CI), or skip SCRIPT/CASE
#                            for each CASE, and return 1
# Every script makes its own temporary directory, namespaces and port-0 servers: tests/run.sh runs
# them in parallel and relies on it.
failed=0
ok() { echo "ok $1"; }
nok() { echo "not ok $1: $2"; failed=1; }
skip() { echo "skip $1: $2"; }
tap_ms() { echo $(($(date +%s%N) / 1000000)); }
wait_for() {
	_wf_end=$(($(tap_ms) + $(awk -v s="$2" 'BEGIN { printf "%d", s * 1000 }')))
	while ! eval "$1" >/dev/null 2>&1; do
		[ "$(tap_ms)" -ge "$_wf_end" ] && return 1
		sleep 0.05
	done
	return 0
}
need_promtool() {
	PATH=$PATH:$TOPDIR/.tools/bin
	command -v promtool >/dev/null 2>&1 && return 0
	_np_script=$1
	shift
	if [ "${REQUIRE_PROMTOOL:-0}" = 1 ]; then
		nok "$_np_script/promtool" "REQUIRE_PROMTOOL=1 (CI) and no promtool on PATH or in .tools/bin (scripts/deps.sh test)"
		return 1
	fi
	for _np_case in "$@"; do
		skip "$_np_script/$_np_case" "promtool is not installed (sh scripts/deps.sh test; Debian: prometheus)"
	done
	return 1
}
