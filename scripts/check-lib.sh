# Shared by the shell tests (scripts/check-*.sh): `check` counts and prints each expectation, `until_true`
# waits for a state with a limit that is only a safety net, `check_summary` ends with the closing line.
# Sourced, not run.

failures=0
passes=0

check() { # DESCRIPTION CONDITION...
    local what="$1"
    shift
    if "$@"; then
        passes=$((passes + 1))
        echo "ok: $what"
    else
        failures=$((failures + 1))
        echo "FAILED: $what" >&2
    fi
}

# until_true SECONDS COMMAND...: retries COMMAND every 0.1 s until it succeeds; false after SECONDS.
until_true() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || return 1
        sleep 0.1
    done
}

# check_summary NAME: `NAME: N passed, M failed`, and the status to exit with.
check_summary() {
    echo "$1: $passes passed, $failures failed"
    ((failures == 0))
}
