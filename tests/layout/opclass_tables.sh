#!/usr/bin/env bash
# opclasses.def's promise (docs/architecture.md, "Adding an op"): each of
# the five per-class tables is a column of it, so a class whose line names a
# function that does not exist fails to compile in that table's file. Each
# file compiles with the real list, and fails with a made-up class added.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/shardc"
cp "$root/include/shardc/opclasses.def" "$tmp/shardc/opclasses.def"
echo 'OPCLASS(OPC_MADE_UP, verify_made_up, rules_made_up, explicit_made_up, partition_made_up, exec_made_up)' \
    >> "$tmp/shardc/opclasses.def"
flags=(-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Isrc "-I$build/gen"
       -I/usr/include/x86_64-linux-gnu -fsyntax-only)
failures=0
for pair in src/verify/ops.c:verify_made_up src/rules/registry.c:rules_made_up \
            src/explicit/rules.c:explicit_made_up src/partition/ops.c:partition_made_up \
            src/interp/interp.c:exec_made_up; do
    file=${pair%%:*} missing=${pair#*:}
    if ! (cd "$root" && cc "${flags[@]}" "$file" 2>/dev/null); then
        echo "FAIL: $file does not compile with the real list"; failures=$((failures + 1)); continue
    fi
    if out=$(cd "$root" && cc "-I$tmp" "${flags[@]}" "$file" 2>&1) || ! grep -q "$missing" <<<"$out"; then
        echo "FAIL: $file compiles without $missing"; failures=$((failures + 1)); continue
    fi
    echo "ok   $file needs its column ($missing)"
done
echo "opclass tables: $failures failed"
[ "$failures" = 0 ]
