#!/bin/bash
# test.sh - build Arbor and run every test (unit and integration).
#
#   scripts/test.sh [ctest arguments...]
#
# Runs scripts/setup.sh (packages, test user, build), then ctest with
# --output-on-failure. ARBOR_SANITIZE=1 builds with ASan/UBSan into
# build-asan/ instead of build/; ARBOR_BUILD_DIR names another build
# directory. Extra arguments go to ctest
# (e.g. "-L unit", "-R integration").
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SETUP_ARGS=()
BUILD="${ARBOR_BUILD_DIR:-$ROOT/build}"

if [ "${ARBOR_SANITIZE:-0}" = "1" ]; then
    BUILD="${ARBOR_BUILD_DIR:-$ROOT/build-asan}"
    SETUP_ARGS+=(--sanitize)
    # Leaks in short-lived commands are reported but do not fail daemons'
    # exit paths that tests drive with signals.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi

"$ROOT/scripts/setup.sh" --build-dir "$BUILD" ${SETUP_ARGS[@]+"${SETUP_ARGS[@]}"}
exec ctest --test-dir "$BUILD" --output-on-failure "$@"
