#!/bin/sh
# gpu-check.sh - issue 35's check on a real NVIDIA GPU, run where one is
# at hand (a device session: the tree and build/bin, build/lib,
# build/plugins carried over; no network there, so nothing is installed).
#
#   scripts/gpu-check.sh [BUILD_DIR]
#
# Starts `arbor local -N 1 --gres nvml` (gres.conf AutoDetect=nvml; as
# root ConstrainDevices=yes) and shows, for the note:
#   1. what the noded detected (its log) and scontrol show node;
#   2. srun --gpus=1 nvidia-smi -L: the GPU, seen from a task;
#   3. a task without GPUs opening /dev/nvidia0: refused (EPERM);
#   4. the task variables of a --gpus=1 step.
# Prints each step's outcome and exits non-zero when one failed.
set -u
BUILD=${1:-build}
ARBOR="$BUILD/bin/arbor"
fail=0
say () { printf '\n== %s\n' "$*"; }
check () { if "$@"; then echo "ok"; else echo "FAILED: $*"; fail=1; fi; }

say "host"
uname -a
nvidia-smi -L || echo "nvidia-smi: not found or failed"
ls -l /dev/nvidia* 2>/dev/null | head
ldconfig -p 2>/dev/null | grep -m1 libnvidia-ml || echo "libnvidia-ml: not in ldconfig"

DIR=$(mktemp -d /tmp/gpu-check.XXXXXX)
say "arbor local -N 1 --gres nvml (in $DIR)"
"$ARBOR" local -N 1 --gres nvml --dir "$DIR" -- sh -c '
  A="'"$ARBOR"'"
  echo "-- noded log (detection)"; grep -i "nvml\|generic resources" "'"$DIR"'"/log/noded-node1.log
  echo "-- scontrol show node"; "$A" control show -d node node1
  echo "-- srun --gpus=1 nvidia-smi -L"; "$A" run -N1 --gpus=1 nvidia-smi -L; echo "rc=$?"
  echo "-- the step variables"; "$A" run -N1 --gpus=1 printenv CUDA_VISIBLE_DEVICES SLURM_STEP_GPUS SLURM_JOB_GPUS SLURM_GPUS_ON_NODE
  echo "-- no GPUs: open /dev/nvidia0"; "$A" run -N1 python3 -c "open(\"/dev/nvidia0\")" ; echo "rc=$?"
  echo "-- one GPU: open /dev/nvidia0"; "$A" run -N1 --gpus=1 python3 -c "open(\"/dev/nvidia0\"); print(\"opened\")" ; echo "rc=$?"
' > "$DIR/out.txt" 2>&1
rc=$?
cat "$DIR/out.txt"
say "checks"
check test "$rc" -eq 0
check grep -q "Gres=gpu" "$DIR/out.txt"
check grep -q "^GPU 0:" "$DIR/out.txt"
check grep -q "Operation not permitted" "$DIR/out.txt"
check grep -q "^opened" "$DIR/out.txt"
exit $fail
