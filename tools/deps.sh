#!/bin/sh
# deps.sh — installs what Axon needs on a Debian machine, if it is missing.
# Needs: gcc, make (already there), flex, bison, Z3 and libtcc headers,
# and Debian's python3-numpy (the test oracle).  Run as root, or with sudo.
set -eu
missing=""
command -v flex >/dev/null 2>&1 || missing="$missing flex"
command -v bison >/dev/null 2>&1 || missing="$missing bison"
[ -f /usr/include/z3.h ] || missing="$missing libz3-dev"
[ -f /usr/include/libtcc.h ] || missing="$missing libtcc-dev"
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || missing="$missing python3-numpy"
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
if [ "$(id -u)" = 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "deps: not root and no sudo; install these Debian packages:$missing" >&2
	exit 1
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
