#!/bin/bash
# test_packages.sh - Arbor's Debian packages, end to end, as an
# administrator meets them.
#
#   test/packaging/test_packages.sh [SOURCE_DIR]
#
# Copies the source tree (without .git and build directories) to a
# temporary directory, builds the packages there with dpkg-buildpackage
# (packaging/debian), runs lintian (errors fail), installs them with apt
# (arbor-client first beside Debian's slurm-client, which
# arbor-slurm-compat, holding the Slurm names, then replaces), checks
# that no daemon started without /etc/arbor/arbor.conf and that the
# installed systemd units pass systemd-analyze verify, writes a two-node
# arbor.conf (node1 and node2 on 127.0.1.1 and 127.0.1.2, one private
# munged), starts arbor-ctld and two arbor-noded with the ExecStart lines
# (and User=) of the installed units, runs two-node jobs as the
# unprivileged user arbortest with /usr/bin/srun, stops the daemons,
# purges the packages and checks that nothing is left running and their
# files are gone. Last, the client and node packages extracted with
# dpkg -x and moved run a job from there (arbor local), finding their
# plugins with no PluginDir=.
#
# Needs root, dpkg-buildpackage with debhelper, lintian, apt-get, munged
# and the user arbortest (scripts/setup.sh provides them all). It exits 77
# (skipped) when it cannot run here: not root, a tool missing, or Arbor
# already installed or configured on this machine (an arbor-* package or
# /etc/arbor/arbor.conf, which it would replace and purge). Under CI=true
# it fails instead of skipping. Whatever happens, the trap stops what it
# started, purges what it installed and removes what it wrote (the build
# directory too, unless ARBOR_PKGTEST_KEEP is set).
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
PKGS=(arbor-client arbor-ctld arbor-noded libpam-arbor arbor-doc
      arbor-slurm-compat)
# The Slurm names arbor-slurm-compat must hold (ARBOR_SLURM_NAMES in the
# top-level CMakeLists.txt: NAME:SUBCOMMAND).
SLURM_NAMES=$(sed -n '/^set(ARBOR_SLURM_NAMES/,/)/p' "$ROOT/CMakeLists.txt" |
    grep -o '[a-z]*:[a-z]*' | cut -d: -f1 | tr '\n' ' ')
TEST_USER=arbortest
CONF=/etc/arbor/arbor.conf

WORK=""
INSTALLED=0
SLURM_ADDED="" # the packages installing slurm-client brought in
SLURM_KEPT=0   # slurm-client was installed before us
WROTE_CONF=0
MADE_USER=0
MUNGED_PID=""
CGROUP_ROOT=""
declare -a DAEMON_PIDS=()

say() { echo "test_packages: $*" >&2; }

skip() {
    if [ "${CI:-}" = "true" ]; then
        say "FAIL (cannot run, and CI=true forbids skipping): $*"
        exit 1
    fi
    say "SKIP: $*"
    exit 77
}

fail() {
    say "FAIL: $*"
    exit 1
}

# ---- can it run here? ------------------------------------------------------

[ "$(id -u)" -eq 0 ] || skip "needs root (installs and purges packages)"
for tool in dpkg-buildpackage dh lintian apt-get dpkg-query munged setpriv \
            runuser; do
    command -v "$tool" >/dev/null || skip "$tool not found (scripts/setup.sh)"
done
id -u "$TEST_USER" >/dev/null 2>&1 ||
    skip "no user $TEST_USER (scripts/setup.sh creates it)"
for p in "${PKGS[@]}"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -qv "not-installed"; then
        skip "$p is already installed here; not replacing it"
    fi
done
[ -e "$CONF" ] && skip "$CONF exists: Arbor is configured here; not touching it"
pgrep -f "^/usr/sbin/arbor-(ctld|noded|stepd)( |$)" >/dev/null &&
    skip "an installed Arbor daemon is running here"

# ---- cleanup, whatever happens -------------------------------------------

# Processes of the installed daemons (their command line names the
# installed programs and our configuration).
arbor_pids() {
    pgrep -f "^(/bin/sh -c exec )?/usr/sbin/arbor-(ctld|noded|stepd) .*$CONF" ||
        true
}

cleanup() {
    local rc=$? pids
    set +e
    for pid in "${DAEMON_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    sleep 0.5
    pids=$(arbor_pids)
    # shellcheck disable=SC2086 # one pid a word
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    [ -n "$MUNGED_PID" ] && kill -TERM "$MUNGED_PID" 2>/dev/null
    if [ "$INSTALLED" -eq 1 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${PKGS[@]}" \
            </dev/null >/dev/null 2>&1 ||
            dpkg --purge "${PKGS[@]}" >/dev/null 2>&1
    fi
    # shellcheck disable=SC2086 # one package a word
    if [ -n "$SLURM_ADDED" ]; then
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $SLURM_ADDED \
            </dev/null >/dev/null 2>&1 || dpkg --purge $SLURM_ADDED >/dev/null 2>&1
    elif [ "$SLURM_KEPT" -eq 1 ]; then # it was here: put it back
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-client \
            </dev/null >/dev/null 2>&1
    fi
    if [ "$WROTE_CONF" -eq 1 ]; then
        rm -f "$CONF"
        rmdir /etc/arbor 2>/dev/null
    fi
    if [ -n "$CGROUP_ROOT" ]; then
        find /sys/fs/cgroup -depth -type d -path "*/$CGROUP_ROOT*" \
            -exec rmdir {} + 2>/dev/null
    fi
    if [ "$MADE_USER" -eq 1 ] && id -u arbor >/dev/null 2>&1; then
        userdel arbor 2>/dev/null
        getent group arbor >/dev/null && groupdel arbor 2>/dev/null
    fi
    if [ -n "$WORK" ] && [ -n "${ARBOR_PKGTEST_KEEP:-}" ]; then
        say "kept $WORK (ARBOR_PKGTEST_KEEP)"
    elif [ -n "$WORK" ]; then
        rm -rf "$WORK"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

id -u arbor >/dev/null 2>&1 || MADE_USER=1
WORK=$(mktemp -d /tmp/arbor-pkgtest.XXXXXX)
chmod 755 "$WORK" # munged's socket must be reachable by arbor, arbortest

# ---- build and check the packages -----------------------------------------

# dpkg-buildpackage wants debian/ at the top and writes ../*.deb: build a
# copy, so the source tree and its parent stay as they are.
SRC="$WORK/src/arbor"
mkdir -p "$SRC"
for e in "$ROOT"/* "$ROOT"/.clang-format; do
    [ -e "$e" ] || continue
    [ -f "$e/CMakeCache.txt" ] && continue # a build directory
    cp -a "$e" "$SRC/"
done
find "$SRC" -name __pycache__ -prune -exec rm -rf {} +
cp -a "$ROOT/packaging/debian" "$SRC/debian"

say "building the packages (dpkg-buildpackage -b)"
if ! (cd "$SRC" &&
    DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
        dpkg-buildpackage -us -uc -b) >"$WORK/build.log" 2>&1; then
    tail -40 "$WORK/build.log" >&2
    fail "dpkg-buildpackage failed"
fi
DEBS=()
for p in "${PKGS[@]}"; do
    f=("$WORK/src/${p}"_*.deb)
    [ -e "${f[0]}" ] || fail "no ${p}_*.deb was built"
    DEBS+=("${f[0]}")
done

say "lintian"
lintian --fail-on error "$WORK"/src/arbor_*.changes >"$WORK/lintian.log" 2>&1 ||
    { cat "$WORK/lintian.log" >&2; fail "lintian reports errors"; }
sed 's/^/  /' "$WORK/lintian.log" >&2

# ---- install, as an administrator would -------------------------------------

apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends "$@" </dev/null >>"$WORK/install.log" 2>&1 ||
        { tail -30 "$WORK/install.log" >&2; fail "apt-get install $* failed"; }
}
installed_pkgs() {
    dpkg-query -W -f='${Package} ${Status}\n' | awk '/ installed$/ {print $1}'
}

# A site moving from Slurm keeps slurm-client while it tries Arbor: every
# package but arbor-slurm-compat installs beside it, leaving Slurm's srun
# alone. Debian's slurm-client is installed for that (and purged at the
# end, with what it brought) unless it is there already.
if dpkg-query -W -f='${Status}' slurm-client 2>/dev/null |
    grep -q " installed$"; then
    SLURM_KEPT=1
else
    policy=$(apt-cache policy slurm-client 2>/dev/null)
    [[ "$policy" == *"Candidate: "[0-9]* ]] ||
        skip "apt has no slurm-client (apt-get update?)"
    say "installing Debian's slurm-client"
    installed_pkgs | sort >"$WORK/before.list"
    apt_install slurm-client
    SLURM_ADDED=$(installed_pkgs | sort | comm -13 "$WORK/before.list" - |
        tr '\n' ' ')
fi
SLURM_SRUN=$(readlink -f /usr/bin/srun)
[ "$SLURM_SRUN" != /usr/bin/arbor ] || fail "no Slurm srun to keep"

say "installing ${PKGS[*]::5} beside slurm-client"
INSTALLED=1
apt_install "${DEBS[@]::5}"
dpkg-query -W -f='${Status}' slurm-client | grep -q " installed$" ||
    fail "installing arbor-client removed slurm-client"
[ "$(readlink -f /usr/bin/srun)" = "$SLURM_SRUN" ] ||
    fail "arbor-client replaced Slurm's srun"
[ -x /usr/bin/arbor ] || fail "/usr/bin/arbor is not installed"
if dpkg-query -L arbor-client | grep -E '/(bin|man1)/s[a-z]*(\.1\.gz)?$'; then
    fail "arbor-client holds Slurm names (above)"
fi

say "installing arbor-slurm-compat in slurm-client's place"
apt_install "${DEBS[5]}"
if dpkg-query -W -f='${Status}' slurm-client 2>/dev/null |
    grep -q " installed$"; then
    fail "arbor-slurm-compat is installed beside slurm-client"
fi
for name in $SLURM_NAMES; do
    [ "$(readlink "/usr/bin/$name")" = arbor ] ||
        fail "/usr/bin/$name is not -> arbor"
    [ -e "/usr/share/man/man1/$name.1.gz" ] ||
        fail "no manual page $name.1.gz"
    dpkg-query -S "/usr/bin/$name" | grep -q '^arbor-slurm-compat:' ||
        fail "/usr/bin/$name is not arbor-slurm-compat's"
done

if pgrep -f "^/usr/sbin/arbor-(ctld|noded|stepd)( |$)" >/dev/null; then
    fail "a daemon started at installation, with no $CONF"
fi

UNITDIR=$(dirname "$(dpkg-query -L arbor-ctld | grep '/arbor-ctld\.service$')")
PAMMOD=$(dpkg-query -L libpam-arbor | grep '/pam_arbor_adopt\.so$')
PLUGDIR=$(dirname "$(dpkg-query -L arbor-noded | grep '/mpi_pmi2\.so$')")
for f in /usr/bin/arbor /usr/bin/srun /usr/bin/sbatch /usr/bin/squeue \
         /usr/sbin/arbor-ctld /usr/sbin/arbor-noded /usr/sbin/arbor-stepd \
         "$UNITDIR/arbor-ctld.service" "$UNITDIR/arbor-noded.service" \
         "$PAMMOD" "$PLUGDIR/proctrack_cgroup.so" \
         /etc/arbor/arbor.conf.example /usr/share/man/man1/srun.1.gz \
         /usr/share/doc/arbor-doc/README.md.gz; do
    [ -e "$f" ] || fail "$f is not installed"
done
[ "$(readlink /usr/bin/srun)" = arbor ] || fail "/usr/bin/srun is not -> arbor"
getent passwd arbor >/dev/null || fail "no system user arbor"
for d in /var/lib/arbor /var/log/arbor; do
    [ "$(stat -c %U "$d")" = arbor ] || fail "$d is not owned by arbor"
done
[ "$(stat -c %a /var/lib/arbor)" = 700 ] || fail "/var/lib/arbor is not private"
[ -d /var/spool/arbor ] || fail "no /var/spool/arbor"

if command -v systemd-analyze >/dev/null; then
    say "systemd-analyze verify"
    # Warnings about other units (munge's, the host's) are not ours: only
    # lines naming arbor fail the test.
    systemd-analyze verify "$UNITDIR/arbor-ctld.service" \
        "$UNITDIR/arbor-noded.service" >"$WORK/verify.log" 2>&1 || true
    if grep -i "arbor" "$WORK/verify.log" >&2; then
        fail "systemd-analyze verify complains about the units"
    fi
fi

# ---- a two-node cluster from the installed files -----------------------------

# munged: a private one, with a throw-away key (what arbor local does), so
# that a host's own munge.service is neither needed nor touched.
mkdir -m 0755 "$WORK/munge"
head -c 128 /dev/urandom >"$WORK/munge/munge.key"
chmod 0600 "$WORK/munge/munge.key"
munged -f --socket="$WORK/munge/munge.sock" \
    --key-file="$WORK/munge/munge.key" --log-file="$WORK/munge/munged.log" \
    --pid-file="$WORK/munge/munged.pid" --seed-file="$WORK/munge/munged.seed" ||
    fail "munged did not start"
MUNGED_PID=$(cat "$WORK/munge/munged.pid")

# Free ports: the controller's on 127.0.0.1, the nodes' on both addresses.
read -r CTLD_PORT NODED_PORT < <(python3 - <<'EOF'
import socket
def free(addr, port=0):
    s = socket.socket()
    try:
        s.bind((addr, port))
        return s.getsockname()[1]
    except OSError:
        return None
    finally:
        s.close()
ctld = free("127.0.0.1")
while True:
    p = free("127.0.1.1")
    if p != ctld and free("127.0.1.2", p):
        break
print(ctld, p)
EOF
)

# Containment as on a real node (proctrack/cgroup, loaded from the
# installed plugin directory) where this host has cgroups, in a subtree of
# our own; process groups elsewhere.
if grep -qE '^cgroup2? ' /proc/self/mounts; then
    CGROUP_ROOT="arbor-pkgtest-$$"
    PROCTRACK="ProctrackType=proctrack/cgroup
CgroupRoot=$CGROUP_ROOT"
else
    PROCTRACK="ProctrackType=proctrack/pgid"
fi

WROTE_CONF=1
cat >"$CONF" <<EOF
# Written by test/packaging/test_packages.sh: two nodes on this host.
ClusterName=pkgtest
ControlAddr=127.0.0.1
CtldPort=$CTLD_PORT
NodedPort=$NODED_PORT
ArborUser=arbor
MungeSocket=$WORK/munge/munge.sock
CtldLogFile=/var/log/arbor/ctld.log
NodedLogFile=/var/log/arbor/noded-%n.log
KillWait=5
$PROCTRACK
NodeName=node1 NodeAddr=127.0.1.1 CPUs=2 RealMemory=1000
NodeName=node2 NodeAddr=127.0.1.2 CPUs=2 RealMemory=1000
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE
EOF
chmod 0644 "$CONF"

# KEY= of a unit file; ExecStart with systemd's "$$" turned into "$".
unit_get() {
    sed -n "s/^$2=//p" "$1" | tail -1
}
CTLD_EXEC=$(unit_get "$UNITDIR/arbor-ctld.service" ExecStart | sed 's/\$\$/$/g')
CTLD_USER=$(unit_get "$UNITDIR/arbor-ctld.service" User)
CTLD_GROUP=$(unit_get "$UNITDIR/arbor-ctld.service" Group)
NODED_EXEC=$(unit_get "$UNITDIR/arbor-noded.service" ExecStart | sed 's/\$\$/$/g')
if [ -z "$CTLD_EXEC" ] || [ -z "$NODED_EXEC" ]; then
    fail "no ExecStart in the units"
fi

say "starting arbor-ctld as ${CTLD_USER:-root}: $CTLD_EXEC"
cd /
if [ -n "$CTLD_USER" ]; then
    ARBOR_CTLD_OPTIONS="" setpriv --reuid="$CTLD_USER" \
        --regid="${CTLD_GROUP:-$CTLD_USER}" --init-groups -- \
        /bin/sh -c "exec $CTLD_EXEC" </dev/null >"$WORK/ctld.out" 2>&1 &
else
    ARBOR_CTLD_OPTIONS="" /bin/sh -c "exec $CTLD_EXEC" </dev/null \
        >"$WORK/ctld.out" 2>&1 &
fi
DAEMON_PIDS+=($!)
for i in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$CTLD_PORT") 2>/dev/null && break
    kill -0 "${DAEMON_PIDS[0]}" 2>/dev/null ||
        { cat "$WORK/ctld.out" /var/log/arbor/ctld.log >&2 2>/dev/null;
          fail "arbor-ctld exited"; }
    [ "$i" -eq 100 ] && fail "arbor-ctld does not listen on $CTLD_PORT"
    sleep 0.1
done

if [ -n "$CTLD_USER" ]; then
    [ "$(ps -o user= -p "${DAEMON_PIDS[0]}")" = "$CTLD_USER" ] ||
        fail "arbor-ctld does not run as $CTLD_USER"
fi

for node in node1 node2; do
    say "starting arbor-noded $node: $NODED_EXEC"
    ARBOR_NODENAME=$node ARBOR_NODED_OPTIONS=--emulate \
        /bin/sh -c "exec $NODED_EXEC" </dev/null >"$WORK/noded-$node.out" 2>&1 &
    DAEMON_PIDS+=($!)
done
for i in $(seq 100); do
    [ "$(/usr/bin/sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle')" -eq 2 ] && break
    [ "$i" -eq 100 ] && {
        /usr/bin/sinfo -N >&2; tail -5 /var/log/arbor/*.log >&2
        fail "the two nodes are not idle"; }
    sleep 0.2
done

# ---- jobs, as an unprivileged user -------------------------------------------

as_user() {
    (cd /tmp && runuser -u "$TEST_USER" -- "$@")
}

say "/usr/bin/srun -N 2 hostname (as $TEST_USER)"
out=$(as_user timeout 60 /usr/bin/srun -N 2 hostname) || fail "srun -N 2 hostname failed"
echo "${out//$'\n'/ }" >&2
[ "$(echo "$out" | grep -cx "$(hostname)")" -eq 2 ] ||
    fail "expected the host name twice, got: $out"

out=$(as_user timeout 60 /usr/bin/srun -N 2 -n 4 -l printenv SLURMD_NODENAME | sort) ||
    fail "srun -N 2 -n 4 failed"
[ "$(echo "$out" | awk '{print $2}' | sort -u | tr '\n' ' ')" = "node1 node2 " ] ||
    fail "tasks did not run on node1 and node2: $out"

# An MPI plugin, loaded by each node's stepd from the installed directory.
out=$(as_user timeout 60 /usr/bin/srun -N 2 -n 2 --mpi=pmi2 printenv PMI_RANK | sort) ||
    fail "srun --mpi=pmi2 failed"
[ "$(echo "$out" | tr '\n' ' ')" = "0 1 " ] || fail "PMI ranks: $out"

# A batch job: its script runs on node1 and launches a step with the
# installed srun.
install -d -o "$TEST_USER" -m 0755 "$WORK/out"
as_user timeout 60 /usr/bin/sbatch -N 2 -W -o "$WORK/out/batch.out" \
    --wrap 'srun -l printenv SLURMD_NODENAME' >/dev/null ||
    fail "sbatch -W failed: $(cat "$WORK/out/batch.out" 2>/dev/null)"
out=$(sort "$WORK/out/batch.out")
[ "$(echo "$out" | awk '{print $2}' | tr '\n' ' ')" = "node1 node2 " ] ||
    fail "the batch job's step did not run on node1 and node2: $out"

as_user /usr/bin/squeue >/dev/null || fail "squeue failed"

# ---- stop, purge, check ------------------------------------------------------

say "stopping the daemons"
for pid in "${DAEMON_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
done
for i in $(seq 100); do
    [ -z "$(arbor_pids)" ] && break
    [ "$i" -eq 100 ] && { ps -fp "$(arbor_pids | tr '\n' ',')" >&2;
        fail "daemons still running 10 s after SIGTERM"; }
    sleep 0.1
done
DAEMON_PIDS=()

say "purging the packages"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${PKGS[@]}" </dev/null \
    >"$WORK/purge.log" 2>&1 ||
    { tail -30 "$WORK/purge.log" >&2; fail "apt-get purge failed"; }
INSTALLED=0
for p in "${PKGS[@]}"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv "not-installed"; then
        fail "$p is still known to dpkg after purge"
    fi
done
for f in /usr/bin/arbor /usr/bin/srun /usr/sbin/arbor-ctld \
         /usr/sbin/arbor-noded /usr/sbin/arbor-stepd "$PLUGDIR" "$PAMMOD" \
         "$UNITDIR/arbor-ctld.service" "$UNITDIR/arbor-noded.service" \
         /etc/arbor/arbor.conf.example /var/lib/arbor /var/spool/arbor \
         /var/log/arbor /usr/share/doc/arbor-doc \
         /etc/systemd/system/multi-user.target.wants/arbor-ctld.service \
         /etc/systemd/system/multi-user.target.wants/arbor-noded.service; do
    if [ -e "$f" ]; then
        fail "$f is left after purge"
    fi
done
[ -e "$CONF" ] || fail "purge removed the administrator's $CONF"
if pgrep -f "^/usr/sbin/arbor-(ctld|noded|stepd)( |$)" >/dev/null; then
    fail "Arbor processes left running"
fi
if pgrep -u arbor >/dev/null; then
    fail "processes of user arbor left running"
fi
# The tasks: nothing left in the steps' cgroups.
if [ -n "$CGROUP_ROOT" ]; then
    left=$(find /sys/fs/cgroup -path "*/$CGROUP_ROOT/*" -name cgroup.procs \
        -exec cat {} + 2>/dev/null)
    [ -z "$left" ] || fail "processes left in the steps' cgroups: $left"
fi

# ---- an extracted, moved installation ----------------------------------------

# The client, controller and node packages unpacked with dpkg -x, then
# moved: with no PluginDir= and nothing left in /usr/lib, each node's
# stepd must load mpi/pmi2 from the tree it belongs to
# (PREFIX/sbin/../LIBDIR/arbor).
say "an extracted, moved installation (dpkg -x) runs an MPI step"
for deb in "${DEBS[@]::3}"; do
    dpkg -x "$deb" "$WORK/x" || fail "dpkg -x $deb failed"
done
mv "$WORK/x" "$WORK/moved"
[ ! -e "$PLUGDIR" ] || fail "$PLUGDIR is still there"
out=$(cd /tmp && runuser -u "$TEST_USER" -- env \
    ARBOR_MUNGE_SOCKET="$WORK/munge/munge.sock" timeout 120 \
    "$WORK/moved/usr/bin/arbor" local -N 2 -- "$WORK/moved/usr/bin/arbor" \
    run -N 2 -n 2 --mpi=pmi2 printenv PMI_RANK 2>&1 | sort) ||
    fail "the moved tree's arbor local failed: $out"
[ "$(echo "$out" | tr '\n' ' ')" = "0 1 " ] ||
    fail "the moved tree's PMI ranks: $out"
say "PASS"
