#!/usr/bin/env bash
# Compile cost of control flow (bench/README.md, "Loops"; issue 17: "compile
# time for a loop body does not grow with its trip count, and the 1e5-op
# benchmark is unchanged"). Instruction counts under valgrind's callgrind,
# which are deterministic, so one run of each suffices and two compilers
# (or two inputs) compare exactly, whatever else the machine is doing.
#
#   1. samples/training_step.shir (a while of three SGD steps) with its
#      trip count set to 10 and to 10,000,000: `shardc F --emit=partitioned`
#      (parse, every pass, print) must execute the same number of
#      instructions, but for lexing and printing the longer literal.
#   2. gen_transformer's 1e4-op module (bench/gen_transformer.c, the
#      compiler-scaling benchmark's): instructions per op of
#      `shardc F --emit=partitioned`, for BUILD and each BASE_BUILD given
#      (another commit's build, e.g. the one before control flow landed),
#      named NAME in the table.
#
# Usage: bash bench/loop_compile.sh [BUILD [BASE_BUILD:NAME ...]]
# Prints a markdown section and puts it into bench/results.md between its
# markers (replacing the last one). Not part of make check.
set -euo pipefail

build=${1:-build}
bases=("${@:2}")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work="$build/bench"
mkdir -p "$work"
command -v valgrind >/dev/null || { echo "bench/loop_compile.sh: needs valgrind" >&2; exit 1; }

# Instructions executed by `SHARDC FILE --emit=partitioned`. OpenBLAS's
# worker threads (started when the library loads) spin a varying number of
# instructions; one thread keeps the count exact.
instructions() {
    local shardc=$1 file=$2
    OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$shardc" "$file" --emit=partitioned 2>&1 >/dev/null |
        sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}

# The training step with its `%steps` bound set to $1, always at the same
# path (the file name is read, kept and printed too).
loop_variant() {
    sed "s/{value = 3}/{value = $1}/" samples/training_step.shir > "$work/loop.shir"
    echo "$work/loop.shir"
}

# 99 and 99999999: the same literal lengths as 10 and 10,000,000, to tell
# what the digits cost (lexing, printing) from what the trip count would.
declare -A ins
for n in 10 99 10000000 99999999; do
    ins[$n]=$(instructions "$build/shardc" "$(loop_variant $n)")
done
small=${ins[10]} large=${ins[10000000]}

cc -std=c11 -O2 -o "$work/gen_transformer" bench/gen_transformer.c
"$work/gen_transformer" -n 10000 -o "$work/loop_t1e4.shir" 2> "$work/loop_t1e4.ops"
ops=$(awk '{print $2}' "$work/loop_t1e4.ops")
head_ins=$(instructions "$build/shardc" "$work/loop_t1e4.shir")
base_rows=()
for b in ${bases[@]+"${bases[@]}"}; do
    b_ins=$(instructions "${b%%:*}/shardc" "$work/loop_t1e4.shir")
    base_rows+=("| ${b#*:} | $b_ins | $((b_ins / ops)) | $(awk -v a="$head_ins" -v b="$b_ins" 'BEGIN { printf "%.3f", a / b }') |")
done

section="$work/loop_compile.md"
{
    echo "<!-- bench/loop_compile.sh begin -->"
    echo "## Loops: compile cost by trip count (bench/loop_compile.sh)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M') UTC; commit $(git rev-parse --short HEAD)"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc)"
    echo "- instructions: valgrind --tool=callgrind, whole process, OPENBLAS_NUM_THREADS=1"
    echo
    echo "\`shardc F --emit=partitioned\` of samples/training_step.shir with its trip count set:"
    echo
    echo "| trip count | instructions |"
    echo "|---:|---:|"
    for n in 10 99 10000000 99999999; do
        echo "| $n | ${ins[$n]} |"
    done
    echo
    echo "10,000,000 vs 10: $((large - small)) instructions more" \
        "($(awk -v a="$small" -v b="$large" 'BEGIN { printf "%.4f", (b - a) * 100 / a }') %);" \
        "99 vs 10: $((ins[99] - small)), 99999999 vs 10000000: $((ins[99999999] - large)):" \
        "the differences are lexing and printing the bound's digits, not the trip count."
    echo
    echo "gen_transformer's $ops-op module, \`shardc F --emit=partitioned\`:"
    echo
    echo "| build | instructions | per op | HEAD / build |"
    echo "|---|---:|---:|---:|"
    echo "| HEAD | $head_ins | $((head_ins / ops)) | 1 |"
    for row in ${base_rows[@]+"${base_rows[@]}"}; do
        echo "$row"
    done
    echo "<!-- bench/loop_compile.sh end -->"
} > "$section"
cat "$section"

# Into bench/results.md: replace the previous section, else append.
# shellcheck source=bench/section.sh
. "$(dirname "$0")/section.sh"
bench_put_section bench/results.md "$section" bench/loop_compile.sh
