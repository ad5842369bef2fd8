"""squeue's formats and filters (issue 14 part 1), as a script would use
them: -h -o %i, -o with widths, -O field names, --sort, -p/-n/-w,
$SQUEUE_FORMAT and $SQUEUE_SORT, -i repeating, and the errors of an
unknown field or job.
"""

import subprocess
import time

from test_batch import batch
from test_cancel import wait_state


def queue(c, *args, env=None):
    p = c.run(["arbor", "queue"] + list(args), env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_formats_sort_and_filters(cluster, test_user):
    c = cluster(2, cpus=2)
    run = batch(c, "-J", "runner", "-w", "node2", "-n", "2", "-t", "30",
                "--wrap", "sleep 300")
    wait_state(c, run, "RUNNING", 30)
    pend = batch(c, "-J", "waiter", "-N", "2", "--wrap", "true")
    wait_state(c, pend, "PENDING", 30)
    # the default: pending before running (squeue's P,t,-p)
    lines = queue(c).splitlines()
    assert lines[0].split() == ["JOBID", "PARTITION", "NAME", "USER", "ST",
                                "TIME", "NODES", "NODELIST(REASON)"], lines
    assert len(lines[0]) == len(
        "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
        "NODELIST(REASON)"), lines[0]
    assert [l.split()[0] for l in lines[1:]] == [str(pend), str(run)]
    assert lines[1].split()[-1] == "(Resources)", lines
    assert lines[2].split()[-1] == "node2", lines
    # scripts: one field, no header
    assert queue(c, "-h", "-o", "%i", "--sort", "i").split() == [
        str(run), str(pend)]
    assert queue(c, "-h", "-j", str(run), "-o", "%T").strip() == "RUNNING"
    out = queue(c, "-h", "-j", str(run), "-o", "%.6i|%8j|%D|%C|%l|%u|%P")
    assert out == "%6s|runner  |1|2|30:00|%s|debug\n" % (
        run, test_user.pw_name), out
    out = queue(c, "-h", "-j", str(run), "-O", "JobID:8,Name:.8,State")
    assert out == "%-8s  runnerRUNNING             \n" % run, out
    # filters
    assert queue(c, "-h", "-o", "%i", "-n", "waiter").split() == [str(pend)]
    assert queue(c, "-h", "-o", "%i", "-w", "node2").split() == [str(run)]
    assert queue(c, "-h", "-o", "%i", "-p", "nosuch").split() == []
    # the environment
    env = dict(SQUEUE_FORMAT="%j", SQUEUE_SORT="-j")
    assert queue(c, "-h", env=env).split() == ["waiter", "runner"]
    c.run(["arbor", "cancel", str(run), str(pend)])


def test_bad_input(cluster, test_user):
    c = cluster(1)
    p = c.run(["arbor", "queue", "-o", "%i %z"])
    assert p.returncode == 1 and "'%z'" in p.stderr and p.stdout == "", p
    p = c.run(["arbor", "queue", "-O", "JobID,NoSuchField"])
    assert p.returncode == 1 and "NoSuchField" in p.stderr, p.stderr
    p = c.run(["arbor", "queue", "--sort", "P,-z"])
    assert p.returncode == 1 and "'z'" in p.stderr, p.stderr
    p = c.run(["arbor", "queue", "-j", "999999"])
    assert p.returncode == 1, p
    assert "Invalid job id specified" in p.stderr, p.stderr
    p = c.run(["arbor", "queue", "-i", "0"])
    assert p.returncode == 1 and "--iterate" in p.stderr, p.stderr


def test_iterate(cluster, test_user):
    c = cluster(1)
    jid = batch(c, "-J", "iter", "--hold", "--wrap", "true")
    proc = c.popen(["arbor", "queue", "-i", "1", "-o", "%i %j"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    proc.terminate()
    out, _ = proc.communicate(timeout=10)
    listings = [b for b in out.split("\n\n") if b.strip()]
    assert len(listings) >= 2, out
    for b in listings:  # a time stamp, the header, the job
        rows = b.strip().splitlines()
        assert rows[1:] == ["JOBID NAME", "%d iter" % jid], b
    c.run(["arbor", "cancel", str(jid)])
