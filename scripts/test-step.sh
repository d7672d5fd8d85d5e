#!/usr/bin/env bash
# One step of `make test` or `.ci/run`, with a time limit and nothing left behind:
#
#   scripts/test-step.sh NAME SECONDS COMMAND [ARGUMENT...]
#
# - COMMAND runs in a PID namespace of its own (unshare, as root) whose first process is this script: when
#   the step ends, times out or is killed (kill -9 included), the kernel ends every process the step started,
#   sound servers detached with setsid among them. Where a PID namespace cannot be made, every process that
#   carries the step's mark in its environment is ended instead (all that the step starts inherits it).
# - TMPDIR is a directory of the step's own, so the private servers, daemons and players it starts keep their
#   logs there. It is removed when the step passes and kept when it fails.
# - After SECONDS the step is stopped and the output names it, the tests that were running and the last lines
#   of the servers' and daemons' logs.
# - A step whose command passes but leaves processes running fails and names them: every test stops what it
#   starts.
#
# - When this script is killed (kill -9 included), the step's processes end within a second: the step holds a
#   FIFO whose only writer is this script.
#
# Exit status: COMMAND's, 124 when the limit fired, 125 when processes were left running.
set -uo pipefail

if [[ "${1:-}" == --inside ]]; then
    # Inside the namespace (or the fallback): run the command, then look for what it left running.
    shift
    mark="AUDIOSESSIOND_TEST_STEP=$AUDIOSESSIOND_TEST_STEP"
    marked_processes() { # every process but this shell and PID that carries the step's mark
        local entry
        for entry in /proc/[0-9]*; do
            ((${entry#/proc/} == $$ || ${entry#/proc/} == $1)) && continue
            tr '\0' '\n' 2>/dev/null <"$entry/environ" | grep -qxF "$mark" && echo "${entry#/proc/}"
        done
    }
    # The script that runs the step holds the only writer of this FIFO: when it dies (kill -9 included), the
    # read ends and so does everything the step started.
    exec 7<"$AUDIOSESSIOND_TEST_STEP_LIFELINE"
    (
        read -r -u 7 _
        if (($$ == 1)); then
            kill -KILL -1 2>/dev/null # every process of this namespace but its first
        else
            watcher_pid=$BASHPID
            for pid in $(marked_processes "$watcher_pid"); do kill -KILL "$pid" 2>/dev/null; done
        fi
    ) &
    watcher=$!
    "$@" 7<&- &
    wait "$!"
    status=$?
    kill "$watcher" 2>/dev/null
    # This shell and those that started it (timeout, unshare) carry the mark too.
    ancestors=" $$ "
    pid=$$
    while ((pid > 1)); do
        pid="$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)"
        [[ -n "$pid" ]] || break
        ancestors+="$pid "
    done
    leftovers() { # the step's processes other than this shell, its ancestors and its own helpers
        local entry pid
        for entry in /proc/[0-9]*; do
            pid="${entry#/proc/}"
            [[ "$ancestors" == *" $pid "* ]] && continue
            ((pid == BASHPID)) && continue
            tr '\0' '\n' 2>/dev/null <"$entry/environ" | grep -qxF "$mark" || continue
            grep -q '^State:.*[ZX]' "$entry/status" 2>/dev/null && continue
            echo "$pid"
        done
    }
    # A process may still be on its way out (a server that got SIGTERM a moment ago): give it 5 s.
    for _ in $(seq 50); do
        [[ -z "$(leftovers)" ]] && break
        sleep 0.1
    done
    left="$(leftovers)"
    if [[ -n "$left" ]]; then
        echo "test-step: $AUDIOSESSIOND_TEST_STEP left these processes running (a test did not stop what it started):" >&2
        for pid in $left; do
            printf '  %s %s\n' "$pid" "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-160)" >&2
            kill -KILL "$pid" 2>/dev/null
        done
        ((status == 0)) && status=125
    fi
    exit "$status"
fi

if (($# < 3)) || ! [[ "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/test-step.sh NAME SECONDS COMMAND [ARGUMENT...]" >&2
    exit 2
fi
name="$1" limit="$2"
shift 2
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"

# A short directory: sound servers put their sockets in it, and a socket path has at most 107 bytes.
step_tmp="$(mktemp -d /tmp/asd-step.XXXXXX)"
# Like /tmp itself: tests that run a program as another user (nobody) make their directories in it.
chmod 1777 "$step_tmp"
log="$step_tmp/step.log"
mark="$name.$$"

runner=()
if [[ "${AUDIOSESSIOND_NO_PID_NAMESPACE:-}" != 1 ]] &&
    unshare --pid --fork --kill-child --mount-proc true >/dev/null 2>&1; then
    runner=(unshare --pid --fork --kill-child --mount-proc)
fi

# The tests that had started and not ended (Swift Testing's lines), and the test cases that started last.
running_tests() {
    awk '
        /^[^ ]+ Test case .* started\.$/ { cases[++n] = $0; next }
        /^[^ ]+ Test [^ ]+ started\.$/ { running[$3] = 1; next }
        /^[^ ]+ Test [^ ]+ (with [0-9]+ test cases )?(passed|failed|skipped)/ { delete running[$3] }
        END {
            for (t in running) print "  running: " t
            for (i = (n > 5 ? n - 4 : 1); i <= n; i++) print "  case started: " substr(cases[i], 1, 200)
        }' "$log"
}

# The last lines of the logs the step's servers, daemons and players wrote, newest first.
log_tails() {
    local file
    find "$step_tmp" -name '*.log' ! -name step.log -newer "$step_tmp/.started" -type f -printf '%T@ %p\n' 2>/dev/null |
        sort -rn | head -8 | while read -r _ file; do
            printf -- '--- last lines of %s\n' "$file"
            tail -n 15 "$file"
        done
}

touch "$step_tmp/.started"
lifeline="$step_tmp/.lifeline"
mkfifo "$lifeline"
exec 8<>"$lifeline" # opened both ways so that the next open does not wait for a reader
exec 9>"$lifeline"
exec 8<&-
echo "=== test-step $name (limit ${limit} s)"
start=$SECONDS
env TMPDIR="$step_tmp" AUDIOSESSIOND_TEST_STEP="$mark" \
    AUDIOSESSIOND_TEST_STEP_LIFELINE="$lifeline" \
    timeout --kill-after=15 "$limit" "${runner[@]}" bash "$script" --inside "$@" </dev/null 9>&- 2>&1 | tee "$log" 9>&-
status=${PIPESTATUS[0]}
if [[ ${#runner[@]} -eq 0 ]]; then
    # No namespace: end whatever still carries the step's mark (the step was stopped before looking).
    for entry in /proc/[0-9]*; do
        tr '\0' '\n' 2>/dev/null <"$entry/environ" | grep -qxF "AUDIOSESSIOND_TEST_STEP=$mark" &&
            kill -KILL "${entry#/proc/}" 2>/dev/null
    done
fi
elapsed=$((SECONDS - start))

if ((status == 124 || status == 137)); then
    {
        echo "test-step: $name did not finish within $limit s and was stopped"
        running_tests
        log_tails
        echo "test-step: $name timed out after $limit s (kept: $step_tmp)"
    } >&2
    exit 124
fi
if ((status != 0)); then
    echo "test-step: $name failed (exit $status) after $elapsed s; its servers' logs are kept in $step_tmp" >&2
    exit "$status"
fi
echo "=== test-step $name passed in $elapsed s"
rm -rf "$step_tmp"
