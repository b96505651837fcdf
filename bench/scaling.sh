#!/usr/bin/env bash
# Issue 20's scaling target: compiling a 1e6-op module may cost at most
# (1e6/1e5)^1.02 times the 1e5-op module's time (bench/README.md, "Scaling").
#
# The synthetic transformer (gen_transformer) at 1e5 and 1e6 ops is compiled
# with `shardc FILE --emit=partitioned --time-passes > /dev/null` in PAIRS
# pairs, the order alternating within a pair. Each pair gives two exponents
# log(t(1e6) / t(1e5)) / log(n(1e6) / n(1e5)):
#   A: the process's CPU time, user + sys (/usr/bin/time);
#   B: parse -> partition, the sum of the thread CPU times --time-passes
#      gives for every stage but "emit" (printing is left out).
# The figures are the medians of the per-pair exponents with their min–max.
# The same runs give the peak resident set and the minor page faults per op.
# About 20 s and 1 GB per pair; not part of make check.
#
# Usage: bash bench/scaling.sh [BUILD_DIR]   (default build). Environment:
# PAIRS (default 7). Prints a markdown section and puts it into
# bench/results.md between its markers.
set -euo pipefail

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shardc="$build/shardc"
work="$build/bench"
pairs=${PAIRS:-7}
mkdir -p "$work"
[ -x "$shardc" ] || { echo "bench/scaling.sh: build $shardc first (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/scaling.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }

"${CC:-cc}" -std=c11 -O2 -o "$work/gen_transformer" bench/gen_transformer.c
declare -A file ops
for size in 100000 1000000; do
    file[$size]="$work/transformer_${size}_2x4.shir"
    [ -s "${file[$size]}" ] || "$work/gen_transformer" -n "$size" -d 2 -m 4 -o "${file[$size]}" 2> "${file[$size]}.info"
    ops[$size]=$(awk '{print $2}' "${file[$size]}.info")
done

# compile SIZE: one line "process-cpu-s passes-cpu-s sys-s max-rss-kib minor-faults"
compile() {
    local log="$work/scaling.log"
    /usr/bin/time -o "$log.time" -f '%U %S %M %R' \
        "$shardc" "${file[$1]}" --emit=partitioned --time-passes 2> "$log" > /dev/null
    local passes
    passes=$(awk '$1 != "emit" && $NF == "cpu" { s += $(NF - 2) } END { printf "%.4f", s / 1000 }' "$log")
    awk -v p="$passes" '{ printf "%.3f %s %s %s %s\n", $1 + $2, p, $2, $3, $4 }' "$log.time"
}

exponent() { awk -v a="$1" -v b="$2" -v n5="${ops[100000]}" -v n6="${ops[1000000]}" \
    'BEGIN { printf "%.3f", log(b / a) / log(n6 / n5) }'; }

runs="$work/scaling.runs"
: > "$runs"
for ((p = 1; p <= pairs; p++)); do
    if ((p % 2)); then
        small=$(compile 100000); large=$(compile 1000000)
    else
        large=$(compile 1000000); small=$(compile 100000)
    fi
    read -r a5 b5 s5 m5 f5 <<< "$small"
    read -r a6 b6 s6 m6 f6 <<< "$large"
    echo "$p $a5 $a6 $(exponent "$a5" "$a6") $b5 $b6 $(exponent "$b5" "$b6") $s5 $s6 $m5 $m6 $f5 $f6" >> "$runs"
    echo "bench/scaling.sh: pair $p of $pairs done" >&2
done

median() { sort -g | awk '{a[NR] = $1} END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '{ print $c }' "$runs"; }
summary() { # summary COLUMN: "median (min–max)"
    printf '%.3f (%.3f–%.3f)' "$(col "$1" | median)" "$(col "$1" | sort -g | head -1)" "$(col "$1" | sort -g | tail -1)"
}
verdict() { awk -v v="$(col "$1" | median)" 'BEGIN { print (v <= 1.02) ? "met" : "**missed**" }'; }
per_op() { # per_op COLUMN SIZE SCALE: median of COLUMN * SCALE / ops
    awk -v v="$(col "$1" | median)" -v n="${ops[$2]}" -v s="$3" 'BEGIN { printf "%.0f", v * s / n }'
}

section="$work/scaling_section.md"
{
    echo "<!-- bench/scaling.sh begin -->"
    echo "### Scaling exponent, 1e5 → 1e6 ops (bench/scaling.sh)"
    echo ""
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2> /dev/null || echo unknown)"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc); load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- modules: gen_transformer, ${ops[100000]} and ${ops[1000000]} ops on <\"data\"=2, \"model\"=4>; \`--emit=partitioned --time-passes > /dev/null\`"
    echo ""
    echo "Exponent = log(t(1e6) / t(1e5)) / log(${ops[1000000]} / ${ops[100000]}) per pair; A: process CPU"
    echo "(user + sys); B: parse → partition, the stages' thread CPU (printing left out):"
    echo ""
    echo "| pair | A 1e5 s | A 1e6 s | A exponent | B 1e5 s | B 1e6 s | B exponent | sys 1e5 s | sys 1e6 s |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk '{ printf "| %d | %.2f | %.2f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' "$runs"
    echo ""
    echo "Medians of $pairs pairs: A $(summary 4), B $(summary 7); target ≤ 1.02: A $(verdict 4), B $(verdict 7)."
    echo "Peak resident set per op: $(per_op 10 100000 1024) B at 1e5, $(per_op 11 1000000 1024) B at 1e6;"
    echo "minor page faults per 1,000 ops: $(per_op 12 100000 1000) at 1e5, $(per_op 13 1000000 1000) at 1e6."
    echo "<!-- bench/scaling.sh end -->"
} > "$section"
cat "$section"

# shellcheck source=bench/section.sh
. "$(dirname "$0")/section.sh"
bench_put_section bench/results.md "$section" bench/scaling.sh
