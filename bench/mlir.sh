#!/usr/bin/env bash
# The MLIR front end against the .shir one (bench/README.md, "MLIR"; issue
# 15: reading and printing must cost no more per op than .shir's).
#
# The 1e5-op synthetic transformer (gen_transformer) is propagated once and
# written both ways: P.shir (--emit=propagated) and P.mlir (--emit=sdy), the
# same program with the same shardings. Then, REPS times, alternating which
# goes first:
#   read:  `shardc P.mlir --emit=ir --time-passes` vs the same on P.shir,
#          the "parse" stage (reading, parsing, and for MLIR the import);
#   print: `shardc P.shir --emit=sdy --time-passes` vs `--emit=ir`, the
#          "emit" stage (printing the same module as MLIR vs as .shir).
# Each figure is the median of the per-repetition ratios of CPU times of
# the compiling thread (wall times are noisier on a shared machine), with
# their min–max. Then the memory of reading, which load does not change:
# the peak resident set size and the minor page faults of
# `shardc P.mlir --emit=ir` and of the same on P.shir (/usr/bin/time), per
# op. Not part of make check.
#
# Usage: bash bench/mlir.sh [BUILD_DIR]   (default build). Environment:
# BENCH_QUICK=1 (1e4 ops, 3 repetitions). Prints a markdown section and
# puts it into bench/results.md between its markers (replacing the last
# one; bench/run.sh keeps it).
set -euo pipefail

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shardc="$build/shardc"
work="$build/bench"
ops=100000 reps=7
[ "${BENCH_QUICK:-0}" = 1 ] && ops=10000 reps=3
mkdir -p "$work"
[ -x "$shardc" ] || { echo "bench/mlir.sh: build $shardc first (make)" >&2; exit 1; }

"${CC:-cc}" -std=c11 -O2 -o "$work/gen_transformer" bench/gen_transformer.c
gen="$work/transformer_${ops}_2x4.shir"
"$work/gen_transformer" -n "$ops" -d 2 -m 4 -o "$gen" 2> "$gen.info"
n=$(awk '{print $2}' "$gen.info")
"$shardc" "$gen" --emit=propagated -o "$work/mlir_bench.shir"
"$shardc" "$gen" --emit=sdy -o "$work/mlir_bench.mlir"

# stage_cpu STAGE ARGS...: the CPU ms of one --time-passes stage of one run
stage_cpu() {
    local stage=$1
    shift
    "$shardc" "$@" --time-passes 2>&1 > /dev/null | awk -v s="$stage" '$1 == s { print ($5 == "ms" ? $4 : $2) }'
}

# pair NAME STAGE "ARGS A" "ARGS B": REPS interleaved runs; lines "a b a/b"
pair() {
    local out="$work/mlir_$1.times" a b r
    : > "$out"
    for ((r = 0; r < reps; r++)); do
        if ((r % 2)); then
            b=$(stage_cpu "$2" $4); a=$(stage_cpu "$2" $3)
        else
            a=$(stage_cpu "$2" $3); b=$(stage_cpu "$2" $4)
        fi
        echo "$a $b $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", a / b }')" >> "$out"
    done
}

median() { sort -g | awk '{a[NR] = $1} END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$work/mlir_$1.times"; }
row() { # row NAME LABEL_A LABEL_B: A is the MLIR side, B the .shir one
    local ma mb r
    ma=$(col "$1" 1 | median) mb=$(col "$1" 2 | median) r=$(col "$1" 3 | median)
    printf '| %s vs %s | %.0f | %.0f | %.2f | %.2f | %.2f (%.2f–%.2f) | %.2f |\n' "$2" "$3" "$ma" "$mb" \
        "$(awk -v t="$ma" -v n="$n" 'BEGIN { print 1000 * t / n }')" \
        "$(awk -v t="$mb" -v n="$n" 'BEGIN { print 1000 * t / n }')" \
        "$r" "$(col "$1" 3 | sort -g | head -1)" "$(col "$1" 3 | sort -g | tail -1)" \
        "$(awk -v r="$r" -v a="$bytes_mlir" -v b="$bytes_shir" 'BEGIN { print r * b / a }')"
}
bytes_shir=$(wc -c < "$work/mlir_bench.shir") bytes_mlir=$(wc -c < "$work/mlir_bench.mlir")

# memory FILE: "peak-RSS-bytes minor-faults" of reading FILE (and printing
# it as .shir to /dev/null, which the IR's size dominates)
memory() {
    /usr/bin/time -f '%M %R' "$shardc" "$1" --emit=ir -o /dev/null 2>&1 >/dev/null | tail -1 |
        awk '{ print $1 * 1024, $2 }'
}
mem_row() { # mem_row LABEL FILE
    local m
    m=$(memory "$2")
    awk -v l="$1" -v n="$n" -v b="${m% *}" -v f="${m#* }" \
        'BEGIN { printf "| %s | %.0f | %.0f | %.3f |\n", l, b / 1e6, b / n, f / n }'
}
[ -x /usr/bin/time ] || { echo "bench/mlir.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }

pair read parse "$work/mlir_bench.mlir --emit=ir" "$work/mlir_bench.shir --emit=ir"
pair print emit "$work/mlir_bench.shir --emit=sdy" "$work/mlir_bench.shir --emit=ir"

section="$work/mlir_section.md"
{
    echo "<!-- bench/mlir.sh begin -->"
    echo "## MLIR front end vs .shir (bench/mlir.sh)"
    echo ""
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2> /dev/null || echo unknown)"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc); load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- module: gen_transformer, $n ops, propagated; .shir $bytes_shir bytes, .mlir $bytes_mlir bytes"
    echo ""
    echo "CPU ms of the compiling thread, medians of $reps interleaved runs; ratio = A / B,"
    echo "median of the per-run ratios (min–max), per op; per byte, the ratio times"
    echo ".shir bytes / .mlir bytes (the MLIR text of the same program is longer):"
    echo ""
    echo "| A vs B | A ms | B ms | A µs/op | B µs/op | ratio per op | per byte |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    row read "read .mlir" "read .shir"
    row print "print --emit=sdy" "print --emit=ir"
    echo ""
    echo "Memory of reading (\`shardc P --emit=ir\`, /usr/bin/time; not changed by load):"
    echo ""
    echo "| read | peak RSS MB | peak RSS bytes/op | minor page faults/op |"
    echo "|---|---:|---:|---:|"
    mem_row ".mlir" "$work/mlir_bench.mlir"
    mem_row ".shir" "$work/mlir_bench.shir"
    echo "<!-- bench/mlir.sh end -->"
} > "$section"
cat "$section"

# Into bench/results.md: replace the previous section, else append.
# shellcheck source=bench/section.sh
. "$(dirname "$0")/section.sh"
bench_put_section bench/results.md "$section" bench/mlir.sh
