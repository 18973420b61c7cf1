#!/usr/bin/env bash
# Checks that every C++ source of the host side follows the repository's .clang-format
# (clang-format from Debian's `clang-format` package, 14 on Debian 12). The kernels
# (kernels_cl/, kernels_cu/) are left as written: each is laid out line by line against its
# twin in the other language and against the course notes, which a formatter would undo.
#
#   bash scripts/check_format.sh          # lists the files that differ, exit 1 if any
#   bash scripts/check_format.sh --fix    # rewrites them in place
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (apt-get install clang-format)" >&2; exit 2; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | grep -v '^kernels_c[lu]/')
else
    mapfile -t files < <(find . -path ./kernels_cl -prune -o -path ./kernels_cu -prune -o -path './build*' -prune \
                          -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print | sed 's|^\./||')
fi
if [ "${1:-}" = --fix ]; then
    clang-format -i "${files[@]}"
    exit 0
fi
bad=()
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
    echo "check_format: ${#bad[@]} of ${#files[@]} files differ from .clang-format:" >&2
    printf '  %s\n' "${bad[@]}" >&2
    echo "run: bash scripts/check_format.sh --fix" >&2
    exit 1
fi
echo "check_format: ${#files[@]} files follow .clang-format"
