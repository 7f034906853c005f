#!/bin/sh
# test_fabric_portable.sh - kubectl-fabric is portable C and links none of the node's libraries: the header check
# passes on its sources and fails (in make too) on a planted Linux-only or glibc-only header; the portable flags make a
# Linux-only call an error; its objects call none; its binary needs only libc, cJSON and libyaml.
# Env: TOPDIR, BUILD.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
FABRIC=$TOPDIR/$BUILD/kubectl-fabric
OBJ=$TOPDIR/$BUILD/obj-portable
CHECK=$TOPDIR/scripts/portable-check.sh
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-portable.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0

if [ ! -x "$FABRIC" ] || [ ! -d "$OBJ" ]; then
	nok built "$FABRIC or $OBJ is not built (make $BUILD/kubectl-fabric)"
	exit 1
fi
# The sources kubectl-fabric is built from: one object each in its own folder.
srcs=$(cd "$OBJ" && find . -name '*.o' | sed 's|^\./||; s|\.o$|.c|' | sort)
n=$(echo "$srcs" | wc -l)
[ "$n" -ge 50 ] && echo "$srcs" | grep -qx fabric/main.c && echo "$srcs" | grep -qx agent/cmd_status.c &&
	ok "sources ($n)" || nok sources "only $n objects under $OBJ"

# ---- the header check: the real sources pass; a planted header fails, named with file and line ----
if out=$(cd "$TOPDIR" && sh "$CHECK" $srcs 2>&1); then ok headers-pass; else nok headers-pass "$(echo "$out" | tail -3)"; fi

fresh() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	(cd "$TOPDIR" && tar cf - Makefile agent fabric probes report scripts/portable-check.sh scripts/deps.sh) |
		(cd "$tmp/t" && tar xf -)
}
plant() {  # plant FILE LINE-TEXT: a new first line
	sed -i "1i $2" "$tmp/t/$1"
}
expect() {  # expect NAME PATTERN: the check fails on the copy, printing PATTERN
	if out=$(cd "$tmp/t" && sh "$CHECK" $srcs 2>&1); then
		nok "$1" "passed a planted header"
	elif echo "$out" | grep -q -- "$2"; then
		ok "$1"
	else
		nok "$1" "expected /$2/, got: $(echo "$out" | head -3)"
	fi
}

fresh
plant report/checks/profile.h '#include <linux/types.h>'
expect linux-header-in-a-header 'report/checks/profile.h:1: <linux/types.h> is Linux.s: kubectl-fabric is portable C'

fresh
plant fabric/kubectl.c '#include <sys/inotify.h>'
expect glibc-header 'fabric/kubectl.c:1: <sys/inotify.h> is neither C11.s nor POSIX.1-2008.s'

fresh
plant agent/cli.c '#include <getopt.h>'
expect getopt-long 'agent/cli.c:1: <getopt.h> is neither'

fresh
plant probes/model/json.c '#include <curl/curl.h>'
expect library 'probes/model/json.c:1: <curl/curl.h> is neither'

fresh
sed -i 's|^#include <stdio.h>|#if 0\n#include <asm/types.h>\n#endif\n#include <stdio.h>|' "$tmp/t/fabric/main.c"
expect under-if-0 'fabric/main.c:3: <asm/types.h> is Linux.s'

# make runs the check before it links: a planted header stops the build.
fresh
plant fabric/main.c '#include <sys/epoll.h>'
if (cd "$tmp/t" && make -s BUILD="$tmp/b" "$tmp/b/obj-portable/portable-check.ok") >"$tmp/make.out" 2>&1; then
	nok make-stops "make passed with <sys/epoll.h> in fabric/main.c"
elif grep -q 'fabric/main.c:1: <sys/epoll.h>' "$tmp/make.out"; then
	ok make-stops
else
	nok make-stops "$(head -3 "$tmp/make.out")"
fi

# ---- the compiler's half: with the portable flags a Linux-only call is an error, not a warning ----
cat >"$tmp/linux_only.c" <<'EOF'
#include <string.h>
#include <unistd.h>
int probe(int *fds, const char *s);
int probe(int *fds, const char *s)
{
	return pipe2(fds, 0) + (memrchr(s, '/', 4) != 0);
}
EOF
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -Werror=implicit-function-declaration"
if cc $flags -c "$tmp/linux_only.c" -o "$tmp/linux_only.o" 2>"$tmp/cc.err"; then
	nok linux-call-refused "pipe2() and memrchr() compiled with $flags"
elif grep -q "pipe2" "$tmp/cc.err" && grep -q "memrchr" "$tmp/cc.err"; then
	ok linux-call-refused
else
	nok linux-call-refused "$(head -3 "$tmp/cc.err")"
fi
if cc -std=gnu11 -D_GNU_SOURCE -c "$tmp/linux_only.c" -o "$tmp/linux_only.o" 2>/dev/null; then
	ok linux-call-gnu-compiles         # the flags refuse it, not the file
else
	nok linux-call-gnu-compiles "the probe does not compile even with _GNU_SOURCE"
fi
grep -q -- "-std=c11 -D_POSIX_C_SOURCE=200809L -Werror=implicit-function-declaration" "$TOPDIR/Makefile" &&
	ok makefile-flags || nok makefile-flags "the Makefile's PORTABLE_CFLAGS changed"

# A prototype written by hand would pass the compiler: the objects' calls are read too.
linux_only="pipe2 accept4 memrchr strchrnul asprintf vasprintf qsort_r getdents64 syscall openat2 inotify_init1
inotify_add_watch epoll_create1 epoll_wait signalfd timerfd_create eventfd prctl unshare setns sendfile splice
getrandom explicit_bzero reallocarray dlopen dlsym getopt_long program_invocation_short_name __errno_location_linux"
undef=$(nm -u $(find "$OBJ" -name '*.o') 2>/dev/null | awk '{print $NF}' | sort -u)
bad=""
for f in $linux_only; do
	echo "$undef" | grep -qx "$f" && bad="$bad $f"
done
[ -z "$bad" ] && ok objects-call-no-linux-only || nok objects-call-no-linux-only "called:$bad"

# ---- what it links: libc, cJSON and libyaml; none of libnl, libpci, libudev, libcurl, libmicrohttpd ----
if command -v objdump >/dev/null 2>&1; then
	needed=$(objdump -p "$FABRIC" | awk '$1 == "NEEDED" {print $2}' | sort | tr '\n' ' ')
	# (a SAN=1 build links the sanitizers' runtimes too)
	extra=$(echo "$needed" | tr ' ' '\n' | grep -v -e '^$' -e '^libc\.so' -e '^libcjson\.so' -e '^libyaml-0\.so' -e '^libm\.so' \
		-e '^libasan\.so' -e '^libubsan\.so')
	[ -z "$extra" ] && ok "needed ($needed)" || nok needed "links more than libc, cJSON, libyaml: $extra"
else
	skip needed "no objdump"
fi
if command -v ldd >/dev/null 2>&1; then
	if ldd "$FABRIC" | grep -Eq 'libnl|libpci|libudev|libcurl|libmicrohttpd|libgnutls|libssl'; then
		nok ldd "$(ldd "$FABRIC" | tr '\n' ' ')"
	else
		ok ldd
	fi
else
	skip ldd "no ldd"
fi
exit $failed
