#!/bin/bash
# format.sh - the tree's C formatting, by the project's .clang-format.
#
#   scripts/format.sh           format every tracked .c and .h in place
#   scripts/format.sh --check   change nothing; list the files that are
#                               not formatted and exit 1 if there are any
#
# ctest runs the check as the test "format" (label lint). Without
# clang-format the check exits 77 (ctest: skipped), which CI=true turns
# into a failure, as every skip.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
cd "$ROOT"

if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
    echo "format.sh: $CLANG_FORMAT not found (scripts/setup.sh installs it)" >&2
    if [ "${CI:-}" = "true" ]; then exit 1; fi
    exit 77
fi

mapfile -t files < <(git ls-files '*.c' '*.h')
if [ "${1:-}" != "--check" ]; then
    "$CLANG_FORMAT" -i "${files[@]}"
    exit 0
fi
bad=()
for f in "${files[@]}"; do
    if ! "$CLANG_FORMAT" --dry-run --Werror "$f" >/dev/null 2>&1; then
        bad+=("$f")
    fi
done
if [ ${#bad[@]} -gt 0 ]; then
    echo "format.sh: not formatted (run scripts/format.sh):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "format.sh: ${#files[@]} files formatted"
