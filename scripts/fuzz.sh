#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer target (Sources/AudioSessionFuzz) with -sanitize=fuzzer,address into its own
# scratch folder, then runs it on each reader for SECONDS (docs/TESTING.md, "Fuzzing"):
#
#   scripts/fuzz.sh [SECONDS] [READER...]        readers: request configuration scenario (all by default)
#
# Seed corpora are taken from the repository's own files at run time (nothing is copied into the tree): the
# request lines of docs/PROTOCOL.md and of the tests, Config/policy.yaml and the docs' YAML examples, and
# Tests/Scenarios/*.yaml. A crash, sanitizer report, hang (FUZZ_TIMEOUT seconds for one input) or memory blow-up
# fails the run; the input that did it is kept in FUZZ_ARTIFACTS and printed, to become a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-${FUZZ_SECONDS:-60}}
shift || true
readers=("$@")
((${#readers[@]})) || readers=(request configuration scenario)
SWIFT=${SWIFT:-swift}
SCRATCH=${FUZZ_SCRATCH:-.build-fuzz}
ARTIFACTS=${FUZZ_ARTIFACTS:-$SCRATCH/artifacts}
TIMEOUT=${FUZZ_TIMEOUT:-10}

# FUZZING turns on the libFuzzer entry; -parse-as-library keeps the module from defining `main`, which
# libFuzzer brings.
"$SWIFT" build -c release --scratch-path "$SCRATCH" --product AudioSessionFuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING
fuzzer="$("$SWIFT" build -c release --scratch-path "$SCRATCH" --show-bin-path)/AudioSessionFuzz"

work=$(mktemp -d "${TMPDIR:-/tmp}/asd-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$ARTIFACTS"

# One seed per file. Request lines: every one-line JSON object with an "op" in the protocol's doc, and the
# raw lines the tests send (#"{...}"# and "{\"op\"...}" literals).
seed_requests() {
    local n=0 line
    while IFS= read -r line; do
        n=$((n + 1))
        printf '%s' "$line" >"$1/doc-$n.json"
    done < <(grep -ho '{"[^`]*"op"[^`]*}' docs/PROTOCOL.md | sort -u)
    while IFS= read -r line; do
        n=$((n + 1))
        printf '%s' "$line" >"$1/test-$n.json"
    done < <(grep -rhoE '#"\{[^"]*"op".*\}"#' Tests | sed -E 's/^#"//; s/"#$//' | sort -u)
    while IFS= read -r line; do
        n=$((n + 1))
        printf '%b' "$line" | sed 's/\\"/"/g' >"$1/test-$n.json"
    done < <(grep -rhoE '"\{\\"op\\".*\}"' Tests | sed -E 's/^"//; s/"$//' | sort -u)
}

# The YAML blocks of a Markdown file, one file each.
yaml_blocks() { # FILE FOLDER PREFIX
    awk -v folder="$2" -v prefix="$3" '
        /^```yaml/ { n++; out = folder "/" prefix "-" n ".yaml"; inside = 1; next }
        /^```/ { inside = 0; next }
        inside { print > out }
    ' "$1"
}

seed_configurations() {
    cp Config/policy.yaml "$1/"
    local doc
    for doc in docs/CONFIGURATION.md docs/ALSA.md README.md; do
        yaml_blocks "$doc" "$1" "$(basename "$doc" .md)"
    done
}

seed_scenarios() {
    cp Tests/Scenarios/*.yaml "$1/"
    yaml_blocks docs/SCENARIOS.md "$1" SCENARIOS
}

status=0
for reader in "${readers[@]}"; do
    corpus="$work/$reader"
    mkdir -p "$corpus"
    case "$reader" in
    request) seed_requests "$corpus" ;;
    configuration) seed_configurations "$corpus" ;;
    scenario) seed_scenarios "$corpus" ;;
    *) echo "fuzz: no reader named $reader (request, configuration, scenario)" >&2; exit 2 ;;
    esac
    seeds=$(find "$corpus" -type f | wc -l)
    echo "fuzz: $reader for ${seconds}s from $seeds seeds"
    log="$work/$reader.log"
    if FUZZ_TARGET=$reader "$fuzzer" -max_total_time="$seconds" -timeout="$TIMEOUT" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$reader-" "$corpus" >"$log" 2>&1; then
        # The figures docs/RELIABILITY.md quotes: runs, speed, corpus and coverage at the end.
        grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|DONE' "$log" || true
        echo "fuzz: $reader passed; corpus now $(find "$corpus" -type f | wc -l) inputs"
    else
        status=1
        echo "fuzz: $reader FAILED; the input that did it is in $ARTIFACTS/$reader-*; the run's last lines:" >&2
        tail -n 60 "$log" >&2
    fi
done
exit "$status"
