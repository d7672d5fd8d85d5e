#!/usr/bin/env bash
# Writes Sources/audiosessiond/symbol-order.txt: the functions the release daemon runs from its start through an
# unaware call, a client's call session and a while idle, as valgrind's callgrind saw them. lld puts these first
# in the daemon's code (Package.swift), so that the code a running daemon uses lies together instead of spread
# over the whole binary, where the kernel maps 64 KB around each page touched (docs/BENCHMARKS.md, "The
# daemon's code order").
#
#   scripts/symbol-order.sh     needs valgrind (Debian package valgrind); starts its own private PulseAudio
#
# SYMBOL_ORDER_OUT names another file to write (CI writes one in .build, to keep this script working and to print
# how far the checked-in order has drifted from what the daemon runs now). `make symbol-order` runs it.
#
# Run it again after large changes to the daemon or its dependencies: names it lists that no longer exist are
# passed over by the linker, and the daemon's resident memory (`make bench-daemon`, rss_idle_mb) drifts back up.
# The order changes where code lies, never what it does.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { echo "symbol-order: valgrind is not installed (apt-get install valgrind)" >&2; exit 3; }
readonly TIMEOUT="${SYMBOL_ORDER_TIMEOUT:-120}"
readonly CHECKED_IN=Sources/audiosessiond/symbol-order.txt
readonly OUT="${SYMBOL_ORDER_OUT:-$CHECKED_IN}"

swift build -c release --product audiosessiond
swift build -c release --product audiosessionctl
bin="$(swift build -c release --show-bin-path)"

work="$(mktemp -d "${TMPDIR:-/tmp}/asd-symbol-order.XXXXXX")"
music=""
profiled=""
cleanup() {
    [ -n "$music" ] && kill "$music" 2>/dev/null || true
    [ -n "$profiled" ] && kill -KILL "$profiled" 2>/dev/null || true
    scripts/sound-server.sh stop "$work/server" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

scripts/sound-server.sh start pulseaudio "$work/server" >/dev/null
# shellcheck disable=SC1091
source "$work/server/env"
export AUDIOSESSIOND_SOCKET="$work/control"

# valgrind cannot read the DWARF lld writes; a copy without it keeps the symbol table, which is all this needs.
strip --strip-debug -o "$work/audiosessiond" "$bin/audiosessiond"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/profile" \
    "$work/audiosessiond" --socket "$work/control" --state-dir "$work/state" \
    --session-bus none --system-bus none --dbus-interface none 2>"$work/daemon.log" &
profiled=$!
for ((i = 0; i < TIMEOUT; i++)); do
    [ -S "$work/control" ] && break
    kill -0 "$profiled" 2>/dev/null || { cat "$work/daemon.log" >&2; exit 1; }
    sleep 1
done
[ -S "$work/control" ] || { echo "symbol-order: the daemon's socket did not appear within $TIMEOUT s" >&2; exit 1; }

# An unaware call interrupts unaware music; then a client's call session does; then the daemon idles.
paplay --raw --property=media.role=music --property=application.name=music /dev/zero &
music=$!
sleep 2
timeout 3 paplay --raw --property=media.role=phone --property=application.name=phone /dev/zero || true
sleep 2
"$bin/audiosessionctl" run --quiet --category playAndRecord --mode voiceChat -- sleep 2
sleep 3
"$bin/audiosessionctl" status >/dev/null

# What ran until now, not the shutdown: a dump of the profile so far, then the daemon is stopped.
callgrind_control --dump "$profiled" >/dev/null
for ((i = 0; i < TIMEOUT; i++)); do
    [ -s "$work/profile.1" ] && break
    sleep 1
done
kill -KILL "$profiled" && wait "$profiled" 2>/dev/null || true
profiled=""

# Every function of the binary that ran, by its symbol (callgrind marks a recursive call's frames NAME'2 and
# so on); sorted, so a new run's changes read as a diff.
callgrind_annotate --threshold=100 --inclusive=no "$work/profile.1" |
    sed -n "s|^ *[0-9,]* ([^)]*) *???:\(.*\) \[$work/audiosessiond\]\$|\1|p" |
    sed "s/'[0-9]*\$//" |
    LC_ALL=C sort -u >"$work/order"
count=$(wc -l <"$work/order")
((count > 1000)) || { echo "symbol-order: only $count functions profiled; not written" >&2; exit 1; }
listed=$(LC_ALL=C comm -12 "$work/order" "$CHECKED_IN" | wc -l)
echo "symbol-order: $listed of the $count functions that ran are in $CHECKED_IN ($(wc -l <"$CHECKED_IN") listed)"
mv "$work/order" "$OUT"
echo "symbol-order: $count functions written to $OUT"
