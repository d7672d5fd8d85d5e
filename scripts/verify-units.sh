#!/usr/bin/env bash
# Checks `make install` / `make uninstall` and the systemd units they install, without systemd as PID 1:
#   1. `make install DESTDIR=<temporary>` with PREFIX=/usr (configuration in /etc) and with the default /usr/local
#      (configuration in /usr/local/etc) puts every file where docs/SYSTEMD.md says, fills in every placeholder,
#      and `make uninstall` with the same DESTDIR and PREFIX removes every file it put there;
#   2. `systemd-analyze verify` (system units) and `systemd-analyze --user verify` (user units) accept the units as
#      installed with PREFIX=<temporary> and no DESTDIR, so that ExecStart= names a binary that exists (a DESTDIR
#      install names /usr/bin/..., which is not there; `--root=DESTDIR` finds no sysinit.target and does not work
#      with --user). Any line systemd-analyze prints fails the check: an unknown key or a value it cannot parse is
#      only a warning to systemd, with exit status 0.
# The binaries are the debug build `make test` made (CONFIGURATION=debug; a release build takes minutes): the units
# and the install rules are what is checked here. The manual pages and completions install generates (`make
# manuals`) are checked for being there and gone again; what is in them is scripts/check-manuals.sh's concern.
# `make test` runs it; so can you: scripts/verify-units.sh (SCRATCH=DIR for another build folder than .build)
set -euo pipefail
cd "$(dirname "$0")/.."

CONFIGURATION="${CONFIGURATION:-debug}"
if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "verify-units: systemd-analyze is missing; install the Debian package systemd (make deps does)" >&2
    exit 1
fi

work="$(mktemp -d /tmp/audiosessiond-units-XXXXXX)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "verify-units: FAIL: $*" >&2
    failures=$((failures + 1))
}

# Installs into DESTDIR $work/$1 with PREFIX=$2, checks what is there, uninstalls, checks nothing is left.
check_staged_install() {
    local destdir="$work/$1" prefix="$2" sysconfdir="$3"
    install_into "$destdir" "$prefix" || return 0
    local expected=(
        "$prefix/bin/audiosessiond" "$prefix/bin/audiosessionctl"
        "$sysconfdir/audiosessiond/policy.yaml"
        "$prefix/lib/systemd/user/audiosessiond.service" "$prefix/lib/systemd/user/audiosessiond.socket"
        "$prefix/lib/systemd/system/audiosessiond.service" "$prefix/lib/systemd/system/audiosessiond.socket"
        "$prefix/share/doc/audiosessiond/README.md" "$prefix/share/doc/audiosessiond/SYSTEMD.md"
        "$prefix/share/man/man1/audiosessionctl.1" "$prefix/share/man/man8/audiosessiond.8"
        "$prefix/share/man/man5/audiosessiond-policy.yaml.5"
    )
    # The system daemon's user and its system bus policy: where systemd and the bus daemon read them.
    if [ "$prefix" = /usr ]; then
        expected+=(/usr/lib/sysusers.d/audiosessiond.conf /usr/share/dbus-1/system.d/org.audiosessiond.Daemon1.conf)
    else
        expected+=(/etc/sysusers.d/audiosessiond.conf /etc/dbus-1/system.d/org.audiosessiond.Daemon1.conf)
    fi
    for program in audiosessiond audiosessionctl; do
        expected+=(
            "$prefix/share/bash-completion/completions/$program" "$prefix/share/zsh/site-functions/_$program"
            "$prefix/share/fish/vendor_completions.d/$program.fish"
        )
    done
    for file in "${expected[@]}"; do
        [ -f "$destdir$file" ] || fail "make install put no $file under DESTDIR (PREFIX=$prefix)"
    done
    for binary in audiosessiond audiosessionctl; do
        [ -x "$destdir$prefix/bin/$binary" ] || fail "$prefix/bin/$binary is not executable"
    done
    if grep -n '@[a-z]*dir@' "$destdir$prefix"/lib/systemd/*/audiosessiond.*; then
        fail "a placeholder is left in the installed units"
    fi
    local policy_page="$destdir$prefix/share/man/man5/audiosessiond-policy.yaml.5"
    if [ -f "$policy_page" ]; then
        if grep -n '@[a-z]*dir@' "$policy_page"; then
            fail "a placeholder is left in the installed audiosessiond-policy.yaml(5)"
        fi
        grep -q "^\.I $sysconfdir/audiosessiond/policy.yaml\$" "$policy_page" ||
            fail "audiosessiond-policy.yaml(5) does not name $sysconfdir/audiosessiond/policy.yaml"
    fi
    for kind in user system; do
        grep -q "^ExecStart=$prefix/bin/audiosessiond --config $sysconfdir/audiosessiond/policy.yaml " \
            "$destdir$prefix/lib/systemd/$kind/audiosessiond.service" ||
            fail "the $kind unit's ExecStart= names neither $prefix/bin/audiosessiond nor $sysconfdir/audiosessiond"
    done
    "$destdir$prefix/bin/audiosessiond" --check-config "$destdir$sysconfdir/audiosessiond/policy.yaml" >/dev/null ||
        fail "the installed configuration does not pass --check-config"
    uninstall_from "$destdir" "$prefix" "$destdir"
    echo "verify-units: make install / uninstall, DESTDIR=<temporary> PREFIX=$prefix: ok"
}

# The system daemon's user and bus policy go to /etc for any PREFIX but /usr: an install without DESTDIR names
# folders under the work tree for them, or it would write into this machine's /etc.
install_into() {
    make --no-print-directory -s install DESTDIR="$1" PREFIX="$2" CONFIGURATION="$CONFIGURATION" "${outside_prefix[@]}" \
        >"$work/install.log" 2>&1 ||
        { cat "$work/install.log" >&2; fail "make install DESTDIR=$1 PREFIX=$2"; return 1; }
}

# make uninstall, then: no file left in the tree $3 install wrote to, and no folder of the daemon's own (the
# standard ones install had to create, bin/ or lib/systemd/user/, stay, empty).
uninstall_from() {
    local destdir="$1" prefix="$2" tree="$3" left
    make --no-print-directory -s uninstall DESTDIR="$destdir" PREFIX="$prefix" "${outside_prefix[@]}" >"$work/uninstall.log" 2>&1 ||
        { cat "$work/uninstall.log" >&2; fail "make uninstall DESTDIR=$destdir PREFIX=$prefix"; return 0; }
    left="$(cd "$tree" && find . ! -type d -o -type d -name '*audiosessiond*' | sort)"
    [ -z "$left" ] || fail "make uninstall left behind (DESTDIR=$destdir PREFIX=$prefix):"$'\n'"$left"
}

# systemd-analyze verify on the two units of one kind. Prints what it says; any output at all fails.
verify_units() {
    local kind="$1" unitdir="$2" flags=() output status=0
    if [ "$kind" = user ]; then
        # A user manager needs a runtime directory of its own; there is no logged-in session here.
        mkdir -p -m 0700 "$work/runtime"
        flags=(--user)
    fi
    output="$(cd / && XDG_RUNTIME_DIR="$work/runtime" systemd-analyze "${flags[@]}" verify --man=no \
        "$unitdir/audiosessiond.socket" "$unitdir/audiosessiond.service" 2>&1)" || status=$?
    if [ "$status" -ne 0 ] || [ -n "$output" ]; then
        echo "$output" >&2
        fail "systemd-analyze verify: the $kind units (exit $status)"
    else
        echo "verify-units: systemd-analyze verify, the $kind units: ok"
    fi
}

outside_prefix=()
check_staged_install usr /usr /etc
check_staged_install usr-local /usr/local /usr/local/etc

# The system user the installed sysusers.d file makes, in a staged /etc: audiosessiond, in group audio.
staged="$work/sysusers-root"
mkdir -p "$staged/etc"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$staged/etc/passwd"
printf 'root:x:0:\naudio:x:29:\n' >"$staged/etc/group"
if ! systemd-sysusers --root="$staged" "$PWD/systemd/system/audiosessiond.sysusers" >"$work/sysusers.log" 2>&1; then
    cat "$work/sysusers.log" >&2
    fail "systemd-sysusers does not take systemd/system/audiosessiond.sysusers"
elif ! grep -q '^audiosessiond:' "$staged/etc/passwd" || ! grep -q '^audio:x:29:audiosessiond$' "$staged/etc/group"; then
    fail "systemd/system/audiosessiond.sysusers does not make the user audiosessiond in group audio"
else
    echo "verify-units: systemd-sysusers makes the system user audiosessiond in group audio: ok"
fi
# The unit runs as that user.
grep -q '^User=audiosessiond$' systemd/system/audiosessiond.service ||
    fail "the system unit does not run as the user its sysusers.d file makes"

prefix="$work/tree/prefix"
outside_prefix=(SYSUSERSDIR="$work/tree/etc/sysusers.d" DBUSSYSTEMDIR="$work/tree/etc/dbus-1/system.d")
if install_into "" "$prefix"; then
    verify_units system "$prefix/lib/systemd/system"
    verify_units user "$prefix/lib/systemd/user"
    uninstall_from "" "$prefix" "$work/tree"
fi

if [ "$failures" -ne 0 ]; then
    echo "verify-units: $failures check(s) failed" >&2
    exit 1
fi
echo "verify-units: all checks passed"
