#!/usr/bin/env bash
# Every sample's --emit=dot output, rendered by Graphviz's dot (Debian
# graphviz, scripts/install-deps.sh): a sample that does not compile or a
# graph dot rejects fails here. $SHARDC is the shardc under test
# (tests/run.sh exports it).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
for s in samples/*.shir samples/mlir/*.mlir; do
    case $s in *_logical.shir) continue ;; esac # they need their --config=rules file
    n=$((n + 1))
    if ! "$SHARDC" "$s" --emit=dot -o "$tmp/g.dot" 2>"$tmp/err"; then
        bad=$((bad + 1))
        echo "shardc fails on $s: $(head -1 "$tmp/err")"
    elif ! dot -Tsvg -o "$tmp/g.svg" "$tmp/g.dot" 2>"$tmp/err" || ! grep -q '<svg' "$tmp/g.svg"; then
        bad=$((bad + 1))
        echo "dot rejects the graph of $s: $(head -1 "$tmp/err")"
    fi
done
echo "$n samples, $bad failed"
