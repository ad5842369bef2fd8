"""GPUs and other generic resources (issue 35), on arbor local's stand-in
GPUs (arbor local --gres gpu:N: character devices with the numbers of
harmless ones, in gres.conf; ConstrainDevices as root), as a user and an
administrator meet them: what scontrol show node, sinfo, squeue,
scontrol show job and sacct print; --gpus, --gpus-per-node,
--gpus-per-task, --gres from the command line, #SBATCH and the input
variables; the task environment (CUDA_VISIBLE_DEVICES and the SLURM_*
GPU variables, per task under --gpus-per-task); a job waiting for GPUs
another holds; a task opening only its own devices; and requests that can
never be met refused with Slurm's words.
"""

import os
import re

from conftest import skip_or_fail
from test_batch import batch, script
from test_cancel import wait_state
from arbor_cluster import is_root


def gpu_cluster(cluster, n=2, gpus=2):
    return cluster(n, cpus=4, local_args=["--gres", "gpu:%d" % gpus])


def run(c, *args, env=None):
    p = c.run(["arbor", "run"] + list(args), env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_gpu_nodes_shown(cluster, test_user):
    c = gpu_cluster(cluster)
    p = c.run(["arbor", "control", "show", "node", "node1"])
    assert p.returncode == 0, p.stderr
    assert "\n   Gres=gpu:2\n" in p.stdout, p.stdout
    assert "CfgTRES=cpu=4,mem=4G,billing=4,gres/gpu=2\n" in p.stdout
    p = c.run(["arbor", "info", "-h", "-o", "%N %G"])
    assert p.stdout.strip() == "node[1-2] gpu:2", p.stdout


def test_task_environment(cluster, test_user):
    c = gpu_cluster(cluster)
    out = run(c, "-N1", "--gpus=1", "printenv", "SLURM_STEP_GPUS",
              "SLURM_GPUS_ON_NODE", "CUDA_VISIBLE_DEVICES",
              "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")
    # the first free GPU, 0, and numbered 0 in the step either way
    assert out.split() == ["0", "1", "0", "0", "0"], out
    # the second of two: global index 1; CUDA's numbering is relative to
    # the step's GPUs under ConstrainDevices (the others cannot be opened)
    p = c.run(["arbor", "batch", "-N1", "-w", "node1", "--gpus=1", "-o",
               "/dev/null", "--wrap", "sleep 30"])
    assert p.returncode == 0, p.stderr
    out = run(c, "-w", "node1", "--gpus=1", "printenv", "SLURM_STEP_GPUS",
              "CUDA_VISIBLE_DEVICES")
    assert out.split() == ["1", "0" if is_root() else "1"], out
    # --gpus-per-task: each task its own GPU; the step has both
    out = run(c, "-N1", "-n2", "--gpus-per-task=1", "-l", "sh", "-c",
              "echo $SLURM_STEP_GPUS/$CUDA_VISIBLE_DEVICES")
    lines = sorted(out.split("\n")[:2])
    # numbered within the step's GPUs (both held, so as the node does)
    assert lines == ["0: 0,1/0", "1: 0,1/1"], out
    # --gpu-bind=none: every task sees both
    out = run(c, "-N1", "-n2", "--gpus-per-task=1", "--gpu-bind=none", "-l",
              "printenv", "CUDA_VISIBLE_DEVICES")
    assert sorted(out.split("\n")[:2]) == ["0: 0,1", "1: 0,1"], out
    # verbose: each task says what it sees
    p = c.run(["arbor", "run", "-N1", "-n2", "--gpus-per-task=1",
               "--gpu-bind=verbose,per_task:1", "true"])
    assert p.returncode == 0, p.stderr
    assert len(re.findall(r"gpu-bind=per_task:1 - node\d, task +\d +\d: "
                          r"GPUs \d visible as \d", p.stderr)) == 2, p.stderr
    # a step of a job without GPUs has no GPU variables
    out = run(c, "-N1", "sh", "-c", "echo ${SLURM_STEP_GPUS-unset}")
    assert out.strip() == "unset", out


def test_batch_environment(cluster, test_user):
    c = gpu_cluster(cluster)
    out = os.path.join(c.scratch, "env.out")
    path = script(c, "b.sh", "#!/bin/sh\n#SBATCH --gpus=1\n"
                  "#SBATCH --gpu-bind=none\n"
                  "echo $SLURM_GPUS $SLURM_GPU_BIND $SLURM_JOB_GPUS "
                  "$SLURM_GPUS_ON_NODE $CUDA_VISIBLE_DEVICES\n")
    p = c.run(["arbor", "batch", "-o", out, path])
    assert p.returncode == 0, p.stderr
    wait_state(c, int(p.stdout.split()[-1]), "COMPLETED", 30)
    with open(out) as f:
        assert f.read().split() == ["1", "none", "0", "1", "0"]


def test_devices_contained(cluster, test_user):
    if not is_root():
        skip_or_fail("ConstrainDevices needs root (arbor local as root)")
    c = gpu_cluster(cluster)
    dev = os.path.join(c.dir, "dev")
    probe = ("for g in 0 1; do head -c1 %s/gpu$g >/dev/null 2>&1 "
             "&& echo gpu$g:open || echo gpu$g:denied; done" % dev)
    out = run(c, "-N1", "--gpus=1", "sh", "-c", probe)
    assert out.split() == ["gpu0:open", "gpu1:denied"], out
    out = run(c, "-N1", "--gpus=2", "sh", "-c", probe)
    assert out.split() == ["gpu0:open", "gpu1:open"], out
    out = run(c, "-N1", "sh", "-c", probe)
    assert out.split() == ["gpu0:denied", "gpu1:denied"], out
    # the error a task sees is EPERM
    p = c.run(["arbor", "run", "-N1", "--gpus=1", "python3", "-c",
               "open('%s/gpu1')" % dev])
    assert p.returncode != 0 and "Operation not permitted" in p.stderr


def test_jobs_wait_for_gpus(cluster, test_user):
    c = gpu_cluster(cluster, n=1)
    path = script(c, "g.sh", "#!/bin/sh\n#SBATCH --gpus-per-node=2\n"
                  "sleep 60\n")
    first = batch(c, path)
    wait_state(c, first, "RUNNING", 30)
    p = c.run(["arbor", "queue", "-h", "-j", str(first), "-o", "%b"])
    assert p.stdout.strip() == "gres/gpu:2", p.stdout
    p = c.run(["arbor", "control", "show", "-d", "job", str(first)])
    assert "TresPerNode=gres/gpu:2\n" in p.stdout, p.stdout
    assert "Nodes=node1 GRES=gpu:2(IDX:0-1)" in p.stdout, p.stdout
    assert re.search(r"TRES=cpu=1,.*gres/gpu=2\n", p.stdout), p.stdout
    p = c.run(["arbor", "control", "show", "-d", "node", "node1"])
    assert "GresUsed=gpu:2(IDX:0-1)\n" in p.stdout, p.stdout
    # cores are free, GPUs are not: the next GPU job waits
    p = c.run(["arbor", "batch", "-o", "/dev/null", "--wrap", "true"],
              env={"SBATCH_GPUS": "1"})
    assert p.returncode == 0, p.stderr
    second = int(p.stdout.split()[-1])
    wait_state(c, second, "PENDING", 10)
    c.run(["arbor", "cancel", str(first)])
    wait_state(c, second, "COMPLETED", 30)
    p = c.run(["arbor", "acct", "-n", "-P", "-X", "-j", str(first),
               "-o", "AllocTRES,ReqTRES"])
    assert p.stdout.count("gres/gpu=2") == 2, p.stdout


def test_impossible_requests_refused(cluster, test_user):
    c = gpu_cluster(cluster)
    p = c.run(["arbor", "run", "-N1", "--gpus=3", "true"])
    assert p.returncode != 0
    assert "Requested node configuration is not available" in p.stderr
    p = c.run(["arbor", "run", "--gres=nic:1", "true"])
    assert p.returncode != 0
    assert "Invalid generic resource (gres) specification" in p.stderr
    p = c.run(["arbor", "batch", "--gres=gpu:0", "--wrap", "true"])
    assert p.returncode != 0 and "invalid --gres" in p.stderr, p.stderr
    p = c.run(["arbor", "run", "--gpu-bind=map_gpu:x", "true"])
    assert p.returncode != 0 and "invalid --gpu-bind" in p.stderr, p.stderr
    p = c.run(["arbor", "run", "-N1", "--gpus=1", "--gpu-bind=map_gpu:5",
               "true"])
    assert p.returncode != 0 and "GPU 5" in p.stderr, p.stderr
