# scenario.sh - run the agent on a fixture scenario: tmpfs copy of the tree, device nodes, private netns.
# Source after tests/lib/netns.sh. Needs root (mknod, unshare); callers check netns_can_run first.

# scenario_prepare NAME -> prints the path of a private copy of fixtures/NAME with its device nodes.
scenario_prepare() {
	_src="$TOPDIR/fixtures/$1"
	_dst=$(mktemp -d "${SCENARIO_TMP:-/dev/shm}/tcpxo-$1.XXXXXX") || return 1
	# Copy without following links: the sysfs shape is symlinks. Device nodes are made here, as git can't store them.
	cp -a "$_src/." "$_dst/" || { rm -rf "$_dst"; return 1; }
	if [ -f "$_dst/devnodes.spec" ] && command -v devnodes_make >/dev/null 2>&1; then
		devnodes_make "$_dst" >/dev/null || { rm -rf "$_dst"; return 1; }
	fi
	echo "$_dst"
}

# scenario_run NAME ARGS... -> runs the agent --once on NAME's tree inside NAME's links; stdout/stderr/exit pass through.
scenario_run() {
	_name=$1; shift
	_root=$(scenario_prepare "$_name") || return 2
	netns_run "$TOPDIR/fixtures/$_name/links.spec" \
		"$TCPXO_AGENT" --once --no-publish --root "$_root" --node "fixture-$_name" "$@"
	_rc=$?
	rm -rf "$_root"
	return $_rc
}
