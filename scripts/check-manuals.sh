#!/usr/bin/env bash
# Checks the manual pages and the shell completions (docs/MANUALS.md):
#   1. `make manuals` generates them from the debug build `make test` made (CONFIGURATION=debug; the pages and
#      completions come from the programs' argument parsers, whatever the build) into a temporary folder;
#   2. every page formats with `man --warnings=w -l` (every groff warning on, 80 columns) and with groff's
#      typesetter (`groff -mandoc -ww -z`), and neither says anything;
#   3. audiosessiond(8) names every option and argument `audiosessiond --help` lists and offers no subcommand;
#      audiosessionctl(1) has an entry for every subcommand (nested ones too) and names every option and argument
#      of each; audiosessiond-policy.yaml(5) names every key of Config/policy.yaml and of the configuration
#      loaders, and every category, mode, option, port and log level the sources define;
#   4. the bash completions pass `bash -n` and work: completing the word after `audiosessionctl ` offers every
#      subcommand, and `audiosessiond --` every option; the zsh and fish ones pass `zsh -n` and `fish -n` (both
#      shells come with `make deps`), and fish's `complete -C 'audiosessionctl '` offers every subcommand.
# The last line is `manuals: N passed, M failed`; the exit status is 1 when a check failed.
# `make test` runs it; so can you, after a debug build: scripts/check-manuals.sh (SCRATCH=DIR for another build
# folder than .build).
set -uo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d "${TMPDIR:-/tmp}/audiosessiond-manuals-XXXXXX")"
trap 'rm -rf "$work"' EXIT
manuals="$work/manuals"
passed=0 failed=0
pass() {
    passed=$((passed + 1))
    echo "manuals: ok: $*"
}
fail() {
    failed=$((failed + 1))
    echo "manuals: FAIL: $*" >&2
}
finish() {
    echo "manuals: $passed passed, $failed failed"
    ((failed == 0))
    exit
}

if ! make --no-print-directory -s manuals CONFIGURATION=debug MANUALS="$manuals" >"$work/make.log" 2>&1; then
    cat "$work/make.log" >&2
    fail "make manuals CONFIGURATION=debug"
    finish
fi
pass "make manuals generated $(cd "$manuals" && find . -type f | wc -l) files"
bin="$("${SWIFT:-swift}" build --scratch-path "${SCRATCH:-.build}" --show-bin-path)"

pages=(man8/audiosessiond.8 man1/audiosessionctl.1 man5/audiosessiond-policy.yaml.5)

# 2. Formatting: any line man or groff prints on standard error is a warning or an error.
for page in "${pages[@]}"; do
    file="$manuals/$page"
    if [[ ! -s "$file" ]]; then
        fail "$page was not generated"
        continue
    fi
    # In the locale most readers have (C.UTF-8 is always there on Debian), so that man has nothing to say about it.
    messages="$(LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat man --warnings=w -l "$file" 2>&1 >/dev/null)"
    status=$?
    if ((status != 0)) || [[ -n "$messages" ]]; then
        fail "man --warnings=w -l $page (exit $status):"$'\n'"$messages"
    else
        pass "man --warnings=w -l $page: no warnings"
    fi
    messages="$(groff -mandoc -ww -z "$file" 2>&1)"
    status=$?
    if ((status != 0)) || [[ -n "$messages" ]]; then
        fail "groff -mandoc -ww -z $page (exit $status):"$'\n'"$messages"
    else
        pass "groff -mandoc -ww -z $page: no warnings"
    fi
done

# The text of a page, with lines so long that no paragraph is broken or hyphenated: what a word search needs.
render() {
    groff -mandoc -Tutf8 -P-cbou -rLL=4000n "$manuals/$1" 2>/dev/null
}

# Whether the text on standard input has WORD with no letter, digit, '-' or '_' either side.
names() {
    local word="${1//./\\.}"
    grep -qE -- "(^|[^[:alnum:]_-])$word([^[:alnum:]_-]|$)"
}

# The lines of one section (OPTIONS:, ARGUMENTS:, SUBCOMMANDS:) of a program's --help.
help_section() {
    awk -v want="$1" '/^[A-Z][A-Z ]*:/ { inside = ($0 == want); next } inside'
}

# The long options in a program's --help on standard input.
help_options() {
    help_section OPTIONS: | grep -oE '^  (-[[:alnum:]], )?--[[:alnum:]-]+' | grep -oE -- '--[[:alnum:]-]+$'
}

# Checks that page $1 (text $2) names every option and argument that `$3 [SUBCOMMAND...] --help` lists, and sets
# `listed` to the subcommands that help lists.
listed=()
check_command() {
    local page="$1" text="$2" help option argument missing=()
    shift 2
    listed=()
    if ! help="$("$bin/$1" "${@:2}" --help 2>&1)"; then
        fail "\`$* --help\` failed:"$'\n'"$help"
        return
    fi
    for option in $(help_options <<<"$help"); do
        names "$option" <<<"$text" || missing+=("$option")
    done
    for argument in $(help_section ARGUMENTS: <<<"$help" | grep -oE '^  <[[:alnum:]-]+>' | tr -d ' <>'); do
        names "$argument" <<<"$text" || missing+=("<$argument>")
    done
    if ((${#missing[@]} > 0)); then
        fail "$page does not name ${missing[*]} of \`$*\`"
    else
        pass "$page names every option and argument of \`$*\`"
    fi
    # argument-parser's own `help` subcommand is not listed by --help, and not looked for.
    mapfile -t listed < <(help_section SUBCOMMANDS: <<<"$help" | grep -oE '^  [a-z][[:alnum:]-]*' | tr -d ' ')
}

# 3. What the pages name.
daemon_text="$(render man8/audiosessiond.8)"
check_command audiosessiond.8 "$daemon_text" audiosessiond
if ((${#listed[@]} > 0)) || grep -qE '^[[:space:]]+help([[:space:]]|$)|subcommand' <<<"$daemon_text"; then
    fail "audiosessiond.8 offers subcommands; the daemon has none"
else
    pass "audiosessiond.8 offers no subcommand"
fi

ctl_text="$(render man1/audiosessionctl.1)"
# Every subcommand, breadth first: `route`, then `route list`... Each one is an item of the page (its name at the
# start of a line) and the page names its options.
queue=("")
count=0
ctl_subcommands=()
while ((${#queue[@]} > 0)); do
    path="${queue[0]}"
    queue=("${queue[@]:1}")
    # shellcheck disable=SC2086 # the path is words
    check_command audiosessionctl.1 "$ctl_text" audiosessionctl $path
    [[ -n "$path" ]] || ctl_subcommands=("${listed[@]}")
    for subcommand in "${listed[@]}"; do
        count=$((count + 1))
        if grep -qE "^[[:space:]]+$subcommand([[:space:]]|$)" <<<"$ctl_text"; then
            pass "audiosessionctl.1 has an entry for \`audiosessionctl ${path:+$path }$subcommand\`"
        else
            fail "audiosessionctl.1 has no entry for \`audiosessionctl ${path:+$path }$subcommand\`"
        fi
        queue+=("${path:+$path }$subcommand")
    done
done
((count > 0)) || fail "audiosessionctl --help lists no subcommand"

# The configuration file's page: every key the shipped file uses (quoted values and comments left out) and every key
# the loaders take, and each word the engine knows for a category, mode, option and port, and each log level.
policy_text="$(render man5/audiosessiond-policy.yaml.5)"
check_words() {
    local what="$1" missing=() word
    shift
    if (($# == 0)); then
        fail "found no $what to look for (have the sources moved?)"
        return
    fi
    for word in "$@"; do
        names "$word" <<<"$policy_text" || missing+=("$word")
    done
    if ((${#missing[@]} > 0)); then
        fail "audiosessiond-policy.yaml.5 does not name the $what ${missing[*]}"
    else
        pass "audiosessiond-policy.yaml.5 names every $what ($#)"
    fi
}
quoted_words() { grep -oE '"[^"]+"' | tr -d '"' | sort -u; }
# shellcheck disable=SC2046 # one word each
{
    check_words "key of Config/policy.yaml" $(sed -e 's/#.*//' -e 's/"[^"]*"//g' Config/policy.yaml |
        grep -oE '[[:alpha:]_][[:alnum:]_.]*:([[:space:]]|$)' | tr -d ': \t' | sort -u)
    check_words "configuration key of the loaders" $(cat Sources/AudioSessionConfiguration/*ConfigurationLoader*.swift \
        Sources/AudioSessionConfiguration/PolicyConfigLoader*.swift 2>/dev/null |
        grep -oE '(static|public) (let|var) [[:alnum:]]*[kK]eys = \[[^]]*\]' | quoted_words)
    check_words "matchable stream property" $(grep -A3 'matchableProperties = \[' Sources/AudioSessionPolicy/PolicyConfig.swift |
        quoted_words)
    check_words category $(grep -oE '^    case [[:alnum:]]+$' Sources/AudioSessionPolicy/Category.swift | awk '{ print $2 }')
    check_words mode $(grep -oE '^    case `?[[:alnum:]]+`?$' Sources/AudioSessionPolicy/Mode.swift | tr -d '`' | awk '{ print $2 }')
    check_words "category option" $(grep -oE '^        \("[[:alnum:]]+", \.' Sources/AudioSessionPolicy/CategoryOptions.swift |
        quoted_words)
    check_words port $(grep -oE '^    case [[:alnum:]]+$' Sources/AudioSessionPolicy/Port.swift | awk '{ print $2 }')
    check_words "log level" $(grep -E 'logLevels = \[' Sources/AudioSessionConfiguration/DaemonConfiguration.swift | quoted_words)
}

# 4. The completion scripts.
# What the bash completion script $1 offers for the command line $2... (the last word being completed).
bash_completes() {
    bash -c '
        source "$1" || exit 1
        function="$(complete -p "$2" | grep -oE -- "-F [^ ]+" | cut -c4-)"
        [[ -n "$function" ]] || { echo "no completion function registered for $2" >&2; exit 1; }
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="${COMP_WORDS[*]}"
        COMP_POINT=${#COMP_LINE}
        "$function" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"
    ' _ "$@"
}
for program in audiosessiond audiosessionctl; do
    file="$manuals/completions/bash/$program"
    if ! messages="$(bash -n "$file" 2>&1)"; then
        fail "the bash completion of $program: bash -n:"$'\n'"$messages"
        continue
    fi
    if [[ "$program" == audiosessionctl ]]; then
        wanted=("${ctl_subcommands[@]}") line=("$program" "")
    else
        mapfile -t wanted < <("$bin/$program" --help | help_options)
        line=("$program" "--")
    fi
    if ! offered="$(bash_completes "$file" "${line[@]}" 2>&1)"; then
        fail "the bash completion of $program does not run:"$'\n'"$offered"
        continue
    fi
    missing=()
    for word in "${wanted[@]}"; do
        grep -qxF -- "$word" <<<"$offered" || missing+=("$word")
    done
    if ((${#wanted[@]} == 0 || ${#missing[@]} > 0)); then
        fail "the bash completion of \`${line[*]}\` does not offer ${missing[*]:-anything}"
    else
        pass "the bash completion of $program: bash -n, and \`${line[*]}<TAB>\` offers all ${#wanted[@]}"
    fi
done
# zsh and fish come with `make deps`: a shell that is missing fails the check rather than skipping it.
for shell in zsh fish; do
    if ! command -v "$shell" >/dev/null 2>&1; then
        fail "$shell is not installed (make deps installs it): its completion scripts cannot be checked"
        continue
    fi
    for program in audiosessiond audiosessionctl; do
        file="$manuals/completions/$shell/$([[ $shell == zsh ]] && echo "_$program" || echo "$program.fish")"
        if messages="$("$shell" -n "$file" 2>&1)"; then
            pass "the $shell completion of $program: $shell -n"
        else
            fail "the $shell completion of $program: $shell -n:"$'\n'"$messages"
        fi
    done
done
# fish completes a command line on request (`complete -C`): the subcommands of audiosessionctl are offered.
if command -v fish >/dev/null 2>&1; then
    offered="$(HOME="$work" fish --no-config -c \
        "source '$manuals/completions/fish/audiosessionctl.fish'; complete -C 'audiosessionctl '" 2>&1 | cut -f1)"
    missing=()
    for word in "${ctl_subcommands[@]}"; do
        grep -qxF -- "$word" <<<"$offered" || missing+=("$word")
    done
    if ((${#ctl_subcommands[@]} == 0 || ${#missing[@]} > 0)); then
        fail "the fish completion of \`audiosessionctl \` does not offer ${missing[*]:-anything}: $offered"
    else
        pass "the fish completion of audiosessionctl: \`audiosessionctl <TAB>\` offers all ${#ctl_subcommands[@]}"
    fi
fi

finish
