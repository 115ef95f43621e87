#!/bin/bash
# Check that the C and CUDA sources follow .clang-format (STYLE.md, "Mechanics"); CI runs it.
# Fix a file with `clang-format -i FILE`. The folders listed are those already formatted; a
# folder joins the list in the commit that formats it.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed" >&2; exit 1; }
FOLDERS=(server clients solver/amg solver/core solver/tools tests/server tests/unit tests/job tests/cli tests/materials tests/clients)
mapfile -t files < <(git ls-files -- "${FOLDERS[@]/%//*.c}" "${FOLDERS[@]/%//*.h}" "${FOLDERS[@]/%//*.cu}" \
                                     "${FOLDERS[@]/%//*.cuh}")
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/check-format.$$; then
  grep -E "^[^ ].*: (error|warning):" /tmp/check-format.$$ | cut -d: -f1 | sort -u | sed 's/^/needs clang-format: /'
  rm -f /tmp/check-format.$$
  exit 1
fi
rm -f /tmp/check-format.$$
echo "check-format: ${#files[@]} files follow .clang-format"
