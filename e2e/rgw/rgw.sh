#!/usr/bin/env bash
# A single-node Ceph cluster with a RADOS Gateway on loopback, for the tests over a real S3 server
# (e2e/rgw.test.ts). Everything lives in DIR: the config, the keys, the monitor's store (a few MiB),
# the logs and the pid files; the OSD keeps its objects in memory (memstore), so nothing needs a disk.
#
#   rgw.sh start DIR [OWNER_PID]
#                      starts monitor, OSD and gateway, creates an S3 user, and prints one line:
#                      RGW_ENDPOINT=http://127.0.0.1:PORT RGW_ACCESS_KEY=… RGW_SECRET_KEY=…
#                      (also written to DIR/env). Exit 1, with the daemons' log tails, if any fails.
#                      With OWNER_PID, a watcher stops the cluster once that process is gone, so
#                      a test runner killed outright leaves no daemon behind.
#   rgw.sh stop DIR    stops every daemon by its pid file (SIGTERM, then SIGKILL after 10 s).
#
# Needs Debian's radosgw, ceph-mon, ceph-osd and ceph-common (Ceph 16.2); no manager daemon is run.
set -euo pipefail

cmd=${1:-}
DIR=${2:-}
if [ -z "$cmd" ] || [ -z "$DIR" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
DIR=$(realpath -m "$DIR")
OWNER=${3:-}
CONF="$DIR/ceph.conf"

stop() {
  local pids=() f pid
  rm -f "$DIR/env" # the watcher's sign to end
  for f in "$DIR"/run/*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
  done
  for _ in $(seq 100); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -f "$DIR"/run/*.pid
}

# A port the kernel had free a moment ago (bound to port 0, then released).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

fail() {
  echo "rgw.sh: $1" >&2
  for f in "$DIR"/log/*.log; do
    [ -e "$f" ] || continue
    echo "--- $f" >&2
    tail -n 20 "$f" >&2
  done
  stop
  exit 1
}

# Succeeds once the URL answers HTTP at all (RGW answers an anonymous GET / with 200 or 403).
answers() {
  python3 - "$1" <<'PY'
import sys, urllib.error, urllib.request
try:
    urllib.request.urlopen(sys.argv[1], timeout=2)
except urllib.error.HTTPError:
    pass
PY
}

# Waits up to $2 tenths of a second for the command $1 to succeed.
wait_for() {
  for _ in $(seq "$2"); do
    if eval "$1" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  return 1
}

start() {
  for bin in ceph-mon ceph-osd radosgw radosgw-admin ceph ceph-authtool monmaptool; do
    command -v "$bin" >/dev/null || { echo "rgw.sh: $bin is not installed (apt-get install radosgw ceph-mon ceph-osd ceph-common)" >&2; exit 1; }
  done
  mkdir -p "$DIR"/{mon,osd,rgw,run,log}
  local fsid osd_uuid mon_port rgw_port
  fsid=$(cat /proc/sys/kernel/random/uuid)
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  mon_port=$(free_port)
  rgw_port=$(free_port)
  cat >"$CONF" <<CONF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon_port]
mon initial members = a
public addr = 127.0.0.1
ms bind msgr1 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $DIR/keyring
run dir = $DIR/run
admin socket = $DIR/run/\$name.asok
pid file = $DIR/run/\$name.pid
log file = $DIR/log/\$name.log
; one OSD holds every copy
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
osd crush chooseleaf type = 0
osd pool default pg autoscale mode = off
osd pool default pg num = 8
osd pool default pgp num = 8
mon max pg per osd = 1000
mon warn on pool no redundancy = false
[mon.a]
mon data = $DIR/mon
[osd.0]
osd data = $DIR/osd
; objects in memory: no disk, nothing to clean but the process
osd objectstore = memstore
memstore device bytes = 2147483648
; its own key file, or mkfs would write the OSD's key over the admin keyring
keyring = $DIR/osd/keyring
[client.rgw.gw]
keyring = $DIR/rgw/keyring
rgw data = $DIR/rgw
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
CONF

  ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$DIR/keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
  ceph-authtool --create-keyring "$DIR/osd/keyring" --gen-key -n osd.0 \
    --cap mon 'allow profile osd' --cap osd 'allow *' --cap mgr 'allow profile osd' >/dev/null
  ceph-authtool --create-keyring "$DIR/rgw/keyring" --gen-key -n client.rgw.gw \
    --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
  for k in keyring osd/keyring rgw/keyring; do ceph-authtool "$DIR/mon.keyring" --import-keyring "$DIR/$k" >/dev/null; done
  monmaptool --create --addv a "[v2:127.0.0.1:$mon_port]" --fsid "$fsid" "$DIR/monmap" >/dev/null

  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring" || fail "monitor mkfs failed"
  ceph-mon -c "$CONF" -i a 2>>"$DIR/log/daemons.out" || fail "the monitor did not start"
  wait_for "ceph -c '$CONF' --connect-timeout 2 mon stat" 300 || fail "the monitor did not answer within 30 s"

  ceph -c "$CONF" osd new "$osd_uuid" 0 >/dev/null || fail "osd new failed"
  ceph-osd -c "$CONF" -i 0 --mkfs --no-mon-config --osd-uuid "$osd_uuid" >"$DIR/log/osd-mkfs.out" 2>&1 || fail "OSD mkfs failed"
  ceph-osd -c "$CONF" -i 0 2>>"$DIR/log/daemons.out" || fail "the OSD did not start"
  wait_for "ceph -c '$CONF' osd dump | grep -q '^osd.0 up'" 300 || fail "the OSD did not come up within 30 s"

  radosgw -c "$CONF" -n client.rgw.gw 2>>"$DIR/log/daemons.out" || fail "the gateway did not start"
  wait_for "answers http://127.0.0.1:$rgw_port/" 600 || fail "the gateway did not answer on 127.0.0.1:$rgw_port within 60 s"

  local access secret
  access=$(python3 -c 'import secrets; print("RGW" + secrets.token_hex(8).upper())')
  secret=$(python3 -c 'import secrets; print(secrets.token_hex(20))')
  radosgw-admin -c "$CONF" -n client.admin user create --uid=capture-tests --display-name='capture tests' \
    --access-key="$access" --secret-key="$secret" >/dev/null || fail "radosgw-admin user create failed"
  echo "RGW_ENDPOINT=http://127.0.0.1:$rgw_port RGW_ACCESS_KEY=$access RGW_SECRET_KEY=$secret" >"$DIR/env"
  if [ -n "${OWNER:-}" ]; then
    # Detached from this script's output, so the caller reading it sees its end.
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -e "$2/env" ]; do sleep 1; done; [ -e "$2/env" ] && exec "$0" stop "$2"' \
      "$(realpath "$0")" "$OWNER" "$DIR" </dev/null >/dev/null 2>&1 &
  fi
  cat "$DIR/env"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
