#!/usr/bin/env bash
# How many of the programs a difftest campaign ran use each op family:
# regenerates them with build/shirgen (generation only, no runs) and
# counts, per op, the programs that hold it at least once.
# usage: tools/difftest_ops.sh [-b BUILD] -n N -s SEED [-- SHIRGEN_OPTIONS...]
# (the same -n, -s and shirgen options as the tools/difftest.sh run; `make
# difftest-ops N=... SEED=... GENFLAGS=...`). Prints "op programs" lines
# for the ops of issue 18, a few forms of them, and the total.
set -u
build=build n=100 seed=1
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=$2; shift ;;
    -n) n=$2; shift ;;
    -s) seed=$2; shift ;;
    --) shift; break ;;
    *) echo "usage: tools/difftest_ops.sh [-b BUILD] -n N -s SEED [-- SHIRGEN_OPTIONS...]" >&2; exit 2 ;;
    esac
    shift
done
ops="gather scatter dynamic_slice dynamic_update_slice convolution reduce_window select_and_scatter reduce sort top_k rng_bit_generator"
# forms of an op, counted like ops: PHILOX and 8-bit rng_bit_generator,
# compare in StableHLO's total order
forms="rng_philox rng_8bit compare_totalorder"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in $(seq "$seed" $((seed + n - 1))); do
    "$build/shirgen" --seed="$s" "$@" -o "$tmp/p.shir" || exit 1
    # one line per op the program uses (the op name after '=')
    sed -nE 's/^ *%[^=]*= ([a-z_]+) .*/\1/p' "$tmp/p.shir" | sort -u
    grep -q 'rng_algorithm = "PHILOX"' "$tmp/p.shir" && echo rng_philox
    grep -qE '= rng_bit_generator .*, i8\[' "$tmp/p.shir" && echo rng_8bit
    grep -q 'compare_type = "TOTALORDER"' "$tmp/p.shir" && echo compare_totalorder
done > "$tmp/uses"
for op in $ops $forms; do
    printf '%-22s %d\n' "$op" "$(grep -cx "$op" "$tmp/uses")"
done
echo "programs               $n"
