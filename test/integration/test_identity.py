"""Who the tasks are, and what environment they get.

Tasks run with the job user's uid, gid and supplementary groups (never
root's), and see the launcher's environment only as --export allows
(Slurm's ALL | NONE | VAR[,VAR=value] semantics). The groups and the home
directory come from the step credential (the controller's view of the
user), as Slurm's do.
"""

import grp
import os
import subprocess

import pytest

from arbor_cluster import TEST_USER, is_root

EXTRA_GROUP = "arbortestgrp"


def ensure_supplementary_group(user):
    """Put 'user' in EXTRA_GROUP (idempotent) so initgroups() is visible."""
    if not is_root():
        pytest.skip("needs root to add a group")
    try:
        g = grp.getgrnam(EXTRA_GROUP)
    except KeyError:
        subprocess.run(["groupadd", EXTRA_GROUP], check=True)
        g = grp.getgrnam(EXTRA_GROUP)
    if user not in g.gr_mem:
        subprocess.run(["usermod", "-a", "-G", EXTRA_GROUP, user], check=True)
        g = grp.getgrnam(EXTRA_GROUP)
    return g


def test_uid_gid_and_groups_are_the_users(cluster, test_user):
    g = ensure_supplementary_group(TEST_USER)
    c = cluster(2)
    p = c.run(["arbor", "run", "-N", "2", "-n", "4", "-l", "sh", "-c",
               'echo "$(id -u) $(id -g) $(id -G)"'])
    assert p.returncode == 0, p.stderr
    want_groups = sorted(os.getgrouplist(TEST_USER, test_user.pw_gid))
    assert g.gr_gid in want_groups
    lines = p.stdout.splitlines()
    assert len(lines) == 4, p.stdout
    for line in lines:
        rank, rest = line.split(":", 1)
        f = rest.split()
        assert int(f[0]) == test_user.pw_uid
        assert int(f[1]) == test_user.pw_gid
        assert sorted(int(x) for x in f[2:]) == want_groups, line
        assert 0 not in [int(x) for x in f[2:]] or 0 in want_groups


def test_home_is_the_users(cluster, test_user):
    """HOME is the user's home directory, whatever the launcher's is."""
    c = cluster(1)
    p = c.run(["arbor", "run", "--export=NONE", "sh", "-c",
               'echo "home=[$HOME] user=[$USER]"'], env={"HOME": "/nowhere"})
    assert p.returncode == 0, p.stderr
    assert "home=[%s] user=[%s]" % (test_user.pw_dir, TEST_USER) in p.stdout, \
        p.stdout


def test_export_none_keeps_user_variables_out(cluster):
    c = cluster(1)
    show = 'echo "marker=[$XTEST_MARKER] job=[$SLURM_JOB_ID]"'
    env = {"XTEST_MARKER": "leaked", "OTHER_MARKER": "x"}
    p = c.run(["arbor", "run", "--export=NONE", "sh", "-c", show], env=env)
    assert p.returncode == 0, p.stderr
    assert "marker=[]" in p.stdout, p.stdout
    assert "job=[" in p.stdout and "job=[]" not in p.stdout, p.stdout
    # Default (ALL) passes it.
    p = c.run(["arbor", "run", "sh", "-c", show], env=env)
    assert "marker=[leaked]" in p.stdout, p.stdout
    # A list passes only what it names; VAR=value sets.
    show2 = 'echo "[$XTEST_MARKER] [$OTHER_MARKER] [$NEWVAR]"'
    p = c.run(["arbor", "run", "--export=XTEST_MARKER,NEWVAR=set",
               "sh", "-c", show2], env=env)
    assert p.returncode == 0, p.stderr
    assert "[leaked] [] [set]" in p.stdout, p.stdout
    p = c.run(["arbor", "run", "--export=ALL,NEWVAR=set", "sh", "-c", show2],
              env=env)
    assert "[leaked] [x] [set]" in p.stdout, p.stdout
    # SLURM_EXPORT_ENV is the default, as in srun.
    env2 = dict(env, SLURM_EXPORT_ENV="NONE")
    p = c.run(["arbor", "run", "sh", "-c", show], env=env2)
    assert "marker=[]" in p.stdout, p.stdout
    p = c.run(["arbor", "run", "--export=A,,B", "true"])
    assert p.returncode == 1 and "invalid --export" in p.stderr, p.stderr


def test_export_none_environment_is_small(cluster):
    """With NONE, every variable a task sees is one Arbor/Slurm sets, or a
    basic login variable the stepd provides (HOME, USER, PATH...)."""
    c = cluster(1)
    p = c.run(["arbor", "run", "--export=NONE", "env"],
              env={"ZZ_LAUNCHER_ONLY": "1"})
    assert p.returncode == 0, p.stderr
    names = [l.split("=", 1)[0] for l in p.stdout.splitlines() if "=" in l]
    assert "ZZ_LAUNCHER_ONLY" not in names
    assert "ARBOR_CONF" in names or "SLURM_JOB_ID" in names
    assert "SLURM_PROCID" in names
