#!/bin/bash
# Check that the C and CUDA sources follow .clang-format (STYLE.md, "Mechanics"); CI runs it.
# Fix a file with `clang-format -i FILE`. Every tracked C, CUDA and header file is checked.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed" >&2; exit 1; }
FOLDERS=(.)
mapfile -t files < <(git ls-files -- "${FOLDERS[@]/%//*.c}" "${FOLDERS[@]/%//*.h}" "${FOLDERS[@]/%//*.cu}" \
                                     "${FOLDERS[@]/%//*.cuh}")
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/check-format.$$; then
  grep -E "^[^ ].*: (error|warning):" /tmp/check-format.$$ | cut -d: -f1 | sort -u | sed 's/^/needs clang-format: /'
  rm -f /tmp/check-format.$$
  exit 1
fi
rm -f /tmp/check-format.$$
echo "check-format: ${#files[@]} files follow .clang-format"
