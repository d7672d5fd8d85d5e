#!/usr/bin/env bash
# Writes Sources/audiosessiond/symbol-order.txt: the functions the release daemon runs once started (an unaware
# call, a client's call session, a while idle), then those it ran only to start, as valgrind's callgrind saw them.
# lld lays them out first, in that order (Package.swift), so that the code a running daemon uses lies together
# at the start of its code instead of spread over the whole binary, where the kernel maps 64 KB around each page
# touched; start-up's, after it, is given back once the daemon has started (StartupCode; docs/BENCHMARKS.md,
# "The daemon's code order").
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

# Start-up's profile: everything the daemon ran until it connected, took the server's inventory and idled a while.
sleep 2
dump() {
    callgrind_control --dump "$profiled" >/dev/null 2>&1
    for ((i = 0; i < TIMEOUT; i++)); do
        [ -s "$work/profile.$1" ] && return 0
        sleep 1
    done
    echo "symbol-order: callgrind wrote no profile.$1 within $TIMEOUT s" >&2
    exit 1
}
dump 1

# A running daemon's (each dump counts from the one before): an unaware call interrupts unaware music; then a
# client's call session does; then the daemon idles.
paplay --raw --property=media.role=music --property=application.name=music /dev/zero &
music=$!
sleep 2
timeout 3 paplay --raw --property=media.role=phone --property=application.name=phone /dev/zero || true
sleep 2
"$bin/audiosessionctl" run --quiet --category playAndRecord --mode voiceChat -- sleep 2
sleep 3
"$bin/audiosessionctl" status >/dev/null
dump 2
kill -KILL "$profiled" && wait "$profiled" 2>/dev/null || true
profiled=""

# Every function of the binary that ran in a profile, by its symbol (callgrind marks a recursive call's frames
# NAME'2 and so on), sorted, so a new run's changes read as a diff.
functions() {
    callgrind_annotate --threshold=100 --inclusive=no "$1" |
        sed -n "s|^ *[0-9,]* ([^)]*) *???:\(.*\) \[$work/audiosessiond\]\$|\1|p" |
        sed "s/'[0-9]*\$//" |
        LC_ALL=C sort -u
}
functions "$work/profile.2" >"$work/running"
functions "$work/profile.1" | LC_ALL=C comm -23 - "$work/running" >"$work/startup"
# The running daemon's functions first, start-up's after them: the daemon gives start-up's pages back once it has
# started (StartupCode), and what it runs after lies together at the start of its code.
{
    echo "# Run by a started daemon (scripts/symbol-order.sh writes this file)"
    cat "$work/running"
    echo "# Run only while it starts"
    cat "$work/startup"
} >"$work/order"
count=$(grep -cv '^#' "$work/order")
((count > 1000)) || { echo "symbol-order: only $count functions profiled; not written" >&2; exit 1; }
grep -v '^#' "$work/order" | LC_ALL=C sort -u >"$work/now"
grep -v '^#' "$CHECKED_IN" | LC_ALL=C sort -u >"$work/before"
listed=$(LC_ALL=C comm -12 "$work/now" "$work/before" | wc -l)
echo "symbol-order: $listed of the $count functions that ran are in $CHECKED_IN ($(wc -l <"$work/before") listed)"
mv "$work/order" "$OUT"
echo "symbol-order: $count functions written to $OUT ($(wc -l <"$work/running") run by the started daemon)"
