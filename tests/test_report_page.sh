#!/usr/bin/env bash
# runapp report: two machines' result files merged, bad files rejected (with their names), and
# the HTML page drawn by headless Chromium: not blank, the expected number of bars, nothing
# loaded from outside, hostile strings escaped. Usage: test_report_page.sh RUNAPP SOURCE_DIR WORK_DIR
# Exit 77 (skipped) when Chromium is not installed.
set -u
runapp=$1 data=$2/tests/data work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
a=$data/report_gpu_node.json b=$data/report_laptop.json

# Merge: every device of both machines, the same id on two machines as two columns.
"$runapp" report "$a" "$b" --html page.html --output merged.json --format json >out.json 2>err.txt \
    || fail "report of two good files exited $?: $(cat err.txt)"
"$runapp" report "$a" "$b" >table.txt 2>&1 || fail "report (table) exited $?"
grep -q "opencl:0 @ gpu-node-7 2026-11-22 10:00" table.txt || fail "no column for gpu-node-7's opencl:0"
grep -q "opencl:0 @ laptop 2026-11-23 09:30" table.txt || fail "no column for the laptop's opencl:0"
grep -q "cuda:0 @ gpu-node-7" table.txt || fail "no column for cuda:0"
grep -q "OpenCL time over CUDA" table.txt || fail "no CUDA/OpenCL ratio for the GPU seen through both"
# The merged JSON reads back, with every row.
"$runapp" report merged.json --format csv >merged.csv 2>err.txt || fail "the merged JSON does not read back: $(cat err.txt)"
rows=$(($(wc -l <merged.csv) - 1))
[ "$rows" = 21 ] || fail "the merged CSV has $rows rows, expected 21"

# A real run of this runapp reads back, and compare --html draws one bar per checked result.
if "$runapp" run vecadd --size 4096 --reps 2 --warmup 1 --format json --output real.json >/dev/null 2>real.err; then
    "$runapp" report real.json >real.txt 2>&1 || fail "runapp's own JSON is rejected: $(cat real.txt)"
    "$runapp" compare vecadd --size 4096 --reps 2 --warmup 1 --html compare.html >/dev/null 2>&1 \
        || fail "compare --html exited $?"
    want=$(grep -c '"status": "pass"' real.json)
    got=$(grep -o 'class="bar s[0-9]' compare.html | wc -l)
    [ "$got" -ge "$want" ] && [ "$want" -ge 1 ] || fail "compare --html has $got bars for $want checked results"
else
    echo "no device to run on here ($(tail -1 real.err)): the round trip of a real run is skipped"
fi

# Bad files: named, with the reason; the good file's rows are kept, --strict fails.
head -c 3000 "$b" >truncated.json
echo '{"foo": 1}' >foreign.json
python3 -c 'print("[" * 100000 + "]" * 100000)' >deep.json
python3 -c 'import json;d=json.load(open("'"$b"'"));d["results"][2]["kernel_ms"]="fast";print(json.dumps(d))' >types.json
"$runapp" report "$a" "$data/report_schema2.json" truncated.json foreign.json deep.json types.json \
    /nonexistent.json >partial.txt 2>bad.txt
code=$?
[ $code = 0 ] || fail "one bad file lost the others' rows (exit $code)"
grep -q "cuda:0" partial.txt || fail "the good file's rows are missing"
for pattern in "report_schema2.json: schema version 2" "truncated.json: not JSON or truncated" \
               "foreign.json: no \"schema\" field" "deep.json: nested deeper" \
               "types.json: results\[2\]: field 'kernel_ms' is a string" "nonexistent.json: cannot read"; do
    grep -q "$pattern" bad.txt || fail "no error '$pattern' (got: $(cat bad.txt))"
done
"$runapp" report "$a" truncated.json --strict >/dev/null 2>&1
[ $? = 2 ] || fail "--strict with a bad file did not exit 2"

# Hostile strings: escaped in the page, control characters gone from the table.
"$runapp" report "$data/report_hostile.json" --html hostile.html >hostile.txt 2>&1 || fail "hostile file: exit $?"
grep -Eqi "<script|<img|<a href=.https" hostile.html && fail "a string from a result file reached the page unescaped"
grep -q $'\033' hostile.txt && fail "an escape sequence from a result file reached the terminal"
grep -q "&lt;script&gt;" hostile.html || fail "the hostile host name is not on the page (escaped)"

# Self-contained: no script, nothing fetched (only the SVG namespace names a URL).
grep -Eio '(src|href|action)=["'"'"']?[a-z]*:?//|url\(|@import|<script|<link|<iframe' page.html \
    && fail "the page refers to something outside itself"
grep -q "Content-Security-Policy\" content=\"default-src 'none'" page.html || fail "no CSP forbidding loads"

if ! command -v chromium >/dev/null; then
    echo "chromium not installed (apt-get install chromium): the rendering checks are skipped"
    [ $fails = 0 ] && exit 77 || exit 1
fi
# Chromium: no network at all (a proxy that does not exist, every host unresolvable).
chrome=(chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions
        --proxy-server=127.0.0.1:9 "--host-resolver-rules=MAP * ~NOTFOUND"
        --user-data-dir="$work/chrome-profile" --window-size=1200,2600)
timeout 120 "${chrome[@]}" --dump-dom "file://$work/page.html" >dom.html 2>chrome-dom.log \
    || fail "chromium --dump-dom failed: $(tail -3 chrome-dom.log)"
# The known input: 19 results (6 of 25 rows gave none: a skipped, a failed, ... ) are 19 bars.
bars=$(grep -o 'class="bar s[0-9]' dom.html | wc -l)
[ "$bars" = 19 ] || fail "the DOM holds $bars bars, expected 19"
marks=$(grep -o 'class="nobar' dom.html | wc -l)
[ "$marks" -ge 2 ] || fail "the skipped and the failed variant have no marker ($marks)"
charts=$(grep -o '<svg class="chart" role="img"' dom.html | wc -l)
titled=$(grep -o '<title id="[a-z]*[0-9]*-t">' dom.html | wc -l)
[ "$charts" = 4 ] && [ "$titled" = 4 ] || fail "$charts charts, $titled titled (expected 4 and 4)"
timeout 120 "${chrome[@]}" --screenshot="$work/page.png" "file://$work/page.html" >/dev/null 2>chrome-shot.log \
    || fail "chromium --screenshot failed: $(tail -3 chrome-shot.log)"
python3 "$here/test_report_png.py" page.png || fail "the screenshot is blank"
if grep -Ei "ERR_PROXY|net::ERR|Refused to load" chrome-dom.log chrome-shot.log; then
    fail "the page tried to load something"
fi
[ $fails = 0 ] && echo "report page: all checks passed" && exit 0
exit 1
