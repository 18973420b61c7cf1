#!/usr/bin/env python3
"""Which failed tests of a ctest run failed only because LeakSanitizer's own tracer crashed.

    .ci/lsan_tracer_retry.py BUILD_DIR

Reads BUILD_DIR/Testing/Temporary/LastTest.log. Prints the names of the failed tests whose
output shows LeakSanitizer's tracer crashing ("Tracer caught signal", "LeakSanitizer has
encountered a fatal error") and no leak report, no AddressSanitizer error and no undefined
behaviour: those are rerun once, alone, by .ci/run, and must pass then. Exit 0 when every failed
test is such a crash (the names on stdout), 1 when any failed for another reason (named on
stderr) or the log cannot be read. Tests that passed by ctest's PASS_REGULAR_EXPRESSION ("Test
Pass Reason:") count as passed.

Why: in about 1 of 7 sanitizer passes test_tuning, after all its cases and assertions passed,
ended with "Tracer caught signal 11" (LeakSanitizer's thread-stopping tracer crashing, not a
leak, not a test failure; not reproduced in 10 reruns). On 2026-11-26 the tracer crashed at the
exit of a runapp that test_tuning runs as a child, whose exit status then failed a check: the
crash's signature in the output is what counts, and the rerun decides. A real leak prints
"detected memory leaks" and is not retried. On 2026-12-07 it crashed at the exit of a runapp that
test_security runs, in a test whose log also holds an expected "ERROR: AddressSanitizer failed
to allocate" (a child started under ulimit -v): that line is not an AddressSanitizer report.
On 2026-12-08 it crashed at the exit of the same test's child twice in a row (the rerun too):
the tests' runapp() helper (tests/runapp_child.hpp) now runs such a child once more itself.
"""
import re
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        text = open(sys.argv[1] + "/Testing/Temporary/LastTest.log", errors="replace").read()
    except OSError as e:
        print(f"lsan_tracer_retry: {e}", file=sys.stderr)
        return 1
    sections = re.findall(r'^\d+/\d+ Test: (\S+)\n(.*?)^"\1" end time', text, re.M | re.S)
    if not sections:
        print("lsan_tracer_retry: no test sections in LastTest.log", file=sys.stderr)
        return 1
    retry, other = [], []
    for name, body in sections:
        if "Test Passed." in body or "Test Pass Reason:" in body:
            continue
        tracer = "Tracer caught signal" in body and "LeakSanitizer has encountered a fatal error" in body
        # "ERROR: AddressSanitizer:" starts a report; "ERROR: AddressSanitizer failed to
        # allocate" is a child refused its shadow memory under ulimit -v, which the security
        # tests expect and log.
        clean = ("detected memory leaks" not in body and "runtime error:" not in body
                 and "ERROR: AddressSanitizer:" not in body)
        (retry if tracer and clean else other).append(name)
    if other:
        print("lsan_tracer_retry: failed for other reasons: " + " ".join(other), file=sys.stderr)
        return 1
    print(" ".join(retry))
    return 0


if __name__ == "__main__":
    sys.exit(main())
