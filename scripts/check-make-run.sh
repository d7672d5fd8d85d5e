#!/usr/bin/env bash
# `make run` as the README shows it, twice: on a machine with no sound server (a runtime directory of its own,
# no PULSE_SERVER), where the daemon comes up on the embedded default (a private PulseAudio), and on one whose
# session has a running sound server (a private PipeWire with pipewire-pulse, PULSE_SERVER set), which the
# daemon uses. Each time the daemon answers `audiosessionctl status` as the printed hints run it, an unaware call
# (the hint's `paplay` with media.role=phone) silences an unaware music stream and gives it back, and Ctrl-C
# (SIGINT to the foreground process group) leaves no daemon, embedded server or socket; the session's own server
# is left running.
# Before both, without a Swift toolchain on PATH, `make run` fails with one line saying what to install.
# Every wait is for a state or an exit, with a limit of seconds as a safety net.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/check-lib.sh
. scripts/check-lib.sh


music_pid=""
make_pid=""
runtime=""
session_server=""
cleanup() {
    [[ -n "$music_pid" ]] && kill "$music_pid" 2>/dev/null
    [[ -n "$make_pid" ]] && kill -KILL -- "-$make_pid" 2>/dev/null
    [[ -n "$runtime" ]] && scripts/sound-server.sh kill "$runtime/audiosessiond-embedded" >/dev/null 2>&1
    [[ -n "$session_server" ]] && scripts/sound-server.sh kill "$session_server" >/dev/null 2>&1
    [[ -n "$runtime" ]] && rm -rf "$runtime"
    [[ -n "$session_server" ]] && rm -rf "$session_server"
}
trap cleanup EXIT

music_silenced() { # yes/no, as the server reports the music stream: muted, or at volume 0 on every channel
    # (the policy silences with a volume of 0 and leaves the mute flag to the user, docs/RELIABILITY.md).
    pactl list sink-inputs | awk '
        /^Sink Input/ { mute = ""; loud = 0 }
        /^[[:space:]]*Mute:/ { mute = $2 }
        /^[[:space:]]*Volume:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && $i > 0) loud = 1 }
        /media.role = "music"/ { print (mute == "yes" || !loud) ? "yes" : "no" }'
}
music_is() { test "$(music_silenced)" = "$1"; }

# try_make_run WHAT: `make run` in the foreground process group of its own, as in a terminal, with this
# shell's PULSE_SERVER (unset: no sound server); WHAT names the case in the messages.
try_make_run() {
    local what="$1"
    runtime="$(mktemp -d /tmp/asd-run.XXXXXX)"
    chmod 700 "$runtime"
    local log="$runtime/make-run.log"
    env -u AUDIOSESSIOND_SOCKET XDG_RUNTIME_DIR="$runtime" setsid make run >"$log" 2>&1 </dev/null &
    make_pid=$!

    # The hints `make run` prints: the PULSE_SERVER and socket to export.
    until_true 600 grep -q 'export AUDIOSESSIOND_SOCKET=' "$log"
    check "$what: make run prints what to try" grep -q 'export AUDIOSESSIOND_SOCKET=' "$log"
    local socket
    socket="$(sed -n 's/^ *export AUDIOSESSIOND_SOCKET=//p' "$log" | head -1)"
    if [[ -z "${PULSE_SERVER:-}" ]]; then
        check "$what: it started the embedded default (a private PulseAudio)" grep -q 'started a private PulseAudio' "$log"
        export PULSE_SERVER
        PULSE_SERVER="$(sed -n 's/^ *export PULSE_SERVER=//p' "$log" | head -1)"
    else
        check "$what: it uses the session's sound server" grep -q 'using the running sound server' "$log"
    fi
    export AUDIOSESSIOND_SOCKET="$socket"

    # `.build/debug/audiosessionctl status`, as printed.
    until_true 30 .build/debug/audiosessionctl status
    check "$what: the daemon answers audiosessionctl status" .build/debug/audiosessionctl status

    # An unaware music stream that plays until stopped, then the hint's unaware call.
    PULSE_PROP=media.role=music pacat --playback /dev/zero >/dev/null 2>&1 &
    music_pid=$!
    until_true 10 music_is no
    check "$what: the unaware music plays, audible" music_is no
    PULSE_PROP=media.role=phone paplay /usr/share/sounds/alsa/Front_Center.wav &
    local call_pid=$!
    check "$what: the unaware call silences the music" until_true 10 music_is yes
    wait "$call_pid"
    check "$what: the music is heard again after the call" until_true 10 music_is no
    kill "$music_pid" 2>/dev/null
    wait "$music_pid" 2>/dev/null
    music_pid=""

    # Ctrl-C: SIGINT to the process group `make run` leads.
    kill -INT -- "-$make_pid"
    exited() { ! kill -0 "$make_pid" 2>/dev/null; }
    check "$what: make run ends on Ctrl-C" until_true 20 exited
    wait "$make_pid" 2>/dev/null
    make_pid=""
    leftover() { # processes that still use the runtime directory (a daemon, an embedded server)
        local entry
        for entry in /proc/[0-9]*; do
            tr '\0' '\n' 2>/dev/null <"$entry/environ" | grep -qxF "XDG_RUNTIME_DIR=$runtime" && return 0
            tr '\0' ' ' 2>/dev/null <"$entry/cmdline" | grep -qF "$runtime" && return 0
        done
        return 1
    }
    nothing_left() { ! leftover; }
    check "$what: no daemon or embedded server is left running" until_true 10 nothing_left
    check "$what: no socket is left behind ($socket)" test ! -e "$socket"
    check "$what: the embedded server's directory holds no server" test ! -s "$runtime/audiosessiond-embedded/pids"
    rm -rf "$runtime"
    runtime=""
}

# 0. No Swift toolchain on PATH: one line that says what to install, and a failing status.
no_swift_path=""
for directory in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
    [[ -x "$directory/swift" ]] || no_swift_path+="${no_swift_path:+:}$directory"
done
no_swift_output="$(env PATH="$no_swift_path" make --no-print-directory run 2>&1)"
no_swift_status=$?
check "no Swift toolchain: make run fails" test "$no_swift_status" -ne 0
check "no Swift toolchain: it says what to install (got: $no_swift_output)" \
    grep -q 'install-deps: no Swift toolchain on PATH; install Swift 6' <<<"$no_swift_output"

# 1. No sound server here.
unset PULSE_SERVER
try_make_run "no sound server"

# 2. The session has one: a PipeWire with pipewire-pulse, as on a desktop.
session_server="$(mktemp -d /tmp/asd-session.XXXXXX)"
export PULSE_SERVER
PULSE_SERVER="$(scripts/sound-server.sh start pipewire "$session_server" | sed -n 's/^export PULSE_SERVER=//p')"
try_make_run "a running PipeWire"
server_answers() { pactl info >/dev/null 2>&1; }
check "a running PipeWire: the session's own server is left running" server_answers
scripts/sound-server.sh stop "$session_server" >/dev/null 2>&1
rm -rf "$session_server"
session_server=""

check_summary "make run"
