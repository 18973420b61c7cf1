# Sourced by bench/gpu_tc3_det.sh after gpu_env.sh:
# the log ($LOG) and the rows file ($J, emptied), `say` (a line to the log and the terminal) and
# `run LABEL ARGS...` (one `runapp run`, its JSON rows appended to $J with the label, for
# bench/tc3_summary.py; killed after RUN_TIMEOUT seconds, default 120). Needs RUNAPP and OUT
# (gpu_env.sh).
set -o pipefail
LOG=$OUT/log.txt
J=$OUT/runs.jsonl
: > "$J"
say() { echo "== $*" | tee -a "$LOG"; }
run() {
    local label=$1
    shift
    rm -f /tmp/r.json
    timeout "${RUN_TIMEOUT:-120}" "$RUNAPP" run "$@" --format json --output /tmp/r.json >> "$LOG" 2>&1
    local rc=$?
    python3 -c 'import json,sys; d=json.load(open("/tmp/r.json")); rows=d.get("results", d) if isinstance(d, dict) else d
for r in (rows if isinstance(rows, list) else [rows]):
    r["label"]=sys.argv[1]; print(json.dumps(r))' "$label" >> "$J" 2>> "$LOG"
    say "$label: exit $rc"
}
