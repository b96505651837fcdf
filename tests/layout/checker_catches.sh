#!/usr/bin/env bash
# scripts/check-layering.py on small made-up trees: each breaks one rule and
# must fail naming it; a clean one must pass. Keeps the checker honest (a
# check that cannot fail proves nothing about the real tree).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
check="$root/scripts/check-layering.py"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failures=0

# tree NAME FILE=SOURCE...: a tree with those sources, compiled to BUILD/obj.
tree() {
    local dir="$tmp/$1"; shift
    mkdir -p "$dir"
    for spec in "$@"; do
        local file=${spec%%=*} body=${spec#*=}
        mkdir -p "$dir/$(dirname "$file")" "$dir/build/obj/$(dirname "$file")"
        printf '%s\n' "$body" > "$dir/$file"
        case $file in *.c) cc -c "$dir/$file" -o "$dir/build/obj/${file%.c}.o" || exit 2;; esac
    done
    echo "$dir"
}

# expect NAME STATUS PATTERN DIR
expect() {
    local out status
    out=$(cd "$4" && python3 "$check" build 2>&1); status=$?
    if [ "$status" != "$2" ] || ! grep -q -- "$3" <<<"$out"; then
        echo "FAIL: $1: exit $status, expected $2 with '$3'"; echo "$out" | sed 's/^/  /'
        failures=$((failures + 1))
    else
        echo "ok   $1"
    fi
}

clean=$(tree clean 'src/ir/ir.c=int ir_one(void) { return 1; }' \
    'src/verify/verify.c=int ir_one(void); int verify_two(void) { return ir_one() + 1; }' \
    'passes/verify.c=int verify_two(void); const int pass_verify = 1; int pass_verify_entry(void) { return verify_two(); }')
expect "a clean tree passes" 0 "no cross-subsystem cycle" "$clean"

up=$(tree up 'passes/p.c=const int pass_p = 1; int pipeline_helper(void) { return 1; }' \
    'src/ir/ir.c=int pipeline_helper(void); int ir_one(void) { return pipeline_helper(); }')
expect "src calling passes fails" 1 "src/ir/ir.c calls pipeline_helper, defined in passes/p.c" "$up"

inc=$(tree inc 'passes/p.h=int x;' 'src/ir/ir.c=#include "../../passes/p.h"
int ir_one(void) { return 1; }')
expect "src including passes fails" 1 "includes ../../passes/p.h" "$inc"

cyc=$(tree cyc 'src/ir/ir.c=int verify_b(void); int ir_a(int n) { return n ? verify_b() : 0; }' \
    'src/verify/verify.c=int ir_a(int); int verify_b(void) { return ir_a(0); }')
expect "a cycle across subsystems fails" 1 "cycle across subsystems" "$cyc"

fold=$(tree fold 'src/ir/a.c=int verify_y(void); int ir_x(void) { return verify_y(); }' \
    'src/verify/y.c=int verify_y(void) { return 1; }' \
    'src/verify/z.c=int ir_w(void); int verify_z(void) { return ir_w(); }' \
    'src/ir/w.c=int ir_w(void) { return 2; }')
expect "a cycle of folders (no cycle of files) fails" 1 "subsystem cycle" "$fold"

pass=$(tree pass 'passes/p.c=const int pass_p = 1; int one(void) { return 1; } int two(void) { return 2; }')
expect "a pass exporting two functions fails" 1 "a pass file exports its Pass and at most one entry" "$pass"

name=$(tree name 'src/ir/ir.c=int helper(void) { return 1; }')
expect "an exported name without its prefix fails" 1 "exports helper, without a prefix of ir" "$name"

echo "layering checker: $failures failed"
[ "$failures" = 0 ]
