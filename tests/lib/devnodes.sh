# devnodes.sh - sourced by tests: give a fixture tree what git cannot store.
#   devnodes_make ROOT   restore file modes from ROOT/modes.spec (anyone), then create the character
#                        devices listed in ROOT/devnodes.spec with mknod (root only). Returns 0 when
#                        done, 77 when not root (modes restored, devices not made: the caller skips),
#                        1 on a malformed spec or a failed command.
#   devnodes_clean ROOT  remove the device nodes devnodes_make created.
# Spec lines: "path major minor" / "path mode", paths relative to ROOT; '#' starts a comment.

devnodes_make() {
	_dn_root=$1
	if [ -f "$_dn_root/modes.spec" ]; then
		while read -r _dn_path _dn_mode; do
			case $_dn_path in ''|'#'*) continue ;; esac
			case $_dn_path in /*|*..*) echo "devnodes: bad path '$_dn_path'" >&2; return 1 ;; esac
			chmod "$_dn_mode" "$_dn_root/$_dn_path" || return 1
		done <"$_dn_root/modes.spec"
	fi
	[ -f "$_dn_root/devnodes.spec" ] || return 0
	[ "$(id -u)" = 0 ] || return 77
	while read -r _dn_path _dn_major _dn_minor; do
		case $_dn_path in ''|'#'*) continue ;; esac
		case $_dn_path in /*|*..*) echo "devnodes: bad path '$_dn_path'" >&2; return 1 ;; esac
		mkdir -p "$_dn_root/$(dirname "$_dn_path")" || return 1
		rm -f "$_dn_root/$_dn_path"
		mknod -m 0666 "$_dn_root/$_dn_path" c "$_dn_major" "$_dn_minor" || return 1
	done <"$_dn_root/devnodes.spec"
	return 0
}

devnodes_clean() {
	_dn_root=$1
	[ -f "$_dn_root/devnodes.spec" ] || return 0
	while read -r _dn_path _dn_major _dn_minor; do
		case $_dn_path in ''|'#'*|/*|*..*) continue ;; esac
		[ -c "$_dn_root/$_dn_path" ] && rm -f "$_dn_root/$_dn_path"
	done <"$_dn_root/devnodes.spec"
	return 0
}
