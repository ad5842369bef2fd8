"""Job mail: --mail-type/--mail-user of sbatch, srun and salloc, sent
through MailProg as Slurm does ("MailProg -s SUBJECT USER").

MailProg is a small script that appends its arguments (one per line,
then a blank line) and the event's SLURM_JOB_MAIL_TYPE to a file, so the
tests see exactly what a user's mail program would get. A MailProg that
is missing costs the job nothing: the error is in the controller's log.
"""

import os
import re

from test_batch import read, script, submitted_id
from test_cancel import wait_for, wait_state
from test_nodestate import control

MAILPROG = """#!/bin/sh
{ for a in "$@"; do echo "$a"; done; echo "type=$SLURM_JOB_MAIL_TYPE"; echo; } \
    >> %s/mails.txt
"""


def mail_cluster(cluster, tmp_path, **settings):
    """A cluster whose MailProg records into scratch/mails.txt (MailProg
    runs as the controller's user: root here)."""
    prog = str(tmp_path / "mail.sh")
    c = cluster(2, MailProg=prog, **settings)
    with open(prog, "w") as f:
        f.write(MAILPROG % c.scratch)
    os.chmod(prog, 0o755)
    return c


def mails(c):
    """Each mail as [ "-s", subject, user, "type=..." ]."""
    try:
        text = read(c, "mails.txt")
    except FileNotFoundError:
        return []
    return [m.split("\n") for m in text.strip("\n").split("\n\n") if m]


def wait_mails(c, n):
    return wait_for(lambda: len(mails(c)) >= n and mails(c), 30,
                    "%d mails (got %s)" % (n, mails(c)))


def test_batch_mail_begin_end_with_directive(cluster, test_user, tmp_path):
    c = mail_cluster(cluster, tmp_path)
    path = script(c, "job.sh", "#!/bin/sh\n#SBATCH --mail-type=BEGIN,END\n"
                  "#SBATCH -J mailjob\nsleep 1\n")
    p = c.run(["arbor", "batch", "-o", "/dev/null",
               "--mail-user=bob@example.com", path])
    assert p.returncode == 0, p.stderr
    jid = submitted_id(p)
    # scontrol show job: MailUser= MailType=, as Slurm prints them
    show = control(c, "show", "job", str(jid)).stdout
    assert "MailUser=bob@example.com MailType=BEGIN,END" in show, show
    wait_state(c, jid, "COMPLETED", 60)
    got = wait_mails(c, 2)
    assert got[0][0] == "-s" and got[0][2] == "bob@example.com", got
    assert re.fullmatch(r"Slurm Job_id=%d Name=mailjob Began, Queued time "
                        r"00:00:\d\d" % jid, got[0][1]), got
    assert got[0][3] == "type=Began", got
    assert re.fullmatch(r"Slurm Job_id=%d Name=mailjob Ended, Run time "
                        r"00:00:0\d, COMPLETED, ExitCode 0" % jid,
                        got[1][1]), got
    assert got[1][3] == "type=Ended", got
    assert len(mails(c)) == 2, mails(c)


def test_fail_mail_to_the_submitter_at_mail_domain(cluster, test_user, tmp_path):
    c = mail_cluster(cluster, tmp_path, MailDomain="example.org")
    p = c.run(["arbor", "batch", "-o", "/dev/null", "-J", "bad",
               "--mail-type=FAIL", "--wrap", "exit 3"])
    assert p.returncode == 0, p.stderr
    jid = submitted_id(p)
    wait_state(c, jid, "FAILED", 60)
    got = wait_mails(c, 1)
    assert got[0][2] == "arbortest@example.org", got
    assert re.fullmatch(r"Slurm Job_id=%d Name=bad Failed, Run time "
                        r"00:00:0\d, FAILED, ExitCode 3" % jid,
                        got[0][1]), got
    # an END-only job that completes: no FAIL mail; NONE: nothing
    p = c.run(["arbor", "batch", "-o", "/dev/null", "--mail-type=FAIL",
               "--wrap", "true"])
    wait_state(c, submitted_id(p), "COMPLETED", 60)
    p = c.run(["arbor", "batch", "-o", "/dev/null", "--mail-type=NONE",
               "--wrap", "exit 1"])
    wait_state(c, submitted_id(p), "FAILED", 60)
    assert len(mails(c)) == 1, mails(c)


def test_srun_and_salloc_take_the_options(cluster, test_user, tmp_path):
    c = mail_cluster(cluster, tmp_path)
    p = c.run(["arbor", "run", "-J", "step", "--mail-type=END",
               "--mail-user=carol", "true"])
    assert p.returncode == 0, p.stderr
    got = wait_mails(c, 1)
    assert got[0][2] == "carol", got
    assert re.match(r"Slurm Job_id=\d+ Name=step Ended, Run time "
                    r"00:00:0\d, COMPLETED, ExitCode 0$", got[0][1]), got
    p = c.run(["arbor", "alloc", "-J", "al", "--mail-type=BEGIN", "true"])
    assert p.returncode == 0, p.stderr
    got = wait_mails(c, 2)
    assert got[1][2] == "arbortest", got
    assert re.match(r"Slurm Job_id=\d+ Name=al Began, Queued time ",
                    got[1][1]), got


def test_unknown_type_is_refused(cluster, test_user, tmp_path):
    c = mail_cluster(cluster, tmp_path)
    p = c.run(["arbor", "batch", "--mail-type=BEGIN,ENDD", "--wrap", "true"])
    assert p.returncode != 0
    assert "invalid --mail-type 'ENDD'" in p.stderr, p.stderr
    assert "valid types: NONE, BEGIN, END" in p.stderr, p.stderr
    path = script(c, "bad.sh", "#!/bin/sh\n#SBATCH --mail-type=sometimes\n"
                  "true\n")
    p = c.run(["arbor", "batch", path])
    assert p.returncode != 0 and "'sometimes'" in p.stderr, p.stderr
    # what MailProg would take for an option
    p = c.run(["arbor", "batch", "--mail-type=END", "--mail-user=-oX",
               "--wrap", "true"])
    assert p.returncode != 0 and "may not start with '-'" in p.stderr, p


def test_missing_mailprog_never_loses_the_job(cluster, test_user):
    c = cluster(1, MailProg="/nonexistent/mail")
    p = c.run(["arbor", "batch", "-o", "/dev/null", "--mail-type=ALL",
               "--wrap", "true"])
    assert p.returncode == 0, p.stderr
    jid = submitted_id(p)
    wait_state(c, jid, "COMPLETED", 60)
    with open(os.path.join(c.dir, "log", "ctld.log")) as f:
        log = f.read()
    assert "MailProg /nonexistent/mail" in log, log[-2000:]


def test_mail_settings_survive_a_restart(cluster, test_user, tmp_path):
    c = mail_cluster(cluster, tmp_path)
    p = c.run(["arbor", "batch", "-o", "/dev/null", "--hold",
               "--mail-type=END,TIME_LIMIT_50", "--mail-user=dan",
               "--wrap", "true"])
    jid = submitted_id(p)
    c.restart("ctld")
    show = control(c, "show", "job", str(jid)).stdout
    assert "MailUser=dan MailType=END,TIME_LIMIT_50" in show, show
    assert c.run(["arbor", "release", str(jid)]).returncode == 0
    wait_state(c, jid, "COMPLETED", 60)
    got = wait_mails(c, 1)
    assert got[0][2] == "dan" and " Ended, " in got[0][1], got
