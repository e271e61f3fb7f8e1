#!/usr/bin/env bash
# A real Spark standalone cluster on 127.0.0.1: one master and N workers, started from the pyspark
# package itself (its wheel has no start-master.sh: spark-daemon.sh with the class names,
# docs/stack.md#standalone-cluster-from-the-pyspark-wheel).
#
#   bash scripts/tools/local_cluster.sh start [N]     # master + N workers (default 2); waits until all are ALIVE
#   bash scripts/tools/local_cluster.sh status        # workers and their state, from the master's JSON page
#   bash scripts/tools/local_cluster.sh stop          # stops everything; fails if a Java process is left behind
#
# Logs, pids and work folders live under .spark/ (git-ignored). Settings (environment):
#   SPARK_MASTER_PORT (7077), SPARK_MASTER_WEBUI_PORT (8080), WORKER_CORES (1), WORKER_MEMORY (2g),
#   PAGESIEVE_SPARK_DIR (.spark), PYTHON (.venv/bin/python)
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=${PYTHON:-.venv/bin/python}
BASE=$(realpath -m "${PAGESIEVE_SPARK_DIR:-.spark}")
MASTER_PORT=${SPARK_MASTER_PORT:-7077}
WEBUI_PORT=${SPARK_MASTER_WEBUI_PORT:-8080}
export SPARK_HOME=${SPARK_HOME:-$("$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')}
export SPARK_LOCAL_IP=127.0.0.1 SPARK_LOG_DIR="$BASE/logs" SPARK_PID_DIR="$BASE/pids" SPARK_WORKER_DIR="$BASE/work"
# Instances are numbered per port so that two clusters (a developer's and a test's) never share pid files.
export SPARK_IDENT_STRING="pagesieve-$MASTER_PORT"
DAEMON="$SPARK_HOME/sbin/spark-daemon.sh"
MASTER_CLASS=org.apache.spark.deploy.master.Master
WORKER_CLASS=org.apache.spark.deploy.worker.Worker
URL="spark://127.0.0.1:$MASTER_PORT"

alive_workers() {
  "$PY" - "$WEBUI_PORT" <<'PY' 2>/dev/null || echo 0
import json, sys, urllib.request
with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/json/", timeout=2) as r:
    print(sum(w["state"] == "ALIVE" for w in json.load(r)["workers"]))
PY
}

pids() { cat "$SPARK_PID_DIR"/spark-"$SPARK_IDENT_STRING"-*.pid 2>/dev/null || true; }

start() {
  local n=${1:-2}
  mkdir -p "$SPARK_LOG_DIR" "$SPARK_PID_DIR" "$SPARK_WORKER_DIR"
  "$DAEMON" start "$MASTER_CLASS" 1 --host 127.0.0.1 --port "$MASTER_PORT" --webui-port "$WEBUI_PORT" >/dev/null
  for i in $(seq 1 "$n"); do
    "$DAEMON" start "$WORKER_CLASS" "$i" --host 127.0.0.1 --cores "${WORKER_CORES:-1}" \
      --memory "${WORKER_MEMORY:-2g}" --webui-port 0 --work-dir "$SPARK_WORKER_DIR/worker-$i" "$URL" >/dev/null
  done
  for _ in $(seq 1 120); do
    if [ "$(alive_workers)" -ge "$n" ]; then
      echo "cluster up: $URL, $n workers ALIVE (master UI http://127.0.0.1:$WEBUI_PORT, logs $SPARK_LOG_DIR)"
      return 0
    fi
    sleep 0.5
  done
  echo "cluster: workers not ALIVE after 60 s; see $SPARK_LOG_DIR" >&2
  stop || true
  return 1
}

stop() {
  local left all
  all=$(pids)   # read before stopping: spark-daemon.sh removes the pid files as it stops
  for f in "$SPARK_PID_DIR"/spark-"$SPARK_IDENT_STRING"-*Worker-*.pid; do
    [ -e "$f" ] || continue
    i=${f##*-}; i=${i%.pid}
    "$DAEMON" stop "$WORKER_CLASS" "$i" >/dev/null 2>&1 || true
  done
  "$DAEMON" stop "$MASTER_CLASS" 1 >/dev/null 2>&1 || true
  # spark-daemon.sh stop sends TERM and waits; anything still running (a hung JVM) is killed.
  for _ in $(seq 1 20); do
    left=$(for p in $all; do kill -0 "$p" 2>/dev/null && echo "$p"; done; true)
    [ -z "$left" ] && break
    sleep 0.5
  done
  for p in ${left:-}; do kill -9 "$p" 2>/dev/null || true; done
  rm -f "$SPARK_PID_DIR"/spark-"$SPARK_IDENT_STRING"-*.pid
  if pgrep -f "spark.deploy.*(--port $MASTER_PORT|127.0.0.1:$MASTER_PORT)" >/dev/null; then
    echo "cluster: a Java process of $URL is still running" >&2
    return 1
  fi
  echo "cluster stopped: $URL"
}

status() {
  "$PY" - "$WEBUI_PORT" <<'PY'
import json, sys, urllib.request
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/json/", timeout=2) as r:
        info = json.load(r)
except OSError as exc:
    sys.exit(f"no master on port {sys.argv[1]}: {exc}")
print(f"{info['url']}: {info['status']}, {len(info['workers'])} workers, {info['cores']} cores")
for w in info["workers"]:
    print(f"  {w['id']}: {w['state']}, {w['cores']} cores, {w['memory']} MB")
PY
}

case "${1:-}" in
  start) start "${2:-2}" ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start [N] | stop | status" >&2; exit 2 ;;
esac
