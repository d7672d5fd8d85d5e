#!/usr/bin/env bash
# Private headless sound servers for tests, CI and `make run`: a PulseAudio, or a PipeWire with pipewire-pulse
# and WirePlumber, each living in its own directory, with no sound hardware, no systemd and no D-Bus.
#
#   scripts/sound-server.sh start pulseaudio|pipewire DIR   start one in DIR; prints `export PULSE_SERVER=...`
#   scripts/sound-server.sh stop DIR                        stop what `start` started (SIGTERM, then SIGKILL)
#   scripts/sound-server.sh kill DIR                        SIGKILL it at once, to test a lost sound server
#   scripts/sound-server.sh status DIR                      exit 0 if it answers
#
# A started server has the null sinks `speaker` (the default, "Speaker") and `headphones` ("Headphones"), and the
# null source `builtInMic` (the default source). DIR/env holds the variables a client needs (`. DIR/env`),
# DIR/pids the processes, DIR/*.log their output. SOUND_SERVER_TIMEOUT (seconds, default 10) bounds each wait.
set -euo pipefail

readonly TIMEOUT="${SOUND_SERVER_TIMEOUT:-10}"
readonly EXIT_MISSING_PACKAGE=3

usage() {
    sed -n '4,8s/^#   //p' "$0" >&2
    exit 2
}

fail() {
    echo "sound-server: $*" >&2
    exit 1
}

# require COMMAND DEBIAN_PACKAGE
require() {
    command -v "$1" >/dev/null 2>&1 && return
    echo "sound-server: '$1' is not installed; install the Debian package $2 (scripts/install-deps.sh does)" >&2
    exit "$EXIT_MISSING_PACKAGE"
}

# DIR, created, as an absolute path. Paths go unquoted into module arguments and env files, hence the charset.
absolute_directory() {
    mkdir -p "$1"
    local dir
    dir="$(cd "$1" && pwd -P)"
    [[ "$dir" =~ ^[A-Za-z0-9._/+-]+$ ]] || fail "directory '$dir' must contain only letters, digits and ._/+-"
    printf '%s\n' "$dir"
}

# --- Processes: DIR/pids has one line `PID STARTTIME NAME` per process, so that a reused PID is never killed.

process_start_time() { # PID -> start time (clock ticks since boot), or nothing if gone
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    local fields
    read -r -a fields <<<"${stat##*) }"
    printf '%s\n' "${fields[19]}"
}

is_alive() { # PID STARTTIME: running (not a zombie) and still the process we started
    local stat fields
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    read -r -a fields <<<"${stat##*) }"
    [[ "${fields[19]}" == "$2" && "${fields[0]}" != [ZX] ]]
}

# launch DIR NAME COMMAND...: starts COMMAND in its own session, detached, output appended to DIR/NAME.log.
# It inherits no descriptor but 0-2: whoever ran this script may wait for a descriptor it passed down to be
# closed (Foundation's Process does, to learn that the script exited), and the server must not hold it open.
launch() {
    local dir="$1" name="$2"
    shift 2
    echo "--- $(date '+%F %T') starting $*" >>"$dir/$name.log"
    (
        close_inherited_descriptors
        exec setsid nohup "$@"
    ) >>"$dir/$name.log" 2>&1 </dev/null &
    local pid=$!
    local start_time=""
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        start_time="$(process_start_time "$pid")"
        [[ -n "$start_time" ]] && break
        sleep 0.01
    done
    [[ -n "$start_time" ]] || fail "$name exited at once; log:$(log_tail "$dir")"
    echo "$pid $start_time $name" >>"$dir/pids"
}

close_inherited_descriptors() {
    local descriptor
    for descriptor in /proc/self/fd/*; do
        descriptor="${descriptor##*/}"
        # 255 is bash's own descriptor for this script, close-on-exec anyway.
        if ((descriptor > 2 && descriptor != 255)); then
            eval "exec $descriptor>&-" 2>/dev/null || true
        fi
    done
}

# pid_lines DIR: the lines of DIR/pids (nothing if there is none).
pid_lines() {
    cat "$1/pids" 2>/dev/null || true
}

# signal_all DIR SIGNAL: sends SIGNAL to the live processes of DIR/pids, newest first.
signal_all() {
    local pid start_time name
    pid_lines "$1" | tac | while read -r pid start_time name; do
        is_alive "$pid" "$start_time" && kill "-$2" "$pid" 2>/dev/null || true
    done
}

# wait_all_gone DIR SECONDS: 0 once no process of DIR/pids is alive.
wait_all_gone() {
    local deadline=$((SECONDS + $2))
    while :; do
        any_alive "$1" || return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.05
    done
}

# first_dead DIR: the name of a process of DIR/pids that has exited, if any.
first_dead() {
    local pid start_time name
    while read -r pid start_time name; do
        is_alive "$pid" "$start_time" || {
            echo "$name"
            return
        }
    done < <(pid_lines "$1")
}

any_alive() {
    local pid start_time name
    while read -r pid start_time name; do
        is_alive "$pid" "$start_time" && return 0
    done < <(pid_lines "$1")
    return 1
}

stop_directory() { # DIR
    signal_all "$1" TERM
    if ! wait_all_gone "$1" 5; then
        signal_all "$1" KILL
        wait_all_gone "$1" 5 || fail "processes of $1 did not exit: $(pid_lines "$1")"
    fi
    rm -f "$1/pids"
}

kill_directory() { # DIR
    signal_all "$1" KILL
    wait_all_gone "$1" 5 || fail "processes of $1 did not exit after SIGKILL: $(pid_lines "$1")"
    rm -f "$1/pids"
}

log_tail() { # DIR
    local log
    for log in "$1"/*.log; do
        [[ -f "$log" ]] || continue
        printf '\n--- tail of %s\n' "$log"
        tail -n 25 "$log"
    done
}

# --- Talking to the server

server_pactl() { # pactl against $PULSE_SERVER, never hanging
    timeout 5 pactl "$@"
}

# wait_until DIR WHAT COMMAND...: retries COMMAND until it succeeds; fails early if a server process died.
wait_until() {
    local dir="$1" what="$2"
    shift 2
    local deadline=$((SECONDS + TIMEOUT)) dead
    until "$@" >/dev/null 2>&1; do
        dead="$(first_dead "$dir")"
        [[ -z "$dead" ]] || fail "$dead exited while waiting for $what; log:$(log_tail "$dir")"
        ((SECONDS < deadline)) || fail "no $what after ${TIMEOUT}s; log:$(log_tail "$dir")"
        sleep 0.05
    done
}

load_module() { # DIR MODULE ARGUMENTS...
    local dir="$1" error
    shift
    error="$(server_pactl load-module "$@" 2>&1 >/dev/null)" ||
        fail "pactl load-module $* failed: $error; log:$(log_tail "$dir")"
}

# The initial devices are all there and the defaults are set (on PipeWire, WirePlumber applies the defaults
# asynchronously, so set them again until they show).
devices_ready() {
    local sinks sources
    sinks="$(server_pactl list short sinks | cut -f2)" || return 1
    sources="$(server_pactl list short sources | cut -f2)" || return 1
    grep -qx speaker <<<"$sinks" && grep -qx headphones <<<"$sinks" && grep -qx builtInMic <<<"$sources" || return 1
    if [[ "$(server_pactl get-default-sink)" != speaker ]]; then
        server_pactl set-default-sink speaker || true
        return 1
    fi
    if [[ "$(server_pactl get-default-source)" != builtInMic ]]; then
        server_pactl set-default-source builtInMic || true
        return 1
    fi
}

# --- Servers

clean_server_environment() {
    # Nothing inherited may point the servers at another instance, a session bus or a display (D-Bus would try
    # to autolaunch a bus through X11).
    unset PULSE_SERVER PULSE_RUNTIME_PATH PULSE_STATE_PATH PULSE_CONFIG_PATH PULSE_COOKIE PULSE_SINK PULSE_SOURCE
    unset PIPEWIRE_REMOTE PIPEWIRE_RUNTIME_DIR PIPEWIRE_CONFIG_DIR PIPEWIRE_CONFIG_NAME
    unset DBUS_SESSION_BUS_ADDRESS DISPLAY WAYLAND_DISPLAY
    export HOME="$1/home" XDG_RUNTIME_DIR="$1/rt" XDG_CONFIG_HOME="$1/home/.config"
    export XDG_STATE_HOME="$1/home/.local/state" XDG_DATA_HOME="$1/home/.local/share"
    mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_DATA_HOME"
    chmod 700 "$XDG_RUNTIME_DIR"
}

start_pulseaudio() { # DIR
    local dir="$1"
    require pulseaudio pulseaudio
    require pactl pulseaudio-utils
    clean_server_environment "$dir"
    export PULSE_SERVER="unix:$dir/native"
    # -n: no default.pa, so no stream-restore, role-cork or switch-on-port-available unless loaded later.
    # .fail: any error stops the server at once. The socket comes last, so that the server answers only once
    # the devices and defaults are in place.
    cat >"$dir/pa.pa" <<PA
.fail
load-module module-null-sink sink_name=speaker sink_properties="device.description='Speaker'"
load-module module-null-sink sink_name=headphones sink_properties="device.description='Headphones'"
load-module module-null-source source_name=builtInMic description=Microphone
set-default-sink speaker
set-default-source builtInMic
load-module module-native-protocol-unix auth-anonymous=1 socket=$dir/native
PA
    launch "$dir" pulseaudio pulseaudio -n -F "$dir/pa.pa" --daemonize=no --use-pid-file=false \
        --exit-idle-time=-1 --system=false --realtime=false --high-priority=false --log-target=stderr
    wait_until "$dir" "answer from PulseAudio at $PULSE_SERVER" server_pactl info
    wait_until "$dir" "initial sinks and source" devices_ready
    echo "export PULSE_SERVER=$PULSE_SERVER" >"$dir/env"
}

start_pipewire() { # DIR
    local dir="$1"
    require pipewire pipewire
    require wireplumber wireplumber
    require pipewire-pulse pipewire-pulse
    require pactl pulseaudio-utils
    clean_server_environment "$dir"
    export PULSE_SERVER="unix:$XDG_RUNTIME_DIR/pulse/native"
    # Without these WirePlumber needs D-Bus and exits at once.
    mkdir -p "$XDG_CONFIG_HOME/wireplumber/main.lua.d" "$XDG_CONFIG_HOME/wireplumber/bluetooth.lua.d"
    cat >"$XDG_CONFIG_HOME/wireplumber/main.lua.d/51-no-dbus.lua" <<'LUA'
alsa_monitor.properties["alsa.reserve"] = false
default_access.properties["enable-flatpak-portal"] = false
LUA
    echo 'bluez_monitor.enabled = false' >"$XDG_CONFIG_HOME/wireplumber/bluetooth.lua.d/51-no-bluez.lua"

    # A restart after a kill finds the dead server's socket still there: waiting for the file would not wait for
    # the new server, whose clients then fail with "Host is down". Nothing runs in DIR now (see start).
    rm -f "$XDG_RUNTIME_DIR"/pipewire-0 "$XDG_RUNTIME_DIR"/pipewire-0.lock "$XDG_RUNTIME_DIR"/pipewire-0-manager \
        "$XDG_RUNTIME_DIR"/pipewire-0-manager.lock
    launch "$dir" pipewire pipewire
    # Its clients give up at once when the PipeWire socket is not there yet.
    wait_until "$dir" "PipeWire socket $XDG_RUNTIME_DIR/pipewire-0" test -S "$XDG_RUNTIME_DIR/pipewire-0"
    launch "$dir" wireplumber wireplumber
    launch "$dir" pipewire-pulse pipewire-pulse
    wait_until "$dir" "answer from pipewire-pulse at $PULSE_SERVER" server_pactl info
    load_module "$dir" module-null-sink sink_name=speaker "sink_properties=\"device.description='Speaker'\""
    load_module "$dir" module-null-sink sink_name=headphones "sink_properties=\"device.description='Headphones'\""
    # pipewire-pulse has no module-null-source: a null sink of class Audio/Source/Virtual is one.
    load_module "$dir" module-null-sink media.class=Audio/Source/Virtual sink_name=builtInMic \
        "sink_properties=\"device.description='Microphone'\""
    wait_until "$dir" "initial sinks, source and defaults (WirePlumber)" devices_ready
    {
        echo "export PULSE_SERVER=$PULSE_SERVER"
        echo "export XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"
        echo "export XDG_CONFIG_HOME=$XDG_CONFIG_HOME"
        echo "export XDG_STATE_HOME=$XDG_STATE_HOME"
        echo "export XDG_DATA_HOME=$XDG_DATA_HOME"
    } >"$dir/env"
}

# --- Commands

start() { # KIND DIR
    local kind="$1" dir
    dir="$(absolute_directory "$2")"
    any_alive "$dir" && fail "a sound server is already running in $dir (stop it first)"
    rm -f "$dir/pids" "$dir/env"
    : >"$dir/pids"
    local socket
    case "$kind" in
    pulseaudio) socket="$dir/native" ;;
    pipewire) socket="$dir/rt/pulse/native" ;;
    *) usage ;;
    esac
    ((${#socket} <= 107)) || fail "socket path $socket is longer than 107 bytes; use a shorter directory"
    # Whatever fails or interrupts the start leaves nothing running.
    trap 'rc=$?; if ((rc != 0)); then kill_directory "'"$dir"'" 2>/dev/null || true; fi' EXIT
    "start_$kind" "$dir"
    trap - EXIT
    grep '^export PULSE_SERVER=' "$dir/env"
}

status() { # DIR
    local dir="$1"
    [[ -f "$dir/env" ]] || return 1
    (
        # shellcheck disable=SC1091
        . "$dir/env"
        timeout 3 pactl info >/dev/null 2>&1
    )
}

main() {
    (($# >= 2)) || usage
    case "$1" in
    start)
        (($# == 3)) || usage
        start "$2" "$3"
        ;;
    stop)
        (($# == 2)) || usage
        [[ -d "$2" ]] || return 0
        stop_directory "$2"
        ;;
    kill)
        (($# == 2)) || usage
        [[ -d "$2" ]] || return 0
        kill_directory "$2"
        ;;
    status)
        (($# == 2)) || usage
        status "$2"
        ;;
    *) usage ;;
    esac
}

main "$@"
