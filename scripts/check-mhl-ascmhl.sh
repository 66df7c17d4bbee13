#!/usr/bin/env bash
# Checks the ASC MHL our offload writes with the ASC's reference implementation, ascmhl
# (https://github.com/ascmitc/mhl, Python, MIT). Not part of .ci/run: ascmhl's source is not
# reachable from CI (it is not in Debian and PyPI is not reachable), so this is run by hand when
# main/offload/mhl.ts or offload.ts change. CI validates the same files against the ASC's XML
# Schemas instead (main/offload/mhl-schema.test.ts).
#
# Usage: scripts/check-mhl-ascmhl.sh [ASCMHL_SOURCE]   (or ASCMHL_SRC=... in the environment)
#   ASCMHL_SOURCE: a checkout of ascmitc/mhl (the folder holding ascmhl/cli/ascmhl.py), or a bare
#   git directory of it (its HEAD is exported to a temporary folder).
#   ASCMHL_PYTHON: the Python to run it with (default /usr/bin/python3). It needs lxml, click,
#   xxhash, dateutil, pathspec, packaging and requests: on Debian
#   apt-get install python3-lxml python3-click python3-xxhash python3-dateutil python3-pathspec python3-packaging python3-requests
#
# What it does, on a generated card offloaded by main/offload/offload.ts (scripts/mhl-sample-offload.ts:
# a card name and a file name XML escapes, a non-ASCII folder and file, one copy that fails verification):
#   1. ascmhl-debug xsd-schema-check: the manifest and the chain against ascmhl's own XSDs (lxml);
#   2. ascmhl-debug verify: every copy hashed and compared with the MHL; must succeed;
#   3. ascmhl diff and ascmhl info: must succeed;
#   4. ascmhl create on a copy of the folder: appends generation 0002 (every file `verified`)
#      to our chain, which it only does after checking our manifest's C4 id; then verify again;
#   5. the opposite: a copy with one byte changed, one with a file removed, and one whose MHL was
#      edited must each make `ascmhl-debug verify` fail (hash mismatch, missing file, modified manifest).
# Exits 0 when every step went as expected, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

SRC="${1:-${ASCMHL_SRC:-}}"
if [ -z "$SRC" ]; then
  echo "Usage: $0 ASCMHL_SOURCE (a checkout of https://github.com/ascmitc/mhl), or set ASCMHL_SRC" >&2
  exit 2
fi
PY="${ASCMHL_PYTHON:-/usr/bin/python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if [ -f "$SRC/ascmhl/cli/ascmhl.py" ]; then
  COMMIT="$(git -C "$SRC" rev-parse HEAD 2>/dev/null || echo 'unknown commit')"
elif COMMIT="$(git --git-dir="$SRC" rev-parse HEAD 2>/dev/null)"; then
  mkdir "$WORK/ascmhl-src"
  git --git-dir="$SRC" archive HEAD | tar -x -C "$WORK/ascmhl-src"
  SRC="$WORK/ascmhl-src"
else
  echo "$SRC holds neither ascmhl/cli/ascmhl.py nor a git repository of ascmhl" >&2
  exit 2
fi
SRC="$(cd "$SRC" && pwd)"
if ! "$PY" -c 'import lxml, click, xxhash, dateutil, pathspec, packaging, requests' 2>/dev/null; then
  echo "$PY lacks ascmhl's dependencies. On Debian: apt-get install python3-lxml python3-click python3-xxhash python3-dateutil python3-pathspec python3-packaging python3-requests" >&2
  exit 2
fi
echo "ascmhl from $SRC at commit $COMMIT, run by $("$PY" --version)"

# ascmhl reads its own version from installed package metadata; run from source it has none, so
# it is given one here. Its update check (a request to GitHub) fails quietly without a network.
run() { # run ascmhl|ascmhl-debug ARGS...
  local cli="$1"; shift
  local mod='ascmhl.cli.ascmhl:mhltool_cli'
  [ "$cli" = ascmhl-debug ] && mod='ascmhl.cli.ascmhl_debug:mhldebugtool_cli'
  PYTHONPATH="$SRC" "$PY" -c "
import importlib, importlib.metadata as m, sys
_v = m.version
m.version = lambda n: '0+source' if n == 'ascmhl' else _v(n)
mod, fn = '$mod'.split(':')
sys.argv[0] = '$cli'
sys.exit(getattr(importlib.import_module(mod), fn)())" "$@"
}

FAILS=0
expect() { # expect EXIT_CODE DESCRIPTION -- COMMAND...  (ascmhl's codes: ascmhl/errors.py)
  local want="$1" what="$2"; shift 3
  local out rc
  out="$("$@" 2>&1)"; rc=$?
  if [ $rc -eq "$want" ]; then
    echo "ok   $what (exit $rc)"
  else
    echo "FAIL $what (exit $rc, expected $want)"; FAILS=$((FAILS + 1))
  fi
  printf '%s\n' "$out" | sed 's/^/       /'
}

SAMPLE="$(npx tsx scripts/mhl-sample-offload.ts "$WORK/offload")" || { echo "the sample offload failed" >&2; exit 1; }
DEST="$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["destination"])' "$SAMPLE")"
MHL="$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["mhl"])' "$SAMPLE")"
echo "offloaded to $DEST (the copy of one file failed verification on purpose)"

expect 0 "xsd-schema-check of the manifest" -- run ascmhl-debug xsd-schema-check -xsd "$SRC/xsd/ASCMHL.xsd" "$MHL"
# The combined schema imports ASCMHL.xsd by its local path before the chain's schema imports it by URL.
expect 0 "xsd-schema-check of the chain file" -- run ascmhl-debug xsd-schema-check -df -xsd "$SRC/xsd/ASCMHLDirectory__combined.xsd" "$DEST/ascmhl/ascmhl_chain.xml"
expect 0 "verify of the offloaded copy" -- run ascmhl-debug verify -v "$DEST"
expect 0 "diff of the offloaded copy" -- run ascmhl diff -v "$DEST"
expect 0 "info of the offloaded copy" -- run ascmhl info -v "$DEST"

cp -a "$DEST" "$WORK/appended"
expect 0 "create (a second generation appended to our chain)" -- run ascmhl create -v -h xxh64 "$WORK/appended"
expect 0 "verify after the append" -- run ascmhl-debug verify "$WORK/appended"
N="$(ls "$WORK/appended/ascmhl"/0002_*.mhl 2>/dev/null | wc -l)"
V="$(grep -c 'action="verified"' "$WORK/appended/ascmhl"/0002_*.mhl 2>/dev/null || echo 0)"
C="$(grep -c 'sequencenr=' "$WORK/appended/ascmhl/ascmhl_chain.xml")"
if [ "$N" = 1 ] && [ "$C" = 2 ] && [ "$V" -ge 1 ]; then echo "ok   generation 0002 written, $V files verified, chain of $C"; else echo "FAIL generation 0002: $N files, $V verified, chain of $C"; FAILS=$((FAILS + 1)); fi

cp -a "$DEST" "$WORK/damaged"
F="$(find "$WORK/damaged/DCIM" -name 'VID_*.insv' | sort | head -1)"
printf '\x5a' | dd of="$F" bs=1 seek=1000 conv=notrunc status=none
expect 11 "verify of a copy with one byte changed after the offload" -- run ascmhl-debug verify "$WORK/damaged"
cp -a "$DEST" "$WORK/missing"
rm "$(find "$WORK/missing/DCIM" -name '*.mp4' | sort | head -1)"
expect 10 "verify of a copy with a file removed" -- run ascmhl-debug verify "$WORK/missing"
cp -a "$DEST" "$WORK/tampered"
sed -i 's/<hostname>/<hostname>edited-/' "$WORK/tampered/ascmhl"/0001_*.mhl
expect 31 "verify of a copy whose MHL was edited (its C4 id no longer matches the chain)" -- run ascmhl-debug verify "$WORK/tampered"

if [ $FAILS -eq 0 ]; then echo "All ascmhl checks passed (ascmhl $COMMIT)."; exit 0; fi
echo "$FAILS ascmhl check(s) failed." >&2
exit 1
