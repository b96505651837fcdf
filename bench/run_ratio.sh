#!/bin/bash
# `shardc run FILE --stats`, REPS times per binary, binaries interleaved:
# prints, per binary, the median SPMD/reference wall-time ratio (each run's
# two times come from the same process, so load hits both) with its
# min-max, and the median reference and SPMD times.
# Usage: bench/run_ratio.sh FILE REPS SHARDC [SHARDC...] [-- extra run flags]
set -eu
file=$1 reps=$2; shift 2
bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do bins+=("$1"); shift; done
[ $# -gt 0 ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((r = 0; r < reps; r++)); do
    for ((b = 0; b < ${#bins[@]}; b++)); do
        "${bins[$b]}" run "$file" --stats "$@" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
        ref=$(sed -n 's/.*reference run: \([0-9.]*\) ms.*/\1/p' "$work/out")
        spmd=$(sed -n 's/.*spmd run: \([0-9.]*\) ms.*/\1/p' "$work/out")
        echo "$ref $spmd" >> "$work/b$b"
    done
done
for ((b = 0; b < ${#bins[@]}; b++)); do
    python3 - "$work/b$b" "${bins[$b]}" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
ratios = sorted(s / r for r, s in rows)
print(f"{sys.argv[2]}: spmd/reference {statistics.median(ratios):.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f}); "
      f"reference {statistics.median(r for r, s in rows):.1f} ms, spmd {statistics.median(s for r, s in rows):.1f} ms, n={len(rows)}")
PY
done
