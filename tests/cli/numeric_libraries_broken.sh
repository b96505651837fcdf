#!/usr/bin/env bash
# `shardc run` with a broken libopenblas.so.0 first on the library path:
# the load before the timed runs (kern_libs_preload) fails quietly, a
# program that calls no BLAS kernel still runs, and one that does fails at
# its op (docs/interpreter.md, "Numeric libraries").
# $SHARDC is the shardc under test (tests/run.sh exports it).
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
: > "$dir/libopenblas.so.0"
LD_LIBRARY_PATH="$dir" "$SHARDC" run samples/psum.shir > /dev/null 2>&1
echo "psum: exit $?"
LD_LIBRARY_PATH="$dir" "$SHARDC" run samples/megatron_mlp.shir 2>&1 >/dev/null | sed -n 's/\(cannot load the numeric libraries\).*/\1/p' | head -1
LD_LIBRARY_PATH="$dir" "$SHARDC" run samples/megatron_mlp.shir > /dev/null 2>&1
echo "megatron: exit $?"
