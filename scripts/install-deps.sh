#!/usr/bin/env bash
# Installs what the build and the tests need and the machine lacks. The Swift toolchain is expected on the
# machine (it is not a Debian package); Debian packages named in PACKAGES are installed with apt-get when missing.
set -euo pipefail

# strace for the test that every descriptor is closed once (and unshare, from util-linux, for the test steps);
# rsvg-convert (librsvg2-bin) to render the replay pictures in their test; man-db and groff-base for `man -l`;
# libpulse for the PulseAudio backend; PulseAudio and PipeWire (with its PulseAudio server) for the private
# servers of the tests and the embedded default; sox and the ALSA tools for test tones and ALSA streams;
# systemd for systemd-analyze, which checks the units (scripts/verify-units.sh; systemd need not be running);
# libasound2-dev for the ALSA backend, libasound2-plugins for its `pulse` PCM and CTL (how its tests reach a
# private PulseAudio without a sound card), alsa-utils for aplay/amixer to compare with by hand;
# zsh and fish to check the completion scripts generated for them (scripts/check-manuals.sh); libsystemd-dev for
# the D-Bus backend (sd-bus), dbus-daemon for the private buses of its tests and dbus-system-bus-common for the
# machine's system bus policy and its messagebus user (SystemBusPolicyTests), feedbackd for the live switch tests;
# mpv, mpv-mpris and playerctl for the live player tests (a real MPRIS player, the user's media keys); libyaml-dev
# for the configuration and scenario files (YAMLBackend); valgrind for the release daemon's code order
# (scripts/symbol-order.sh, `make symbol-order`).
PACKAGES=(strace valgrind librsvg2-bin man-db groff-base libpulse-dev pulseaudio pulseaudio-utils pipewire pipewire-pulse wireplumber systemd libasound2-dev
    libasound2-plugins alsa-utils zsh fish libsystemd-dev dbus-daemon dbus-system-bus-common feedbackd
    mpv mpv-mpris playerctl libyaml-dev)

if ! command -v swift >/dev/null 2>&1; then
    echo "install-deps: no Swift toolchain on PATH; install Swift 6 (swift.org) and try again" >&2
    exit 1
fi

missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
