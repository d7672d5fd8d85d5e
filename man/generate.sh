#!/usr/bin/env bash
# The manual pages of the two programs and their shell completions, generated from their own argument parsers so
# that they can never disagree with the programs (docs/MANUALS.md). `make manuals` runs it:
#
#   man/generate.sh OUTPUT SCRATCH CONFIGURATION DATE
#
# writes OUTPUT/man8/audiosessiond.8 and OUTPUT/man1/audiosessionctl.1 (mdoc, one page per program with every
# subcommand in it) and OUTPUT/completions/{bash,zsh,fish}/ for both programs. The pages come from
# swift-argument-parser's `generate-manual` command plugin, which builds the package (every product) in
# CONFIGURATION with the build folder SCRATCH first; the completions from the programs' own
# `--generate-completion-script`. DATE (yyyy-mm-dd) is the pages' date, so that the same sources give the same
# pages. The configuration file's page is written by hand (man/audiosessiond-policy.yaml.5); make fills it in.
set -euo pipefail
cd "$(dirname "$0")/.."

if (($# != 4)); then
    echo "usage: man/generate.sh OUTPUT SCRATCH CONFIGURATION DATE" >&2
    exit 2
fi
output="$1" scratch="$2" configuration="$3" date="$4"
swift="${SWIFT:-swift}"
# Each program and its section: the daemon is a system administration command (8), the control tool a user
# command (1).
programs=(audiosessiond:8 audiosessionctl:1)

# The plugin passes the same options to every program it finds, so it runs once per section. It writes each
# program's page to a folder of its own under its work folder; that folder is emptied first, so that a page
# left over from an earlier run is never taken for a new one.
plugin_output="$scratch/plugins/GenerateManual/outputs"
bin="$("$swift" build --scratch-path "$scratch" -c "$configuration" --show-bin-path)"
for entry in "${programs[@]}"; do
    program="${entry%:*}" section="${entry#*:}"
    rm -rf "$plugin_output"
    "$swift" package --scratch-path "$scratch" plugin generate-manual \
        --configuration "$configuration" --section "$section" --date "$date"
    page="$plugin_output/$program/$program.$section"
    if [[ ! -s "$page" ]]; then
        echo "generate: the generate-manual plugin wrote no $page" >&2
        exit 1
    fi
    mkdir -p "$output/man$section"
    # Two corrections (docs/MANUALS.md). A discussion of several paragraphs reaches the page with empty lines
    # between them, which mdoc warns about: each becomes the paragraph macro.
    corrections=(-e 's/^$/.Pp/')
    if [[ "$(grep '^\.It Em ' "$page")" == ".It Em help" ]]; then
        # A program without subcommands still has argument-parser's `help` in the description the plugin reads,
        # and the page would offer `audiosessiond help` and a `subcommand` operand, which the program refuses.
        # When `help` is the page's only subcommand, drop the two: the operand in the synopsis, and the `help`
        # item with the list nested in it.
        corrections+=(-e '/^\.Ar subcommand$/d' -e '/^\.It Em help$/,/^\.El$/d')
    fi
    sed "${corrections[@]}" "$page" >"$output/man$section/$program.$section"
    rm -rf "$plugin_output"
done

mkdir -p "$output/completions/bash" "$output/completions/zsh" "$output/completions/fish"
for entry in "${programs[@]}"; do
    program="${entry%:*}"
    # The names bash-completion, zsh and fish look for: the command's name, _command, command.fish.
    "$bin/$program" --generate-completion-script bash >"$output/completions/bash/$program"
    "$bin/$program" --generate-completion-script zsh >"$output/completions/zsh/_$program"
    "$bin/$program" --generate-completion-script fish >"$output/completions/fish/$program.fish"
done
echo "generate: the pages and completions of ${programs[*]%:*} are in $output"
