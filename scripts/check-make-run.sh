#!/usr/bin/env bash
# `make run` as the README shows it, on a machine with no sound server (a runtime directory of its own, no
# PULSE_SERVER): the daemon comes up on the embedded default, answers `audiosessionctl status` as the printed
# hints run it, an unaware call (the hint's `paplay` with media.role=phone) silences an unaware music stream and
# gives it back, and Ctrl-C (SIGINT to the foreground process group) leaves no daemon, server or socket.
# Every wait is for a state or an exit, with a limit of seconds as a safety net.
set -uo pipefail
cd "$(dirname "$0")/.."
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

runtime="$(mktemp -d /tmp/asd-run.XXXXXX)"
chmod 700 "$runtime"
log="$runtime/make-run.log"
music_pid=""
cleanup() {
    [[ -n "$music_pid" ]] && kill "$music_pid" 2>/dev/null
    [[ -n "${make_pid:-}" ]] && kill -KILL -- "-$make_pid" 2>/dev/null
    scripts/sound-server.sh kill "$runtime/audiosessiond-embedded" >/dev/null 2>&1
    rm -rf "$runtime"
}
trap cleanup EXIT

# As a new user in a terminal: `make run` in the foreground process group of its own.
env -u PULSE_SERVER -u AUDIOSESSIOND_SOCKET XDG_RUNTIME_DIR="$runtime" setsid make run >"$log" 2>&1 </dev/null &
make_pid=$!

# The hints `make run` prints: the PULSE_SERVER and socket to export.
until_true 600 grep -q 'export AUDIOSESSIOND_SOCKET=' "$log"
check "make run prints what to try" grep -q 'export AUDIOSESSIOND_SOCKET=' "$log"
pulse_server="$(sed -n 's/^ *export PULSE_SERVER=//p' "$log" | head -1)"
socket="$(sed -n 's/^ *export AUDIOSESSIOND_SOCKET=//p' "$log" | head -1)"
check "it started the embedded default (a private PulseAudio)" grep -q 'started a private PulseAudio' "$log"
export PULSE_SERVER="$pulse_server" AUDIOSESSIOND_SOCKET="$socket"

# `.build/debug/audiosessionctl status`, as printed.
until_true 30 .build/debug/audiosessionctl status
check "the daemon answers audiosessionctl status" .build/debug/audiosessionctl status

# An unaware music stream that plays until stopped, then the hint's unaware call.
PULSE_PROP=media.role=music pacat --playback /dev/zero >/dev/null 2>&1 &
music_pid=$!
music_muted() { # yes/no, as the server reports the music stream's mute
    pactl list sink-inputs | awk '/^Sink Input/ { mute = "" } /Mute:/ { mute = $2 } /media.role = "music"/ { print mute }'
}
music_is() { test "$(music_muted)" = "$1"; }
until_true 10 music_is no
check "the unaware music plays, audible" music_is no
sound=/usr/share/sounds/alsa/Front_Center.wav
PULSE_PROP=media.role=phone paplay "$sound" &
call_pid=$!
check "the unaware call silences the music" until_true 10 music_is yes
wait "$call_pid"
check "the music is heard again after the call" until_true 10 music_is no
kill "$music_pid" 2>/dev/null
wait "$music_pid" 2>/dev/null
music_pid=""

# Ctrl-C: SIGINT to the process group `make run` leads.
kill -INT -- "-$make_pid"
exited() { ! kill -0 "$make_pid" 2>/dev/null; }
check "make run ends on Ctrl-C" until_true 20 exited
wait "$make_pid" 2>/dev/null
make_pid=""
leftover() { # processes that still use the runtime directory (a daemon, a server)
    local entry
    for entry in /proc/[0-9]*; do
        tr '\0' '\n' 2>/dev/null <"$entry/environ" | grep -qxF "XDG_RUNTIME_DIR=$runtime" && return 0
        tr '\0' ' ' 2>/dev/null <"$entry/cmdline" | grep -qF "$runtime" && return 0
    done
    return 1
}
nothing_left() { ! leftover; }
check "no daemon or server is left running" until_true 10 nothing_left
check "no socket is left behind ($socket)" test ! -e "$socket"
check "the private server's directory holds no server" test ! -s "$runtime/audiosessiond-embedded/pids"

echo "make run: $passes passed, $failures failed"
((failures == 0))
