#!/usr/bin/env bash
# `make tsan`'s test step: runs `swift test --filter SUITES` from the ThreadSanitizer build in SCRATCH, and fails
# on any report, from the test process or from a daemon or tool it started (each writes its reports to a file of
# its own under the step's TMPDIR, which scripts/test-step.sh keeps when the step fails):
#
#   scripts/tsan-test.sh SCRATCH SUITES
#
# The first report stops its process (halt_on_error). Only races inside system libraries may be suppressed
# (scripts/tsan-suppressions.txt says which and why).
set -uo pipefail
cd "$(dirname "$0")/.."
scratch=$1
suites=$2
reports="${TMPDIR:-/tmp}/tsan-reports"
mkdir -p "$reports"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan-suppressions.txt log_path=$reports/report"
"${SWIFT:-swift}" test --skip-build --sanitize=thread --scratch-path "$scratch" --filter "$suites"
status=$?
if compgen -G "$reports/report*" >/dev/null; then
    echo "tsan: ThreadSanitizer reported (one file per process, kept in $reports):" >&2
    cat "$reports"/report* >&2
    exit 1
fi
exit "$status"
