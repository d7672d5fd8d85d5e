#!/usr/bin/env bash
# `make run`: runs audiosessiond on the sound server this session has, or, when there is none, on a private
# headless PulseAudio with virtual devices (null sinks `speaker` and `headphones`, a null source `builtInMic`):
# the embedded default. Ctrl-C stops the daemon (which gives every stream back its user's values) and the
# private server.
set -euo pipefail
cd "$(dirname "$0")/.."

daemon=.build/debug/audiosessiond
runtime="${XDG_RUNTIME_DIR:-/tmp/audiosessiond-$(id -u)}"
socket="$runtime/audiosessiond/control"
private_dir=""

if pactl info >/dev/null 2>&1; then
    echo "run-daemon: using the running sound server ($(pactl info | sed -n 's/^Server Name: //p'))"
else
    private_dir="$runtime/audiosessiond-embedded"
    scripts/sound-server.sh stop "$private_dir" >/dev/null 2>&1 || true
    scripts/sound-server.sh start pulseaudio "$private_dir" >/dev/null
    # shellcheck disable=SC1091
    source "$private_dir/env"
    echo "run-daemon: no sound server here; started a private PulseAudio ($PULSE_SERVER)"
    echo "run-daemon: devices: speaker, headphones (plug/unplug: pactl unload-module / load-module module-null-sink sink_name=headphones)"
fi

cleanup() {
    if [ -n "$private_dir" ]; then scripts/sound-server.sh stop "$private_dir" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

sound=/usr/share/sounds/alsa/Front_Center.wav   # from alsa-utils, which make deps installs
cat <<EOT
run-daemon: control socket $socket
run-daemon: try, in another terminal:
${PULSE_SERVER:+    export PULSE_SERVER=$PULSE_SERVER
}    export AUDIOSESSIOND_SOCKET=$socket
    .build/debug/audiosessionctl status
    PULSE_PROP=media.role=music paplay $sound                  # an unaware music app
    PULSE_PROP=media.role=phone paplay $sound                  # an unaware call: interrupts the music
    .build/debug/audiosessionctl run --category playback -- paplay $sound
    .build/debug/audiosessionctl play $sound --category playback    # an ALSA player that obeys its session
    .build/debug/audiosessionctl record memo.wav --category record --duration 3
    .build/debug/podcast-player            # the examples: podcast-player, navigation-prompt, voip-call
EOT
# A state directory of its own: a try-out as root must not write the system-wide /var/lib/audiosessiond.
"$daemon" --socket "$socket" --state-dir "$runtime/audiosessiond-run-state" \
    ${PULSE_SERVER:+--pulse-server "$PULSE_SERVER"} "$@" &
daemon_pid=$!
trap 'kill -TERM $daemon_pid 2>/dev/null || true' INT TERM
wait $daemon_pid || true
wait $daemon_pid 2>/dev/null || true
