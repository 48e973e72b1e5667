#!/usr/bin/env bash
# Rotate and compress logs older than N days. Sample corpus file.
set -euo pipefail

LOG_DIR=${1:-/var/log/telemetry}
KEEP_DAYS=${KEEP_DAYS:-14}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)

if [[ ! -d "$LOG_DIR" ]]; then
  echo "no such directory: $LOG_DIR" >&2
  exit 1
fi

shopt -s nullglob
for f in "$LOG_DIR"/*.log; do
  [[ -s "$f" ]] || continue
  mv -- "$f" "$f.$STAMP"
  gzip -9 -- "$f.$STAMP"
  : > "$f"   # recreate empty so writers keep going
done

find "$LOG_DIR" -name '*.log.*.gz' -mtime +"$KEEP_DAYS" -print -delete |
  while read -r old; do
    echo "removed $old"
  done
