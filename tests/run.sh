#!/usr/bin/env bash
# The one test driver: cmocka unit tests, golden tests and round-trip tests.
# Usage: tests/run.sh BUILD_DIR [FILTER]. Last line: "N passed, N failed".
# TEST_JOBS=N runs the tests in N shards at once (default: nproc).
#
# Golden tests are files tests/**/*.shir, *.test and *.mlir (but a NAME.mlir
# beside a NAME.test is that test's input). A file may hold
#   # RUN: <command>     (one; default for .shir and .mlir: "shardc %s"; %s is the file,
#                         relative to the repository root, where commands
#                         run; a leading "shardc" is the built binary)
#   # EXIT: <status>     expected exit status (default 0, or 1 with .err)
#   # CHECK...: lines    FileCheck-14 patterns matched against stdout+stderr
# and sit beside NAME.expected (exact stdout) and/or NAME.err (exact stderr).
set -u
build=${1:-build}
filter=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
shardc="$root/$build/shardc"
export SHARDC="$shardc" # for commands that hand it on (tests/difftest.test)
filecheck=$(command -v FileCheck-14 || command -v FileCheck || true)
out="$root/$build/test-out"
mkdir -p "$out"
# python3 for the tests is the system's when there is one: a version
# manager's shim (pyenv's) takes 140 ms to start, /usr/bin/python3 12 ms,
# and the tests start python some three hundred times.
if [ -x /usr/bin/python3 ]; then
    mkdir -p "$out/bin" && ln -sf /usr/bin/python3 "$out/bin/python3" && export PATH="$out/bin:$PATH"
fi
passed=0 failed=0
failures=()

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL: $1" >&2; }

run_unit_test() {
    local bin=$1 log p f
    log="$out/$(basename "$bin").log"
    (cd "$root" && "$bin") >"$log" 2>&1
    local rc=$?
    p=$(grep -Eo '\[  PASSED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
    f=$(grep -Eo '\[  FAILED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
    passed=$((passed + ${p:-0}))
    if [ -n "$f" ] && [ "$f" != 0 ]; then
        failed=$((failed + f)); failures+=("$(basename "$bin")"); cat "$log" >&2
    elif [ $rc -ne 0 ]; then
        fail "$(basename "$bin") (exit $rc)"; cat "$log" >&2
    fi
}

# The header of a test file, read in bash (a grep or sed per question per
# test was a fifth of make check): RUN_CMD, its first RUN line's command;
# RUN_COUNT, how many it has; WANT_EXIT, its EXIT status (empty: none);
# HAS_CHECK, 1 if it has CHECK lines.
read_header() {
    local line
    RUN_CMD='' RUN_COUNT=0 WANT_EXIT='' HAS_CHECK=0
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
        '# RUN: '*) RUN_COUNT=$((RUN_COUNT + 1)); [ $RUN_COUNT = 1 ] && RUN_CMD=${line#'# RUN: '} ;;
        '# EXIT: '*) [ -z "$WANT_EXIT" ] && WANT_EXIT=${line#'# EXIT: '} ;;
        '# CHECK'*) HAS_CHECK=1 ;;
        esac
    done <"$1"
}

# Expand the RUN line of a test file (read_header's RUN_CMD) into a shell command.
test_command() {
    local file=$1 run=$RUN_CMD
    [ -z "$run" ] && run="shardc %s"
    # Commands run in the repository root; a relative %s keeps the file
    # names in golden diagnostics independent of where the tree lives.
    run=${run//%s/\"${file#"$root"/}\"}
    run=$(printf '%s' "$run" | sed -E "s#(^|[|;&] *)shardc( |\$)#\\1\"$shardc\"\\2#g")
    printf '%s' "$run"
}

run_golden_test() {
    local file=$1 base=${1%.*} name=${1#"$root"/} cmd want_exit rc ok=1
    local tmp="$out/${name//\//_}"
    read_header "$file"
    cmd=$(test_command "$file")
    # Only one RUN line is run: a second one would be silently ignored.
    [ "$RUN_COUNT" -le 1 ] || { ok=0; echo "  more than one RUN line: join them with ';'" >&2; }
    want_exit=$WANT_EXIT
    [ -z "$want_exit" ] && { [ -f "$base.err" ] && want_exit=1 || want_exit=0; }
    (cd "$root" && bash -c "$cmd") >"$tmp.stdout" 2>"$tmp.stderr" </dev/null
    rc=$?
    [ "$rc" = "$want_exit" ] || { ok=0; echo "  exit $rc, expected $want_exit" >&2; }
    if [ -f "$base.expected" ] && ! diff -u "$base.expected" "$tmp.stdout" >"$tmp.diff"; then
        ok=0; cat "$tmp.diff" >&2
    fi
    if [ -f "$base.err" ] && ! diff -u "$base.err" "$tmp.stderr" >"$tmp.diff"; then
        ok=0; cat "$tmp.diff" >&2
    fi
    if [ "$HAS_CHECK" = 1 ]; then
        cat "$tmp.stdout" "$tmp.stderr" >"$tmp.all"
        if [ -z "$filecheck" ]; then ok=0; echo "  FileCheck-14 not installed" >&2
        elif ! "$filecheck" --comment-prefixes=NOTE --input-file="$tmp.all" "$file" 2>"$tmp.fc"; then
            ok=0; cat "$tmp.fc" >&2
        fi
    fi
    if [ $ok = 1 ]; then pass; else fail "$name"; [ -s "$tmp.stderr" ] && head -20 "$tmp.stderr" >&2; fi
}

# print -> parse -> print must be a fixpoint for every file that parses.
run_roundtrip_test() {
    local file=$1 name=${1#"$root"/} tmp
    tmp="$out/rt_$(echo "$name" | tr '/' '_')"
    "$shardc" "$file" --emit=ir >"$tmp.1" 2>/dev/null || return 0
    if "$shardc" "$tmp.1" --emit=ir >"$tmp.2" 2>"$tmp.e" && cmp -s "$tmp.1" "$tmp.2"; then
        pass
    else
        fail "round-trip $name"; diff -u "$tmp.1" "$tmp.2" | head -20 >&2; cat "$tmp.e" >&2
    fi
}

# .shir -> .mlir -> .shir and .mlir -> .shir -> .mlir (docs/mlir.md): a
# .shir sample printed as sdy MLIR (--emit=sdy, the propagated program) and
# read back propagates to the same canonical .shir as the sample; a .mlir
# sample read as .shir (--emit=ir) and printed as sdy MLIR again propagates
# to the same .shir as the sample (compared as .shir: what only MLIR holds,
# module attributes and jax.result_info, has no .shir form). Einsum
# subscripts and rule factor names are renamed alike on both sides (MLIR
# has no place for them, tests/roundtrip/normalize.py). A sample's own
# --config=FILE (named in its comments) is passed on. The samples in
# tests/roundtrip/known-differences come back as an equivalent but
# different program, each for the reason given there, and must still
# differ (so that a fix shows up here).
run_mlir_roundtrip_test() {
    local file=$1 name=${1#"$root"/} tmp norm="python3 $root/tests/roundtrip/normalize.py" cfg known
    tmp="$out/mrt_$(echo "$name" | tr '/' '_')"
    cfg=$(grep -m1 -oE -- '--config=[^ ]+' "$file")
    known=$(grep -c "^${name}\b" "$root/tests/roundtrip/known-differences")
    if [[ "$file" == *.shir ]]; then
        (cd "$root" && "$shardc" "$name" $cfg --emit=propagated | $norm) >"$tmp.a" 2>"$tmp.e" &&
        (cd "$root" && "$shardc" "$name" $cfg --emit=sdy) >"$tmp.mlir" 2>>"$tmp.e" &&
        (cd "$root" && "$shardc" "$tmp.mlir" --emit=propagated | $norm) >"$tmp.b" 2>>"$tmp.e"
    else
        (cd "$root" && "$shardc" "$name" --emit=propagated | $norm) >"$tmp.a" 2>"$tmp.e" &&
        (cd "$root" && "$shardc" "$name" --emit=ir) >"$tmp.shir" 2>>"$tmp.e" &&
        (cd "$root" && "$shardc" "$tmp.shir" --emit=sdy) >"$tmp.mlir" 2>>"$tmp.e" &&
        (cd "$root" && "$shardc" "$tmp.mlir" --emit=propagated | $norm) >"$tmp.b" 2>>"$tmp.e"
    fi
    local rc=$? same=0
    [ $rc = 0 ] && [ -s "$tmp.a" ] && cmp -s "$tmp.a" "$tmp.b" && same=1
    if [ $rc = 0 ] && [ $same != "$known" ]; then
        pass
    elif [ "$known" = 1 ] && [ $same = 1 ]; then
        fail "mlir round-trip $name (listed in tests/roundtrip/known-differences but round-trips now)"
    else
        fail "mlir round-trip $name"; diff -u "$tmp.a" "$tmp.b" | head -20 >&2; head -5 "$tmp.e" >&2
    fi
}

# Every test as "KIND FILE", in a fixed order.
list_tests() {
    local bin file
    for bin in "$root/$build"/tests/test_*; do
        [ -x "$bin" ] && echo "unit $bin"
    done
    find "$root/tests" -type f \( -name '*.shir' -o -name '*.test' -o -name '*.mlir' \) -not -path '*/test-out/*' |
        sort | while IFS= read -r file; do
        [[ "$file" == *.mlir && -f "${file%.mlir}.test" ]] && continue # the input of its .test
        echo "golden $file"
    done
    find "$root/samples" "$root/tests" -type f -name '*.shir' | sort | sed 's/^/roundtrip /'
    find "$root/samples" -type f \( -name '*.shir' -o -name '*.mlir' \) | sort | sed 's/^/mlir_roundtrip /'
}

# Shard k of $jobs: every jobs-th test from the k-th on. Its counts, failed
# names and messages go to files the parent gathers.
run_shard() {
    local k=$1 i=0 kind file
    passed=0 failed=0 failures=()
    while read -r kind file; do
        i=$((i + 1))
        [ $(((i - 1) % jobs)) = "$k" ] || continue
        [ -n "$filter" ] && [[ "$file" != *"$filter"* ]] && continue
        case $kind in
        unit) run_unit_test "$file" ;;
        golden) run_golden_test "$file" ;;
        roundtrip) run_roundtrip_test "$file" ;;
        mlir_roundtrip) run_mlir_roundtrip_test "$file" ;;
        esac
    done <"$out/tests.list"
    echo "$passed $failed" >"$out/shard.$k.counts"
    printf '%s\n' "${failures[@]}" >"$out/shard.$k.failures"
}

# The tests run in $TEST_JOBS shards at once (default: the machine's
# cores); messages come out shard by shard after all have finished.
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
list_tests >"$out/tests.list"
for ((k = 0; k < jobs; k++)); do
    run_shard "$k" 2>"$out/shard.$k.log" &
done
wait
for ((k = 0; k < jobs; k++)); do
    cat "$out/shard.$k.log" >&2
    read -r p f <"$out/shard.$k.counts"
    passed=$((passed + p)); failed=$((failed + f))
    while IFS= read -r name; do
        [ -n "$name" ] && failures+=("$name")
    done <"$out/shard.$k.failures"
done

if [ ${#failures[@]} -gt 0 ]; then
    echo "failed tests:"; printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
