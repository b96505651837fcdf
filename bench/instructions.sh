#!/usr/bin/env bash
# Instruction counts of the compiler (callgrind: the same figures on any
# machine of this kind, whatever its load; bench/README.md "Instruction
# counts"). On the synthetic transformer (gen_transformer, default 1e4 ops,
# data=2 x model=4), per op:
#   compile     parse -> partition -> print, `shardc T.shir --emit=partitioned`
#   read .shir  cli_read_program on the propagated module as .shir
#   read MLIR   the same on it as sdy MLIR (reading, parsing, import)
#   print .shir print_module of the propagated module
#   print MLIR  mlir_print_module of it (--emit=sdy)
# and the MLIR/.shir ratios (issue 15: reading and printing MLIR cost no more
# per op than .shir). Not part of make check; needs valgrind.
# Usage: bash bench/instructions.sh [BUILD_DIR] [OPS]
set -euo pipefail
build=${1:-build}
ops=${2:-10000}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shardc=${SHARDC:-$build/shardc}
work="$build/bench"
mkdir -p "$work"
command -v valgrind >/dev/null || { echo "bench/instructions.sh: needs valgrind" >&2; exit 1; }
[ -x "$shardc" ] || { echo "bench/instructions.sh: build $shardc first (make)" >&2; exit 1; }
"${CC:-cc}" -std=c11 -O2 -o "$work/gen_transformer" bench/gen_transformer.c
gen="$work/instr_${ops}.shir"
"$work/gen_transformer" -n "$ops" -d 2 -m 4 -o "$gen" 2> "$gen.info"
n=$(awk '{print $2}' "$gen.info")
"$shardc" "$gen" --emit=propagated -o "$work/instr_p.shir"
"$shardc" "$gen" --emit=sdy -o "$work/instr_p.mlir"

# count [--toggle-collect=FN] ARGS...: the instructions callgrind counts
count() {
    local toggle=()
    [[ $1 == --toggle-collect=* ]] && { toggle=("$1"); shift; }
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "${toggle[@]}" "$shardc" "$@" -o /dev/null 2>&1 |
        awk '/ refs:/ { gsub(",", "", $NF); print $NF }'
}
compile=$(count "$gen" --emit=partitioned)
read_shir=$(count --toggle-collect=cli_read_program "$work/instr_p.shir" --emit=ir)
read_mlir=$(count --toggle-collect=cli_read_program "$work/instr_p.mlir" --emit=ir)
print_shir=$(count --toggle-collect=print_module "$work/instr_p.shir" --emit=ir)
print_mlir=$(count --toggle-collect=mlir_print_module "$work/instr_p.shir" --emit=sdy)
per() { awk -v a="$1" -v n="$n" 'BEGIN { printf "%.0f", a / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "## Instruction counts (callgrind), $n ops"
echo
echo "- $shardc ($("$shardc" --version 2>&1 | head -1)), tree at $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $(lscpu | sed -n 's/^Model name: *//p')"
echo
echo "| figure | instructions | per op | MLIR / .shir |"
echo "|---|---:|---:|---:|"
echo "| compile (parse → partition → print) | $compile | $(per "$compile") | |"
echo "| read .shir | $read_shir | $(per "$read_shir") | |"
echo "| read MLIR | $read_mlir | $(per "$read_mlir") | $(ratio "$read_mlir" "$read_shir") |"
echo "| print .shir | $print_shir | $(per "$print_shir") | |"
echo "| print MLIR | $print_mlir | $(per "$print_mlir") | $(ratio "$print_mlir" "$print_shir") |"
