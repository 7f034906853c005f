#!/bin/sh
# test_manifests.sh - manifests/daemonset against the agent's contracts, and the admission policy's decisions.
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
	echo "skip manifests: python3-yaml is not installed (scripts/deps.sh test)"
	exit 0
fi
exec /usr/bin/python3 "$TOPDIR/tests/lib/check_manifests.py" "$TOPDIR" "${TCPXO_AGENT:-}"
