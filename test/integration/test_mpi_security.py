"""mpi/pmix under attack: the step's directories, its server's clients,
and a stepd that dies (issue 32, items 1, 2 and 11).

* The PMIx server runs as root: its files live in <spool>/pmix.J.S,
  root's, where the job's user can plant no link (PMIx once made its
  store in the user's own directory, and emptied whatever directory a
  link planted there named). The user's <spool>/mpi.J.S holds only what
  the tasks write.
* Clients are authenticated by munge (PMIx's psec/munge: munged has the
  uid from the kernel), so another user cannot join a step as one of its
  ranks by claiming the owner's uid. PMIx can only reach munged on
  libmunge's default socket, so that test runs its cluster in a private
  mount namespace with a munged there.
* A connection to the server's port that sends nothing cannot hold the
  step's end.
* A killed stepd's directories are removed by the noded, through no link.
"""

import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from arbor_cluster import find_munged, proc_cmdlines
from conftest import skip_or_fail
from mpi_cases import all_checks_pass
from test_cancel import wait_for
from test_mpi import mpi_env, mpi_progs, pmix_run  # noqa: F401 (fixture)

MUNGE_DIR = "/run/munge"
MUNGE_SOCKET = MUNGE_DIR + "/munge.socket.2"
ATTACKER = "nobody"

# A PMIx client that asks to be rank PMIX_RANK of PMIX_NAMESPACE and, if
# the server takes it, aborts the step.
CLIENT_C = r"""
#include <pmix.h>
#include <stdio.h>
int main (void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init (&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf ("refused: %s\n", PMIx_Error_string (rc));
        return 3;
    }
    printf ("joined as %s:%u\n", me.nspace, me.rank);
    fflush (stdout);
    PMIx_Abort (7, "joined by another user", NULL, 0);
    return 0;
}
"""

# Claims the uid/gid in CLAIM_UID/CLAIM_GID (PMIx's psec/native sends
# what these return).
SHIM_C = r"""
#include <stdlib.h>
#include <sys/types.h>
static unsigned v (const char *k) { return (unsigned)atoi (getenv (k)); }
uid_t getuid (void) { return v ("CLAIM_UID"); }
uid_t geteuid (void) { return v ("CLAIM_UID"); }
gid_t getgid (void) { return v ("CLAIM_GID"); }
gid_t getegid (void) { return v ("CLAIM_GID"); }
"""


@pytest.fixture(scope="module")
def pmix_client():
    """(client, shim) compiled into a directory everybody can read."""
    pkgconf = shutil.which("pkg-config")
    if not pkgconf or subprocess.run([pkgconf, "--exists", "pmix"]).returncode:
        skip_or_fail("PMIx's pkg-config file is missing (libpmix-dev)")
    d = tempfile.mkdtemp(prefix="arbor-pmixsec-")
    os.chmod(d, 0o755)
    flags = subprocess.run([pkgconf, "--cflags", "--libs", "pmix"],
                           stdout=subprocess.PIPE, check=True
                           ).stdout.decode().split()
    for name, text in (("client.c", CLIENT_C), ("shim.c", SHIM_C)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    client, shim = os.path.join(d, "client"), os.path.join(d, "shim.so")
    subprocess.run(["cc", "-O1", "-o", client, os.path.join(d, "client.c")]
                   + flags, check=True)
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", shim,
                    os.path.join(d, "shim.c")], check=True)
    yield client, shim
    shutil.rmtree(d, ignore_errors=True)


def spool(c, node):
    return os.path.join(c.dir, "spool", node)


def step_dirs(c, node):
    return [e for e in os.listdir(spool(c, node))
            if e.startswith(("mpi.", "pmix."))]


def victim_dir(c):
    """A directory of root's with a file in it, that no step may touch."""
    v = os.path.join(c.dir, "victim")
    os.mkdir(v, 0o755)
    with open(os.path.join(v, "precious"), "w") as f:
        f.write("root's\n")
    return v


def stepd_pids(c):
    """pids of the cluster's step daemons (not the spawners)."""
    return [pid for pid, argv in proc_cmdlines().items()
            if os.path.basename(argv[0]) == "arbor-stepd" and c.conf in argv
            and "--spawner" not in argv]


# ---- item 1: the server's directory ------------------------------------

PLANT = r"""
set -u
echo "spool $(stat -c '%a %U' "$(dirname "$PMIX_SERVER_TMPDIR")")"
echo "server $(stat -c '%a %U' "$PMIX_SERVER_TMPDIR")"
echo "tasks $(stat -c '%a %U' \
    "${PMIX_SERVER_TMPDIR%/*}/mpi.$SLURM_JOB_ID.$SLURM_STEP_ID")"
find "$PMIX_SERVER_TMPDIR" -type d | while read -r d; do
    ln -s "$VICTIM" "$d/planted" 2>/dev/null && echo "planted in $d"
    ln -s "$VICTIM" "$d/pmix_dstor_ds21_$PPID" 2>/dev/null \
        && echo "planted in $d"
done
exit 0
"""


def test_pmix_server_files_are_out_of_the_users_reach(cluster, test_user):
    """Before: PMIX_SERVER_TMPDIR was the user's mpi.J.S (0700, theirs),
    and PMIx's store directory in it the user's too."""
    c = cluster(2)
    v = victim_dir(c)
    p = c.run(["arbor", "run", "--mpi=pmix", "-N", "2", "-n", "2", "sh", "-c",
               PLANT], env={"VICTIM": v})
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "planted" not in out, out
    lines = out.splitlines()
    assert lines.count("server 755 root") == 2, out
    assert lines.count("tasks 700 %s" % test_user.pw_name) == 2, out
    for line in lines:
        if line.startswith("spool "):
            mode = int(line.split()[1], 8)
            assert not mode & 0o022, "spool writable by others: " + line
    assert os.path.exists(os.path.join(v, "precious"))
    wait_for(lambda: not step_dirs(c, "node1") and not step_dirs(c, "node2"),
             10, "the step's directories to go")


def test_open_mpi_program_runs_with_the_sealed_directory(cluster, test_user,
                                                         mpi_progs):
    """Open MPI reads PMIx's shared-memory store from the root-owned
    directory, and puts its own session directory in the user's."""
    c = cluster(2)
    all_checks_pass(pmix_run(c), mpi_progs["check"], 2, 4)


def test_arbor_local_clients_authenticate_with_munge(cluster, test_user):
    """A root arbor local's private munged is on libmunge's default socket
    for the cluster's processes (its own mount namespace), so the PMIx
    server and its clients use psec munge there too, with no warning; the
    host's /run/munge is left as it was."""
    before = sorted(os.listdir("/run/munge")) \
        if os.path.isdir("/run/munge") else None
    c = cluster(2)
    p = c.run(["arbor", "run", "--mpi=pmix", "-N", "2", "-n", "2",
               "printenv", "PMIX_MCA_psec"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["munge", "munge"], (p.stdout, p.stderr)
    assert "not authenticated" not in c.all_logs()
    if before is not None:
        assert sorted(os.listdir("/run/munge")) == before


# ---- item 2: a bare connection at the step's end --------------------------

HOLD = r"""
if [ "$PMIX_RANK" = 0 ]; then
    env | grep '^PMIX_SERVER_URI' > "$SCRATCH/uri.$$.tmp"
    mv "$SCRATCH/uri.$$.tmp" "$SCRATCH/uri"
    while [ ! -e "$SCRATCH/held" ]; do sleep 0.1; done
fi
exit 0
"""


def server_port(text):
    m = re.search(r"tcp4?://([0-9.]+):(\d+)", text)
    assert m, "no tcp URI in %r" % text
    return m.group(1), int(m.group(2))


def test_bare_connection_does_not_hold_the_steps_end(cluster, test_user):
    """Before: PMIx reads a new connection's first bytes blocking, on its
    one thread; the stepd then waited for it forever at the step's end
    (the job stayed completing, the node drained after 85 s)."""
    c = cluster(1)
    env = {"SCRATCH": c.scratch}
    run = c.popen(["arbor", "run", "--mpi=pmix", "-n", "2", "sh", "-c", HOLD],
                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    uri = os.path.join(c.scratch, "uri")
    try:
        wait_for(lambda: os.path.exists(uri), 30, "the server's URI")
        with open(uri) as f:
            host, port = server_port(f.read())
        s = socket.create_connection((host, port), timeout=5)
        time.sleep(0.3)  # PMIx has accepted it
        open(os.path.join(c.scratch, "held"), "w").close()
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
        ended = time.monotonic()
        wait_for(lambda: not stepd_pids(c), 15,
                 "the stepd to end while a connection is held")
        took = time.monotonic() - ended
        assert took < 10, "the stepd took %.1f s to end" % took
        s.close()
    finally:
        if run.poll() is None:
            run.kill()
    p = c.run(["arbor", "run", "-n", "1", "true"], timeout=60)
    assert p.returncode == 0, p.stderr
    sinfo = os.path.join(os.path.dirname(c.arbor), "sinfo")
    p = c.run([sinfo, "-h", "-o", "%t"])
    assert p.returncode == 0 and "drain" not in p.stdout, p.stdout + p.stderr


# ---- item 11: a killed stepd's directories ---------------------------------

STAY = r"""
d="${PMIX_SERVER_TMPDIR%/*}/mpi.$SLURM_JOB_ID.$SLURM_STEP_ID"
ln -s "$VICTIM" "$d/link"
mkdir "$d/sub" && ln -s "$VICTIM" "$d/sub/link"
touch "$SCRATCH/ready"
exec sleep 300
"""


def test_killed_stepd_leaves_no_step_directory(cluster, test_user):
    """Before: mpi.J.S stayed in the spool for good."""
    c = cluster(1, KillWait=1)
    v = victim_dir(c)
    run = c.popen(["arbor", "run", "--mpi=pmix", "-n", "1", "sh", "-c", STAY],
                  env={"VICTIM": v, "SCRATCH": c.scratch})
    try:
        wait_for(lambda: os.path.exists(os.path.join(c.scratch, "ready")), 30,
                 "the task")
        assert any(e.startswith("mpi.") for e in step_dirs(c, "node1"))
        [stepd] = wait_for(lambda: stepd_pids(c), 10, "the stepd")
        os.kill(stepd, signal.SIGKILL)
        wait_for(lambda: not step_dirs(c, "node1"), 30,
                 "the dead stepd's directories to be removed")
    finally:
        run.kill()
        run.wait()
    assert os.listdir(v) == ["precious"]


# ---- item 2: another user claiming to be a rank ----------------------------

MS_REC, MS_PRIVATE, CLONE_NEWNS = 0x4000, 1 << 18, 0x00020000


@pytest.fixture
def default_munged(test_user):
    """A munged on libmunge's default socket, the only one PMIx's
    psec/munge can use, seen by this test's processes alone: this process
    moves to a mount namespace of its own (for the rest of the session;
    it sees the same mounts, but for a tmpfs on /run/munge while the test
    runs), so that no other cluster on the host picks this munged up."""
    munged = find_munged()
    if not munged:
        skip_or_fail("munged is not installed")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0 or libc.mount(
            b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        skip_or_fail("no mount namespace here: %s"
                     % os.strerror(ctypes.get_errno()))
    made = not os.path.isdir(MUNGE_DIR)
    os.makedirs(MUNGE_DIR, exist_ok=True)
    if libc.mount(b"tmpfs", MUNGE_DIR.encode(), b"tmpfs", 0,
                  b"mode=0755") != 0:
        skip_or_fail("mount tmpfs on %s: %s"
                     % (MUNGE_DIR, os.strerror(ctypes.get_errno())))
    d = tempfile.mkdtemp(prefix="arbor-munge-")
    key = os.path.join(d, "munge.key")
    with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as f:
        f.write(os.urandom(128))
    proc = subprocess.Popen(
        [munged, "-F", "--socket=" + MUNGE_SOCKET, "--key-file=" + key,
         "--log-file=" + os.path.join(d, "log"),
         "--pid-file=" + os.path.join(d, "pid"),
         "--seed-file=" + os.path.join(d, "seed")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: os.path.exists(MUNGE_SOCKET), 10,
                 "munged on " + MUNGE_SOCKET)
        yield MUNGE_SOCKET
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        libc.umount2(MUNGE_DIR.encode(), 2)  # MNT_DETACH
        if made:
            os.rmdir(MUNGE_DIR)
        shutil.rmtree(d, ignore_errors=True)


VICTIM = r"""
if [ "$PMIX_RANK" = 0 ]; then
    env | grep '^PMIX_' > "$SCRATCH/env.$$.tmp"
    mv "$SCRATCH/env.$$.tmp" "$SCRATCH/env"
fi
i=0
while [ ! -e "$SCRATCH/done" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
exit 0
"""


def attack(c, client, shim, victim, psec):
    """Run the client as another user with the victim's PMIx variables,
    claiming the victim's uid and gid, asking to be rank 1."""
    env = {}
    with open(os.path.join(c.scratch, "env")) as f:
        for line in f.read().splitlines():
            k, _, v = line.partition("=")
            env[k] = v
    env.update({"PMIX_RANK": "1", "LD_PRELOAD": shim,
                "CLAIM_UID": str(victim.pw_uid),
                "CLAIM_GID": str(victim.pw_gid)})
    if psec:
        env["PMIX_MCA_psec"] = psec
    return c.run([client], user=ATTACKER, env=env, timeout=60)


def test_other_user_cannot_join_a_step_as_a_rank(cluster, test_user,
                                                 default_munged, pmix_client,
                                                 mpi_progs):
    """Before: psec native over TCP believed the claimed uid; the second
    user was rank 1 and aborted the step."""
    client, shim = pmix_client
    c = cluster(2)
    # the step's own ranks do authenticate with munge
    all_checks_pass(pmix_run(c), mpi_progs["check"], 2, 4)
    run = c.popen(["arbor", "run", "--mpi=pmix", "-n", "2", "sh", "-c",
                   VICTIM], env={"SCRATCH": c.scratch},
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: os.path.exists(os.path.join(c.scratch, "env")), 30,
                 "the victim's PMIx variables")
        for psec in ("native", None):
            p = attack(c, client, shim, test_user, psec)
            assert p.returncode == 3 and "refused" in p.stdout, \
                "psec %s: %s %s" % (psec, p.stdout, p.stderr)
        open(os.path.join(c.scratch, "done"), "w").close()
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    assert b"Abort" not in err, err
    assert "psec native" not in c.logs("node1")
