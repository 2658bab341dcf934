# Shared by the tests that build software written elsewhere against IVC.
fail() { echo "FAIL: $*"; exit 1; }
ext_skip() {
    if [ "${IVCTEST_REQUIRE_EXTERNAL:-0}" = 1 ]; then
        fail "$* (IVCTEST_REQUIRE_EXTERNAL=1: must not skip)"
    fi
    echo "SKIP: $*"
    exit 77
}
# ext_need_pkgs PKG...: installs missing Debian packages when root; 1 if one is missing.
ext_need_pkgs() {
    missing=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    [ "$(id -u)" -eq 0 ] || return 1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1
}
# ext_debian_source PKG: downloads PKG's source package into the current directory. As
# root, adds deb-src entries for Debian's archive when the system has none.
ext_debian_source() {
    if ! ls "$1"_*.orig.tar.* >/dev/null 2>&1; then
        if ! apt-get source --download-only "$1" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] &&
            [ -f /etc/apt/sources.list.d/debian.sources ] &&
            ! grep -q "deb-src" /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null; then
            sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
                >/etc/apt/sources.list.d/ivc-deb-src.sources
            apt-get update -qq >/dev/null 2>&1
        fi
        # The packaging tarball may be missing from the mirror while the upstream one
        # is there: keep what came.
        apt-get source --download-only "$1" >/dev/null 2>&1
    fi
    ls "$1"_*.orig.tar.* >/dev/null 2>&1
}
