#!/bin/bash
# The engines of `shardc run` (docs/interpreter.md, "Engines"): the SPMD
# run's wall time over the reference run's, both from one `shardc run
# --stats` process (so machine load hits both alike), REPS runs per
# configuration, the configurations interleaved. Prints the median ratio
# with its min-max and puts the section into bench/results.md between its
# markers (replacing the last one, else appending); the rest of the file is
# left as it was.
#
# usage: bash bench/engine.sh BUILD [BASELINE_SHARDC]
#   BASELINE_SHARDC: another build's shardc (e.g. the commit before the
#   lockstep engine), measured interleaved with this one.
set -eu
build=${1:-build} base=${2:-}
reps=${BENCH_REPS:-15}
shardc=$build/shardc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mk() { printf '#!/bin/bash\ncmd=$1; shift; exec %s "$cmd" "$@" %s\n' "$1" "$2" > "$work/$3"; chmod +x "$work/$3"; }
mk "$PWD/$shardc" "" lockstep
mk "$PWD/$shardc" "--threads=1" lockstep1
mk "$PWD/$shardc" "--engine=threads" threads
bins=("$work/lockstep" "$work/lockstep1" "$work/threads")
labels=("lockstep engine, $(nproc) workers (default)" "lockstep engine, --threads=1" "threaded engine (--engine=threads)")
if [ -n "$base" ]; then
    mk "$(cd "$(dirname "$base")" && pwd)/$(basename "$base")" "" base
    bins+=("$work/base")
    labels+=("baseline: $base")
fi
section=$work/section
{
    echo "<!-- bench/engine.sh begin -->"
    echo "## Engines: \`shardc run\` SPMD / reference (bench/engine.sh)"
    echo ""
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- $reps runs per row, rows interleaved; ratio = SPMD wall / reference wall of the same process; median (min–max)"
    echo ""
    for file in samples/megatron_mlp.shir bench/megatron_mlp_e2e.shir; do
        echo "\`$file\`:"
        echo ""
        echo "| engine | SPMD / reference | reference ms | SPMD ms |"
        echo "|---|---:|---:|---:|"
        bash bench/run_ratio.sh "$file" "$reps" "${bins[@]}" | while read -r line; do
            bin=${line%%:*}
            for ((b = 0; b < ${#bins[@]}; b++)); do [ "${bins[$b]}" = "$bin" ] && label=${labels[$b]}; done
            echo "$line" | sed -E "s#^[^:]*: spmd/reference ([0-9.]+) \(min ([0-9.]+), max ([0-9.]+)\); reference ([0-9.]+) ms, spmd ([0-9.]+) ms.*#| $label | \1 (\2–\3) | \4 | \5 |#"
        done
        echo ""
    done
    echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "<!-- bench/engine.sh end -->"
} > "$section"
cat "$section"
# shellcheck source=bench/section.sh
. "$(dirname "$0")/section.sh"
bench_put_section bench/results.md "$section" bench/engine.sh
