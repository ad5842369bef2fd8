#!/bin/bash
# setup.sh - install what Arbor needs, build it, and optionally run the demo.
#
#   scripts/setup.sh [--demo] [--build-dir DIR] [--sanitize]
#
# Idempotent. As root it installs the missing Debian packages (only when
# one is missing; no prompt, no stdin) and creates the unprivileged test
# users "arbortest" and "arbortest2". It then configures and builds into build/ (or DIR).
# --demo starts an 8-node emulated cluster and runs 16 labelled tasks on it,
# as arbortest when run as root.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD="$ROOT/build"
DEMO=0
CMAKE_ARGS=()

while [ $# -gt 0 ]; do
    case "$1" in
    --demo) DEMO=1 ;;
    --build-dir) BUILD=$(realpath -m "$2"); shift ;;
    --sanitize) CMAKE_ARGS+=(-DARBOR_SANITIZE=ON) ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

PACKAGES=(build-essential cmake pkg-config libev-dev libmsgpack-dev munge
          libmunge-dev libsodium-dev libcgroup-dev libbpf-dev cgroup-tools libpmix-dev
          libsqlite3-dev libjansson-dev libconfig-dev sqlite3 libcmocka-dev libpam0g-dev openmpi-bin libopenmpi-dev
          mpich libmpich-dev libevent-dev libhwloc-dev
          python3 python3-pytest python3-jsonschema procps iproute2 clang-format
          pamtester openssh-server openssh-client debhelper lintian)
TEST_USER=arbortest
TEST_USER2=arbortest2

say() { echo "setup.sh: $*" >&2; }

install_packages() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        say "missing packages: ${missing[*]} (run as root to install them)"
        exit 1
    fi
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q </dev/null
    # The PAM tests start their own sshd on a loopback port: installing
    # openssh-server must not start or enable one on this machine.
    local new_sshd=0 policy=0
    if [[ " ${missing[*]} " == *" openssh-server "* ]]; then
        new_sshd=1
        if [ ! -e /usr/sbin/policy-rc.d ]; then
            printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
            chmod 755 /usr/sbin/policy-rc.d
            policy=1
        fi
    fi
    apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
    [ "$policy" -eq 1 ] && rm -f /usr/sbin/policy-rc.d
    if [ "$new_sshd" -eq 1 ] && command -v systemctl >/dev/null; then
        systemctl disable --quiet ssh.service ssh.socket 2>/dev/null || true
    fi
    return 0
}

create_test_user() {
    [ "$(id -u)" -eq 0 ] || return 0
    # the second one is another account's member (test_policy.py)
    for u in "$TEST_USER" "$TEST_USER2"; do
        if ! id -u "$u" >/dev/null 2>&1; then
            say "creating user $u"
            useradd --create-home --shell /bin/bash "$u"
        fi
    done
}

build() {
    # Configure only when needed, so a rebuild keeps its cache.
    if [ ! -f "$BUILD/CMakeCache.txt" ] || [ ${#CMAKE_ARGS[@]} -gt 0 ]; then
        cmake -S "$ROOT" -B "$BUILD" ${CMAKE_ARGS[@]+"${CMAKE_ARGS[@]}"}
    fi
    cmake --build "$BUILD" -j"$(nproc 2>/dev/null || echo 2)"
}

# The demo runs as the test user, who must reach the binaries: make the
# tree and the build directory readable (and its parents traversable).
open_build_dir() {
    [ "$(id -u)" -eq 0 ] || return 0
    chmod -R a+rX "$BUILD"
    local d="$BUILD"
    while [ "$d" != "/" ]; do
        d=$(dirname "$d")
        if [ -n "$(find "$d" -maxdepth 0 ! -perm -o+x)" ]; then
            say "making $d traversable (o+x) so that $TEST_USER reaches $BUILD"
            chmod o+x "$d"
        fi
    done
}

demo() {
    local cmd=("$BUILD/bin/arbor" local -N 8 --
               "$BUILD/bin/arbor" run -N 8 -n 16 -l printenv SLURM_PROCID)
    say "demo: ${cmd[*]}"
    # The tasks' working directory must be reachable by the test user.
    cd /tmp
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u "$TEST_USER" -- "${cmd[@]}"
    else
        "${cmd[@]}"
    fi
}

install_packages
create_test_user
build
open_build_dir
[ "$DEMO" -eq 1 ] && demo
exit 0
