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
    # exit paths that tests drive with signals. Reports go to files too:
    # the stepds' stderr is /dev/null, where a report would only leave
    # "stepd exited with status 1" behind; any report fails the run.
    SANLOG="$BUILD/sanitizer-logs"
    rm -rf "$SANLOG"
    mkdir -p "$SANLOG"
    chmod 1777 "$SANLOG"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:log_path=$SANLOG/asan}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:log_path=$SANLOG/ubsan}
fi

"$ROOT/scripts/setup.sh" --build-dir "$BUILD" ${SETUP_ARGS[@]+"${SETUP_ARGS[@]}"}
rc=0
ctest --test-dir "$BUILD" --output-on-failure "$@" || rc=$?
# Errors fail the run; warnings (ASan's note on the stepd's task stack
# switch, __asan_handle_no_return) are only shown.
if [ -n "${SANLOG:-}" ] && [ -n "$(ls -A "$SANLOG" 2>/dev/null)" ]; then
    echo "test.sh: sanitizer output (in $SANLOG):" >&2
    for f in "$SANLOG"/*; do
        echo "==== $f" >&2
        head -60 "$f" >&2
        if grep -qE "ERROR: |runtime error" "$f"; then
            [ "$rc" -ne 0 ] || rc=1
        fi
    done
fi
exit "$rc"
