#!/usr/bin/env python3
""".ci/lsan_tracer_retry.py on made-up ctest logs: a test passed by its regular expression counts
as passed; a tracer crash (at a test's own exit, or at a child's, failing a check) is named for
the rerun; a leak, an AddressSanitizer error or a failure without the crash is not, and exits 1.

Usage: test_lsan_tracer_retry.py SOURCE_DIR WORK_DIR"""
import os
import shutil
import subprocess
import sys

src, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "Testing", "Temporary"))
script = os.path.join(src, ".ci", "lsan_tracer_retry.py")
TRACER = "Tracer caught signal 11: addr=0x0\n==1==LeakSanitizer has encountered a fatal error.\n"
failures = []


def section(i, name, body, passed):
    end = "Test Passed.\n" if passed == "passed" else (
        "Test Pass Reason:\nRequired regular expression found. Regex=[correct]\n"
        if passed == "regex" else "Test Failed.\n")
    return f'{i}/9 Test: {name}\nCommand: "{name}"\n{body}<end of output>\n{end}"{name}" end time: now\n'


def run(*tests):
    log = "".join(section(i + 1, n, b, p) for i, (n, b, p) in enumerate(tests))
    with open(os.path.join(work, "Testing", "Temporary", "LastTest.log"), "w") as f:
        f.write(log)
    r = subprocess.run([sys.executable, script, work], capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr


def check(got, want, what):
    if got != want:
        failures.append(what)
        print(f"FAIL: {what}: got {got!r}, want {want!r}")


ok = ("api_example", "vecadd ... correct\n", "regex")
unit = ("test_units", "[doctest] Status: SUCCESS!\n", "passed")
own = ("test_tuning", "[doctest] Status: SUCCESS!\n" + TRACER, "failed")
child = ("test_tuning", "child exit 1\n" + TRACER + "[doctest] Status: FAILURE!\n", "failed")
code, out, _ = run(ok, unit, own)
check((code, out), (0, "test_tuning"), "a crash at the test's exit")
code, out, _ = run(ok, child)
check((code, out), (0, "test_tuning"), "a crash at a child's exit that failed a check")
leak = ("test_apps", TRACER + "ERROR: LeakSanitizer: detected memory leaks\n", "failed")
code, out, err = run(ok, leak)
check((code, "test_apps" in err), (1, True), "a leak")
asan = ("test_apps", TRACER + "==1==ERROR: AddressSanitizer: heap-buffer-overflow\n", "failed")
check(run(ok, asan)[0], 1, "an AddressSanitizer error")
shadow = ("test_security", "==2==ERROR: AddressSanitizer failed to allocate 0xdfff0001000 bytes\n"
          "==2==ReserveShadowMemoryRange failed\n" + TRACER + "[doctest] Status: FAILURE!\n", "failed")
code, out, _ = run(ok, shadow)
check((code, out), (0, "test_security"), "a crash beside a child refused shadow memory under ulimit -v")
plain = ("test_shapes", "[doctest] Status: FAILURE!\n", "failed")
code, out, err = run(ok, own, plain)
check((code, "test_shapes" in err, "api_example" in err), (1, True, False), "a plain failure")
sys.exit(1 if failures else 0)
