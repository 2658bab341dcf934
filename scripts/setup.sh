#!/bin/sh
# Installs what building and testing IVC needs on a fresh Debian/Ubuntu machine: a C
# compiler, CMake, Ninja, and the tools the tests use (iproute2, util-linux). With
# --bench it adds Debian's MPICH and matplotlib for the benchmark harness.
set -eu
pkgs="gcc libc6-dev cmake ninja-build iproute2 util-linux procps"
case "${1:-}" in
--bench) pkgs="$pkgs mpich libmpich-dev python3 python3-matplotlib" ;;
esac
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages:$missing; run as root (or: sudo apt-get install$missing)" >&2
    exit 1
fi
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $missing >/dev/null
