#!/usr/bin/env bash
# Allocation-failure injection (docs/testing.md), run by `make check-alloc`:
# every sample compiled (--emit=partitioned -o FILE) and run (shardc run
# --outputs=DIR) once per allocation it makes, with that allocation failing
# (tests/alloc/failalloc.c, in the ASan+UBSan build). Each run must either
#   - succeed as if nothing failed (the same output: the failure was absorbed), or
#   - exit 1 with an error message and leave no output file behind,
# and never crash, trip ASan/UBSan or leak (LeakSanitizer).
# Usage: tests/alloc/run.sh [BUILD_DIR] [FILTER]   (default build-alloc);
# ALLOC_MODES="compile" or "run" for one half.
# Last line: "alloc: N failure points, N passed, N failed".
set -u
build=${1:-build-alloc}
filter=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
shardc="$build/shardc"
out="$build/test-out/alloc"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=exitcode=99
export OPENBLAS_NUM_THREADS=1
rm -rf "$out"
mkdir -p "$out"
points=0 passed=0 failed=0
failures=()

# The --config a sample's header names (logical-axis samples), if any.
sample_flags() {
    grep -m1 -o -- '--config=[^ ]*' "$1" || true
}

# run_case MODE FILE DIR [N]: one compile or run, output under DIR; exit status.
run_case() {
    local mode=$1 file=$2 dir=$3 n=${4:-}
    rm -rf "$dir" && mkdir -p "$dir"
    if [ "$mode" = compile ]; then
        SHARDC_FAIL_ALLOC=$n SHARDC_COUNT_ALLOC="$dir/count" "$shardc" "$file" $(sample_flags "$file") \
            --emit=partitioned -o "$dir/out.txt" > "$dir/stdout" 2> "$dir/stderr"
    else
        SHARDC_FAIL_ALLOC=$n SHARDC_COUNT_ALLOC="$dir/count" "$shardc" run "$file" $(sample_flags "$file") \
            --outputs="$dir/results" > "$dir/stdout" 2> "$dir/stderr"
    fi
}

# What a run left: its output files' contents and its stdout, for comparison.
outputs_of() {
    local dir=$1
    { cat "$dir/out.txt" 2> /dev/null; cat "$dir"/results/* 2> /dev/null; grep -v ' run: ' "$dir/stdout"; } | md5sum
}

# judge DIR STATUS GOOD_SUM: "" if the run is acceptable, else why not.
judge() {
    local dir=$1 rc=$2 good=$3
    if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$dir/stderr"; then
        grep -m1 -E 'ERROR: |runtime error:' "$dir/stderr"
    elif [ "$rc" = 0 ]; then
        [ "$(outputs_of "$dir")" = "$good" ] || echo "exit 0 with other output"
    elif [ "$rc" != 1 ]; then
        echo "exit $rc: $(head -c 200 "$dir/stderr")"
    elif [ -n "$(ls -A "$dir" | grep -v -x -E 'stdout|stderr|count')" ]; then
        echo "exit 1 but it left $(ls -A "$dir" | grep -v -x -E 'stdout|stderr|count' | head -1)"
    elif ! grep -q 'error' "$dir/stderr"; then
        echo "exit 1 without an error message"
    fi
}

check_sample() {
    local mode=$1 file=$2 name dir count good n why bad=0
    name="$mode-$(basename "$file")"
    dir="$out/$name"
    run_case "$mode" "$file" "$dir/clean"
    [ $? = 0 ] || { fail "$name: fails without injection"; return; }
    count=$(cat "$dir/clean/count")
    good=$(outputs_of "$dir/clean")
    for ((n = 1; n <= count; n++)); do
        points=$((points + 1))
        run_case "$mode" "$file" "$dir/n" "$n"
        why=$(judge "$dir/n" $? "$good")
        if [ -n "$why" ]; then
            bad=$((bad + 1))
            echo "  $name allocation $n of $count: $why" >&2
            cp -r "$dir/n" "$dir/fail-$n"
        fi
    done
    rm -rf "$dir/n"
    if [ $bad = 0 ]; then
        pass; echo "  ok   $name: $count failure points" >&2
    else
        fail "$name: $bad of $count failure points"
    fi
}

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL: $1" >&2; }

if [ ! -x "$shardc" ]; then
    echo "tests/alloc/run.sh: no $shardc (make check-alloc builds it)" >&2
    echo "alloc: 0 failure points, 0 passed, 1 failed"
    exit 1
fi
for file in samples/*.shir samples/mlir/*.mlir; do
    [ -n "$filter" ] && [[ "$file" != *"$filter"* ]] && continue
    for mode in ${ALLOC_MODES:-compile run}; do
        check_sample "$mode" "$file"
    done
done
if [ ${#failures[@]} -gt 0 ]; then
    echo "failed:"; printf '  %s\n' "${failures[@]}"
fi
echo "alloc: $points failure points, $passed passed, $failed failed"
[ "$failed" = 0 ]
