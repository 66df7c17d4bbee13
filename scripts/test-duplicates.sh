#!/usr/bin/env bash
# Repeated set-up in the tests, measured (docs/testing.md, "Repeated set-up, measured"):
# copies the test files alone (*.test.ts, *.e2e.ts, main/testing/, e2e/app/*.ts), keeping
# their paths, into a temporary folder and runs the tool library's `duplicates` over it.
# Prints the pair count on the last line; `--rows` also prints the tool's rows.
# Exits 2 where `duplicates` is not on PATH (it belongs to the machine, not to the repo).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! command -v duplicates >/dev/null 2>&1; then
  echo "test-duplicates: the 'duplicates' command is not on PATH" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$root"
# Tracked and untracked-but-not-ignored files, as the tool itself reads a checkout.
git ls-files --cached --others --exclude-standard -- \
  '*.test.ts' '*.e2e.ts' 'main/testing/*' 'e2e/app/*.ts' |
  sort -u |
  while IFS= read -r f; do
    [ -f "$f" ] || continue
    mkdir -p "$work/$(dirname "$f")"
    cp "$f" "$work/$f"
  done

out="$(duplicates --repo "$work" --most 200 --seconds 120)"
if [ "${1:-}" = "--rows" ]; then
  printf '%s\n' "$out"
fi
printf '%s\n' "$out" | head -n 1
