# netns.sh - POSIX sh functions that build a fixture's links (links.spec) inside a private network namespace.
#
# Source it, then:
#   netns_can_run               0 when root and `unshare -n` with veth work, else prints why and returns 1
#   netns_run SPEC CMD [ARG...] run CMD in a fresh `unshare -n` namespace after netns_apply SPEC;
#                               returns CMD's status (or 3 when the spec could not be applied). The
#                               namespace and the "pod" namespace vanish when it returns.
#   netns_apply SPEC            create SPEC's links in the current namespace, which must be a private
#                               one that NETNS_PRIVATE names (NETNS_PRIVATE=$(readlink /proc/self/ns/net)
#                               after your own `unshare -n`; netns_run sets it). Sets NETNS_POD_PID
#                               when a link is in-pod: call netns_cleanup (netns_run does) to end it.
#
# Spec lines: name mac mtu ipv4/prefix state [default]; "#" comments and blank lines ignored;
# mac, mtu, ipv4 may be "-"; state is up, down, lowerdown, in-pod or absent. Each link is a veth
# whose peer is pN (N = the digits the name ends in, or a counter when there are none or they clash).
# CMD sees NETNS_POD_PID (exported) while an in-pod namespace exists. Loopback (lo) stays down as
# a fresh namespace has it, unless NETNS_LOOPBACK=up (for tests that serve on 127.0.0.1 inside).
#
# NETNS_LIB: path of this file, for the child shell of netns_run
# (default: $TOPDIR/tests/lib/netns.sh).

NETNS_LIB=${NETNS_LIB:-${TOPDIR:-.}/tests/lib/netns.sh}
NETNS_POD_PID=

netns_can_run() {
	if [ "$(id -u)" != 0 ]; then
		echo "not root"
		return 1
	fi
	for _nc_cmd in ip unshare; do
		if ! command -v "$_nc_cmd" >/dev/null 2>&1; then
			echo "$_nc_cmd not installed"
			return 1
		fi
	done
	if ! unshare -n true 2>/dev/null; then
		echo "unshare -n does not work here"
		return 1
	fi
	if ! unshare -n ip link add nc0 type veth peer name nc1 2>/dev/null; then
		echo "cannot create veth links in a new namespace"
		return 1
	fi
	return 0
}

# _netns_err LINE MESSAGE
_netns_err() {
	echo "netns_apply: $_na_spec:$1: $2" >&2
}

# _netns_peer NAME: the peer name for NAME, recorded in _na_peers.
_netns_peer() {
	_np_digits=${1##*[!0-9]}
	_np_peer=
	[ -n "$_np_digits" ] && _np_peer=p$_np_digits
	case " $_na_peers $_na_names " in
	*" $_np_peer "*) _np_peer= ;;
	esac
	while [ -z "$_np_peer" ]; do
		_na_counter=$((_na_counter + 1))
		_np_peer=pc$_na_counter
		case " $_na_peers $_na_names " in
		*" $_np_peer "*) _np_peer= ;;
		esac
	done
	_na_peers="$_na_peers $_np_peer"
}

# Read the oper state of every link of this namespace into _na_states, one "name STATE" a line.
_netns_states() {
	_na_states=$(ip -br link show | awk '{ n = $1; sub(/@.*/, "", n); print n, $2 }')
}

netns_apply() {
	_na_spec=$1
	if [ -z "$_na_spec" ] || [ ! -r "$_na_spec" ]; then
		echo "netns_apply: cannot read spec '$_na_spec'" >&2
		return 1
	fi
	# Never build fixtures in the host's namespace: they would break the machine's networking.
	# PID 1's namespace is not always readable (containers), so the caller must vouch for this
	# one: netns_run does, by setting NETNS_PRIVATE to the namespace it made.
	_na_self=$(readlink /proc/self/ns/net)
	if [ -z "$_na_self" ] || [ "${NETNS_PRIVATE:-}" != "$_na_self" ] ||
	   [ "$_na_self" = "$(readlink /proc/1/ns/net 2>/dev/null)" ]; then
		echo "netns_apply: refusing: not in a private network namespace that NETNS_PRIVATE names (use netns_run)" >&2
		return 1
	fi
	# A fresh namespace has no default route; a host always has one.
	if [ -n "$(ip -4 route show default 2>&1)$(ip -6 route show default 2>&1)" ]; then
		echo "netns_apply: refusing: this namespace already has a default route (not a fresh one)" >&2
		return 1
	fi

	_na_tmp=$(mktemp -d "${TMPDIR:-/tmp}/netns.XXXXXX") || return 1
	_na_add="$_na_tmp/add" _na_up="$_na_tmp/up" _na_route="$_na_tmp/route" _na_move="$_na_tmp/move"
	_na_want="$_na_tmp/want"
	: >"$_na_add"; : >"$_na_up"; : >"$_na_route"; : >"$_na_move"; : >"$_na_want"
	_na_peers= _na_names= _na_seen= _na_counter=0 _na_line=0 _na_bad=0

	# Names first, so a counter peer never takes a link's name.
	while read -r _n _rest; do
		case $_n in ''|'#'*) continue ;; esac
		_na_names="$_na_names $_n"
	done <"$_na_spec"

	while read -r _n _mac _mtu _ip _state _def _extra; do
		_na_line=$((_na_line + 1))
		case $_n in ''|'#'*) continue ;; esac
		if [ -z "$_state" ] || [ -n "$_extra" ]; then
			_netns_err "$_na_line" "want: name mac mtu ipv4/prefix state [default]"; _na_bad=1; continue
		fi
		case $_n in
		*[!A-Za-z0-9_.-]*|-*)
			_netns_err "$_na_line" "bad link name '$_n'"; _na_bad=1; continue ;;
		esac
		if [ ${#_n} -gt 15 ]; then
			_netns_err "$_na_line" "link name '$_n' longer than 15 characters"; _na_bad=1; continue
		fi
		case " $_na_seen " in
		*" $_n "*) _netns_err "$_na_line" "link '$_n' listed twice"; _na_bad=1; continue ;;
		esac
		_na_seen="$_na_seen $_n"
		case $_mac in
		-|[0-9a-fA-F][0-9a-fA-F]:[0-9a-fA-F][0-9a-fA-F]:[0-9a-fA-F][0-9a-fA-F]:[0-9a-fA-F][0-9a-fA-F]:[0-9a-fA-F][0-9a-fA-F]:[0-9a-fA-F][0-9a-fA-F]) ;;
		*) _netns_err "$_na_line" "bad mac '$_mac'"; _na_bad=1; continue ;;
		esac
		case $_mtu in
		-) ;;
		''|*[!0-9]*) _netns_err "$_na_line" "bad mtu '$_mtu'"; _na_bad=1; continue ;;
		esac
		case $_ip in
		-) ;;
		*[!0-9./]*|*/*/*|*/|/*) _netns_err "$_na_line" "bad ipv4/prefix '$_ip'"; _na_bad=1; continue ;;
		*/*) ;;
		*) _netns_err "$_na_line" "ipv4 '$_ip' needs a /prefix"; _na_bad=1; continue ;;
		esac
		case $_def in
		''|default) ;;
		*) _netns_err "$_na_line" "sixth field must be 'default', not '$_def'"; _na_bad=1; continue ;;
		esac
		case $_state in
		up|lowerdown) ;;
		down|in-pod|absent)
			if [ -n "$_def" ]; then
				_netns_err "$_na_line" "a default route needs state up or lowerdown, not $_state"
				_na_bad=1; continue
			fi ;;
		*) _netns_err "$_na_line" "bad state '$_state' (up, down, lowerdown, in-pod, absent)"
			_na_bad=1; continue ;;
		esac
		[ "$_state" = absent ] && continue

		_netns_peer "$_n"
		_p=$_np_peer
		{
			echo "link add $_n type veth peer name $_p"
			[ "$_mac" = - ] || echo "link set $_n address $_mac"
			[ "$_mtu" = - ] || echo "link set $_n mtu $_mtu"
			[ "$_mtu" = - ] || echo "link set $_p mtu $_mtu"
			[ "$_ip" = - ] || [ "$_state" = in-pod ] || echo "address add $_ip dev $_n"
		} >>"$_na_add"
		case $_state in
		up)
			printf 'link set %s up\nlink set %s up\n' "$_p" "$_n" >>"$_na_up"
			echo "$_n UP" >>"$_na_want" ;;
		down)
			printf 'link set %s up\n' "$_p" >>"$_na_up"
			echo "$_n DOWN" >>"$_na_want" ;;
		lowerdown)
			printf 'link set %s up\n' "$_n" >>"$_na_up"
			echo "$_n LOWERLAYERDOWN" >>"$_na_want" ;;
		in-pod)
			printf 'link set %s up\n' "$_p" >>"$_na_up"
			echo "$_n" >>"$_na_move" ;;
		esac
		[ -n "$_def" ] && echo "route add default dev $_n" >>"$_na_route"
	done <"$_na_spec"
	if [ "$_na_bad" != 0 ]; then
		rm -rf "$_na_tmp"
		return 1
	fi

	if [ -s "$_na_move" ]; then
		_netns_pod_start || { rm -rf "$_na_tmp"; return 1; }
		while read -r _n; do
			echo "link set $_n netns $NETNS_POD_PID"
		done <"$_na_move" >>"$_na_route"
	fi

	# A test whose server (the fake API) listens on 127.0.0.1 in here asks for loopback up.
	[ "${NETNS_LOOPBACK:-}" = up ] && echo "link set lo up" >>"$_na_up"
	cat "$_na_add" "$_na_up" "$_na_route" >"$_na_tmp/batch"
	if ! ip -batch "$_na_tmp/batch" >"$_na_tmp/out" 2>&1; then
		echo "netns_apply: $_na_spec: ip -batch failed:" >&2
		sed 's/^/    /' "$_na_tmp/out" >&2
		rm -rf "$_na_tmp"
		netns_cleanup
		return 1
	fi

	# Oper state follows "link set up" a few ms later (linkwatch): poll 5 ms steps, up to 2 s.
	_na_i=0
	while [ -s "$_na_want" ]; do
		_netns_states
		_na_left=$(printf '%s\n' "$_na_states" | awk 'NR == FNR { have[$1] = $2; next }
			have[$1] != $2 { print $1, $2, (($1 in have) ? have[$1] : "absent") }' - "$_na_want")
		[ -z "$_na_left" ] && break
		_na_i=$((_na_i + 1))
		if [ "$_na_i" -gt 400 ]; then
			printf '%s\n' "$_na_left" | while read -r _n _w _h; do
				echo "netns_apply: $_na_spec: $_n oper state $_h, want $_w after 2 s" >&2
			done
			rm -rf "$_na_tmp"
			netns_cleanup
			return 1
		fi
		sleep 0.005
	done
	rm -rf "$_na_tmp"
	return 0
}

# Start the "pod" namespace: a sleeping process in a namespace of its own; wait until it is there.
_netns_pod_start() {
	_ps_self=$(readlink /proc/self/ns/net)
	unshare -n sleep 3600 </dev/null >/dev/null 2>&1 &
	NETNS_POD_PID=$!
	export NETNS_POD_PID
	_ps_i=0
	while [ "$(readlink "/proc/$NETNS_POD_PID/ns/net" 2>/dev/null)" = "$_ps_self" ]; do
		_ps_i=$((_ps_i + 1))
		if [ "$_ps_i" -gt 400 ] || ! kill -0 "$NETNS_POD_PID" 2>/dev/null; then
			echo "netns_apply: the pod namespace did not start" >&2
			netns_cleanup
			return 1
		fi
		sleep 0.005
	done
	if ! kill -0 "$NETNS_POD_PID" 2>/dev/null; then
		echo "netns_apply: the pod namespace did not start" >&2
		NETNS_POD_PID=
		return 1
	fi
}

# End the pod namespace, if any.
netns_cleanup() {
	if [ -n "$NETNS_POD_PID" ]; then
		kill "$NETNS_POD_PID" 2>/dev/null
		wait "$NETNS_POD_PID" 2>/dev/null
		NETNS_POD_PID=
	fi
	return 0
}

netns_run() {
	if [ $# -lt 2 ]; then
		echo "netns_run: usage: netns_run SPEC CMD [ARG...]" >&2
		return 2
	fi
	unshare -n sh -c '
		. "$0" || exit 3
		NETNS_PRIVATE=$(readlink /proc/self/ns/net)
		export NETNS_PRIVATE
		trap netns_cleanup EXIT
		trap "exit 130" INT TERM
		netns_apply "$1" || exit 3
		shift
		"$@"
	' "$NETNS_LIB" "$@"
}
