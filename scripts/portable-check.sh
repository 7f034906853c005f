#!/bin/sh
# portable-check.sh - the workstation program's sources include only C11 and POSIX.1-2008 headers.
#
# Usage: portable-check.sh FILE.c...   (run from the top folder; paths relative to it)
#
# kubectl-fabric must build on any POSIX workstation (a Mac, most operators' laptop), so its sources may
# reach no Linux-only header: neither <linux/...> nor <asm/...>, nor glibc's own (<sys/inotify.h>,
# <sys/epoll.h>, <getopt.h>, ...), nor a library but cJSON and libyaml. Every #include of each FILE is
# followed through the project's own headers ("..."), and each system header (<...>) it reaches must be
# in the lists below: C11's (ISO/IEC 9899:2011, 7.1.2), POSIX.1-2008's (XBD chapter 13, "Headers"), and
# the two portable libraries. An include under #if counts too: no configuration may reach one.
# The compiler does the other half: the Makefile builds these files with -std=c11
# -D_POSIX_C_SOURCE=200809L and no _GNU_SOURCE, so glibc declares none of its extensions, and
# -Werror=implicit-function-declaration makes a Linux-only call (pipe2, memrchr, ...) an error.
# POSIX sh and awk only: building kubectl-fabric needs no Python.
# Prints one line per violation, "FILE:LINE: what", and exits 1 if there is any.
set -u

c11="assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h math.h setjmp.h
signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h stdlib.h stdnoreturn.h string.h
tgmath.h threads.h time.h uchar.h wchar.h wctype.h"
posix="aio.h arpa/inet.h cpio.h dirent.h dlfcn.h fcntl.h fmtmsg.h fnmatch.h ftw.h glob.h grp.h iconv.h
langinfo.h libgen.h monetary.h mqueue.h ndbm.h net/if.h netdb.h netinet/in.h netinet/tcp.h nl_types.h poll.h
pthread.h pwd.h regex.h sched.h search.h semaphore.h spawn.h strings.h stropts.h sys/ipc.h sys/mman.h
sys/msg.h sys/resource.h sys/select.h sys/sem.h sys/shm.h sys/socket.h sys/stat.h sys/statvfs.h sys/time.h
sys/times.h sys/types.h sys/uio.h sys/un.h sys/utsname.h sys/wait.h syslog.h tar.h termios.h trace.h
ulimit.h unistd.h utime.h utmpx.h wordexp.h"
libs="cjson/cJSON.h yaml.h"     # what kubectl-fabric links: portable C, packaged everywhere
allowed=" $(echo $c11 $posix $libs) "

[ $# -gt 0 ] || { echo "usage: portable-check.sh FILE.c..." >&2; exit 2; }
todo=$*
seen=" "
bad=0
while [ -n "$todo" ]; do
	set -- $todo
	f=$1
	shift
	todo=$*
	case $seen in *" $f "*) continue ;; esac
	seen="$seen$f "
	if [ ! -f "$f" ]; then
		echo "$f: does not exist"
		bad=$((bad + 1))
		continue
	fi
	# "LINE < name" or "LINE \" name" for each include line
	for inc in $(awk '/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
			s = $0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", s)
			q = substr(s, 1, 1); s = substr(s, 2); sub(/[>"].*/, "", s)
			print NR ":" (q == "<" ? "sys" : "own") ":" s }' "$f"); do
		line=${inc%%:*}
		rest=${inc#*:}
		kind=${rest%%:*}
		name=${rest#*:}
		if [ "$kind" = own ]; then
			todo="$todo $name"
			continue
		fi
		case $allowed in *" $name "*) continue ;; esac
		case $name in
		linux/*|asm/*|asm-generic/*) what="Linux's" ;;
		*) what="neither C11's nor POSIX.1-2008's" ;;
		esac
		echo "$f:$line: <$name> is $what: kubectl-fabric is portable C and may not reach it"
		bad=$((bad + 1))
	done
done
n=$(echo $seen | wc -w)
if [ $bad -gt 0 ]; then
	echo "portable-check: $bad problem(s) ($n files)"
	exit 1
fi
echo "portable-check: ok ($n files reach only C11 and POSIX.1-2008 headers, cJSON and libyaml)"
