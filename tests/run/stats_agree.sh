#!/usr/bin/env bash
# One cost metric (docs/partitioning.md, "Cost metrics"): for every sample,
# `shardc run --stats` prints the program's count exactly as `shardc
# --stats` prints it, and the traffic the interpreter measured while the
# program ran equals that count, kind by kind, received and sent. $SHARDC
# is the shardc under test (tests/run.sh exports it).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
for s in samples/*.shir samples/mlir/*.mlir samples/auto/*.shir; do
    flags=()
    case $s in
    *t5_*_logical.shir) flags=(--config=samples/t5x_rules.yaml) ;;
    *maxtext_*_logical.shir) flags=(--config=samples/maxtext_rules.yaml) ;;
    *haliax_*_logical.shir) flags=(--config=samples/haliax_rules.yaml) ;;
    esac
    n=$((n + 1))
    if ! "$SHARDC" "$s" "${flags[@]}" --stats > "$tmp/count" 2> "$tmp/err" ||
       ! "$SHARDC" run "$s" "${flags[@]}" --stats > "$tmp/run" 2>> "$tmp/err"; then
        bad=$((bad + 1))
        echo "$s: shardc fails: $(grep -m1 error "$tmp/err")"
        continue
    fi
    sed -n '/^counted/,/^measured/p' "$tmp/run" | sed '1d;$d' > "$tmp/counted"
    if ! cmp -s "$tmp/count" "$tmp/counted"; then
        bad=$((bad + 1))
        echo "$s: run --stats counts otherwise than --stats:"
        diff "$tmp/count" "$tmp/counted" | head -5
    elif ! grep -q '^measured traffic equals the count$' "$tmp/run"; then
        bad=$((bad + 1))
        echo "$s: $(grep '^measured traffic' "$tmp/run")"
    fi
done
echo "$n samples, $bad disagree"
