#!/bin/sh
# certs.sh - make throw-away TLS material for the fake API server in DIR:
#   ca.crt/ca.key        the test CA
#   server.crt/.key      signed by it, for 127.0.0.1, ::1 and localhost (subjectAltName)
#   wrongname.crt/.key   signed by it, but only for "elsewhere.invalid" (name-check test)
#   other-ca.crt         a second, unrelated CA (wrong-CA test)
# Usage: certs.sh DIR      (EC P-256 keys: about 50 ms in all)
set -eu
dir=${1:?usage: certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
umask 077

ca() {  # $1 = stem, $2 = CN
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=$2" -keyout "$1.key" -out "$1.crt" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
		2>/dev/null
}

leaf() {  # $1 = stem, $2 = CN, $3 = subjectAltName
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" \
		-keyout "$1.key" -out "$1.csr" 2>/dev/null
	printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$3" >"$1.ext"
	openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
		-extfile "$1.ext" -out "$1.crt" 2>/dev/null
	rm -f "$1.csr" "$1.ext"
}

ca ca "tcpxo-test-ca"
ca other-ca "tcpxo-other-ca"
leaf server "localhost" "DNS:localhost,IP:127.0.0.1,IP:::1"
leaf wrongname "elsewhere.invalid" "DNS:elsewhere.invalid"
rm -f other-ca.key ca.srl
chmod 0644 ./*.crt
