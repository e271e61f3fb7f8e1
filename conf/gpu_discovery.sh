#!/usr/bin/env bash
# Spark GPU discovery script (spark.executor.resource.gpu.discoveryScript / spark.worker.resource.gpu...):
# prints the GPUs this executor may use as Spark's ResourceInformation JSON, e.g.
#   {"name": "gpu", "addresses": ["0", "1"]}
# Addresses come from nvidia-smi; none (no driver, no GPU) prints an empty list, and the executor then
# cannot satisfy a gpu.amount > 0 request, so Spark reports the mismatch at start-up.
set -uo pipefail
ids=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr -d ' ' | grep -E '^[0-9]+$')
printf '{"name": "gpu", "addresses": ['
first=1
for id in $ids; do
  [ $first -eq 1 ] || printf ', '
  printf '"%s"' "$id"
  first=0
done
printf ']}\n'
