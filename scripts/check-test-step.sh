#!/usr/bin/env bash
# Tests of scripts/test-step.sh, the harness every step of `make test` runs in: a process a step leaves behind
# fails the step and is ended, a step over its limit is stopped naming its running test and its logs, and a
# step whose runner is killed with SIGKILL leaves nothing running. Each case waits on process exits, with
# limits of seconds only as a safety net.
set -uo pipefail
cd "$(dirname "$0")/.."
step="$PWD/scripts/test-step.sh"
# shellcheck source=scripts/check-lib.sh
. scripts/check-lib.sh

# A process whose command line holds TOKEN is running.
running() { pgrep -f -- "$1" >/dev/null; }

# Waits until no process holds TOKEN in its command line; false after SECONDS.
gone_within() { # TOKEN SECONDS
    local deadline=$((SECONDS + $2))
    while running "$1"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.1
    done
}

# A number no other process has in its command line: `sleep` with it is this test's own.
token() { echo "$((1000000 + RANDOM * 32 + $$ % 32)).$1"; }

# 1. A step that passes but leaves a detached process running fails (125), names it, and ends it.
leak="$(token 1)"
output="$("$step" leak 30 bash -c "setsid sleep $leak </dev/null >/dev/null 2>&1 & exit 0" 2>&1)"
status=$?
check "a step that leaves a process running fails with 125 (got $status)" test "$status" -eq 125
check "the leftover is named" grep -q "sleep $leak" <<<"$output"
check "the leftover is ended" gone_within "$leak" 5

# 2. A step over its limit is stopped (124), names the step and the test that was running, and shows the
#    logs written in its TMPDIR.
hang="$(token 2)"
output="$("$step" hang 2 bash -c "echo '◇ Test waitsForever() started.'; echo 'server said goodbye' >\"\$TMPDIR/server.log\"; sleep $hang" 2>&1)"
status=$?
check "a step over its limit exits 124 (got $status)" test "$status" -eq 124
check "the timeout names the step" grep -q "hang did not finish within 2 s" <<<"$output"
check "the timeout names the running test" grep -q "running: waitsForever()" <<<"$output"
check "the timeout shows the logs' last lines" grep -q "server said goodbye" <<<"$output"
check "the hung command is ended" gone_within "$hang" 5
rm -rf "$(grep -o '/tmp/asd-step\.[A-Za-z0-9]*' <<<"$output" | head -1)"

# 3. SIGKILL to the step's runner: the command and the processes it detached end.
killed="$(token 3)"
started="$(mktemp -u /tmp/asd-check.XXXXXX)"
"$step" killed 60 bash -c "setsid sleep $killed </dev/null >/dev/null 2>&1 & touch $started; sleep $killed" >/dev/null 2>&1 &
runner=$!
deadline=$((SECONDS + 20))
until [[ -e "$started" ]] || ((SECONDS >= deadline)); do sleep 0.1; done
check "the killed step's command had started" test -e "$started"
kill -KILL "$runner"
wait "$runner" 2>/dev/null
check "after SIGKILL to the runner its processes end" gone_within "$killed" 10
rm -f "$started"
pkill -KILL -f -- "$killed" 2>/dev/null

# 4. A step that passes and leaves nothing passes, with its command's output.
output="$("$step" quiet 30 echo all-well 2>&1)"
status=$?
check "a clean step passes (got $status)" test "$status" -eq 0
check "a clean step shows its output" grep -q all-well <<<"$output"

check_summary "test-step harness"
