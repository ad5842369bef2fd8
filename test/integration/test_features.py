"""Node features and -C/--constraint (issue 35), as a user and an
administrator meet them: Features= on the nodes (arbor local --features),
scontrol update NodeName= AvailableFeatures= (kept across a controller
restart), what sinfo, scontrol show node, squeue and scontrol show job
print, and jobs placed by their constraints: AND, OR, a matching OR
([a|b]: all nodes alike), counts (a*2), from the command line, #SBATCH
lines and SBATCH_CONSTRAINT; requests naming a feature no node has, or
malformed ones, are refused with Slurm's words.
"""

import re

from test_batch import batch, script
from test_cancel import wait_state


def control(c, *args, user=None):
    return c.run(["arbor", "control"] + list(args), user=user)


def set_features(c, nodes, feats):
    p = control(c, "update", "NodeName=" + nodes, "AvailableFeatures=" + feats,
                user="root")
    assert p.returncode == 0, p.stderr


def run_nodes(c, *args):
    """The sorted SLURMD_NODENAMEs of 'arbor run ARGS printenv ...'."""
    p = c.run(["arbor", "run"] + list(args) + ["printenv", "SLURMD_NODENAME"])
    assert p.returncode == 0, p.stderr
    return sorted(p.stdout.split())


def four_nodes(cluster):
    """node1-2: a100,ib; node3: v100,ib; node4: ib."""
    c = cluster(4, cpus=2, local_args=["--features", "ib"])
    set_features(c, "node[1-2]", "a100,ib")
    set_features(c, "node3", "v100,ib")
    return c


def test_features_shown_and_updated(cluster, test_user):
    c = four_nodes(cluster)
    p = control(c, "show", "node", "node1")
    assert p.returncode == 0, p.stderr
    assert "AvailableFeatures=a100,ib\n" in p.stdout, p.stdout
    assert "ActiveFeatures=a100,ib\n" in p.stdout, p.stdout
    p = c.run(["arbor", "info", "-h", "-o", "%N %f"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:3] == ["node[1-2] a100,ib", "node3 v100,ib",
                                        "node4 ib"], p.stdout
    # a user may not change them; a bad name changes no node
    p = control(c, "update", "NodeName=node4", "AvailableFeatures=x")
    assert p.returncode != 0 and "denied" in p.stderr, p.stderr
    p = control(c, "update", "NodeName=node4", "AvailableFeatures=a b",
                user="root")
    assert p.returncode != 0 and "cannot be in a feature name" in p.stderr
    # kept across a controller restart
    set_features(c, "node4", "ib,big")
    c.restart("ctld")
    p = control(c, "show", "node", "node4")
    assert "AvailableFeatures=ib,big\n" in p.stdout, p.stdout


def test_jobs_placed_by_constraint(cluster, test_user):
    c = four_nodes(cluster)
    assert run_nodes(c, "-C", "a100", "-N", "2") == ["node1", "node2"]
    assert run_nodes(c, "--constraint=v100|a100&ib", "-N", "3") == \
        ["node1", "node2", "node3"]
    assert run_nodes(c, "-C", "ib&v100") == ["node3"]
    # [a|b]: all nodes alike, the first alternative that fits
    assert run_nodes(c, "-C", "[v100|a100]", "-N", "2") == \
        ["node1", "node2"]
    # a*N: that many of the job's nodes have it
    got = run_nodes(c, "-C", "v100*1", "-N", "2")
    assert "node3" in got and len(got) == 2, got
    # SLURM_CONSTRAINT is read by run, as srun reads it
    p = c.run(["arbor", "run", "printenv", "SLURMD_NODENAME"],
              env={"SLURM_CONSTRAINT": "v100"})
    assert p.returncode == 0 and p.stdout.strip() == "node3", p.stderr


def test_batch_constraint_and_display(cluster, test_user):
    c = four_nodes(cluster)
    path = script(c, "c.sh", "#!/bin/sh\n#SBATCH -C v100\n#SBATCH -n 2\nsleep 60\n")
    jid = batch(c, path)
    wait_state(c, jid, "RUNNING", 30)
    p = c.run(["arbor", "queue", "-h", "-j", str(jid), "-o", "%f %N"])
    assert p.stdout.strip() == "v100 node3", p.stdout
    p = c.run(["arbor", "queue", "-h", "-j", str(jid), "-O", "Feature"])
    assert p.stdout.strip() == "v100", p.stdout
    p = control(c, "show", "job", str(jid))
    assert "Features=v100 " in p.stdout, p.stdout
    # a second v100 job waits for node3, though others are free
    p = c.run(["arbor", "batch", "-o", "/dev/null", "--wrap", "true"],
              env={"SBATCH_CONSTRAINT": "v100"})
    assert p.returncode == 0, p.stderr
    second = int(p.stdout.split()[-1])
    wait_state(c, second, "PENDING", 10)
    c.run(["arbor", "cancel", str(jid)])
    wait_state(c, second, "COMPLETED", 30)


def test_bad_constraints_refused(cluster, test_user):
    c = four_nodes(cluster)
    p = c.run(["arbor", "run", "-C", "gpu9", "true"])
    assert p.returncode != 0
    assert "Invalid feature specification" in p.stderr and "gpu9" in p.stderr
    p = c.run(["arbor", "batch", "-C", "a100&&ib", "--wrap", "true"])
    assert p.returncode != 0 and re.search(
        r"invalid constraint \"a100&&ib\": .* position 6", p.stderr), p.stderr
    # counts beyond the nodes that have the feature can never be met
    p = c.run(["arbor", "run", "-C", "v100*2", "-N", "2", "true"])
    assert p.returncode != 0
    assert "Requested node configuration is not available" in p.stderr
    # counts beyond the job's nodes
    p = c.run(["arbor", "run", "-C", "a100*2", "-N", "1", "true"])
    assert p.returncode != 0 and "Invalid feature specification" in p.stderr
