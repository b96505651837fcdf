#!/usr/bin/env bash
# Random differential testing (docs/testing.md, "Random differential testing").
#
# Generates N programs with build/shirgen from SEED on, runs each with
# `shardc run` (the partitioned program on simulated devices against the
# single-device reference) and classifies the outcome:
#   pass      every result matches
#   mismatch  `shardc run` printed "FAIL: K of N results differ"
#   crash     a signal, a sanitizer report or a timeout
#   error     a compile or runtime error on a program `shardc FILE` accepts
#   invalid   `shardc FILE` rejects the program: a shirgen bug
#   emitted   the program passed, but its printed SPMD program
#             (--emit=partitioned) does not parse, verify or run with the
#             original as --reference, or its results differ in any bit
#             from the direct run's
# Failing programs stay in OUT (SEED.shir, .out, .err); with -r one per
# distinct failure signature is reduced to a small reproducer
# OUT/SEED.min.shir that fails the same way.
#
# usage: tools/difftest.sh [-b BUILD] [-n N] [-s SEED] [-j JOBS] [-t SECONDS]
#                          [-o OUT] [-r] [-- SHIRGEN_OPTIONS...]
# BUILD (default: the directory of $SHARDC, which tests/run.sh exports, or
# build) holds shardc and shirgen. The failures go to stderr; the last line
# of stdout is "N programs, M mismatches, K crashes, E errors, I invalid,
# P emitted-program failures (R programs/s)". Exit status 0 when every program passed.
# DIFFTEST_FLAGS (environment): more shardc flags for every compile and
# run, e.g. DIFFTEST_FLAGS=--auto-shard (docs/auto_sharding.md): the
# layout the search chooses must not change the numbers.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)

# ---- one program ----------------------------------------------------------------

# The first error message, with names and numbers blurred: failures with
# the same signature are (most likely) the same bug.
signature() {
    grep -m1 -E 'error: |FAIL: ' "$1" | sed -E 's/^.*error: //; s/%[A-Za-z0-9_.$]+/%V/g; s/[0-9]+/N/g' | cut -c1-160
}

# A program that passed (its SPMD results in $f.direct): its printed SPMD
# program must parse, verify and run (with the original as --reference) to
# the same bits as the direct run.
classify_emitted() {
    local f=$1 flags=$2
    # shellcheck disable=SC2086
    if ! "$DT_SHARDC" "$f" --emit=partitioned ${DIFFTEST_FLAGS:-} -o "$f.spmd.shir" 2>/dev/null </dev/null; then
        echo "error|--emit=partitioned failed on a program that runs"
        return
    fi
    # shellcheck disable=SC2086
    timeout -k 5 "$DT_TIMEOUT" "$DT_SHARDC" run "$f.spmd.shir" --reference="$f" $flags \
        --outputs="$f.emitted" >"$f.spmd.out" 2>"$f.spmd.err" </dev/null
    if [ $? != 0 ]; then echo "emitted|$(signature "$f.spmd.err")$(signature "$f.spmd.out")"; return; fi
    local r
    for r in "$f.direct"/*.npy; do
        cmp -s "$r" "$f.emitted/$(basename "$r")" || { echo "emitted|$(basename "$r") differs from the direct run"; return; }
    done
    rm -rf "$f.direct" "$f.emitted" "$f.spmd.shir" "$f.spmd.out" "$f.spmd.err"
    echo "pass|"
}

# Prints "CLASS|SIGNATURE" for a program file.
classify() {
    local f=$1 flags rc
    flags=$(sed -n 's/^# RUN: shardc run %s//p' "$f" | head -1)
    # shellcheck disable=SC2086 # the flags are words
    rm -rf "$f.direct" "$f.emitted"
    timeout -k 5 "$DT_TIMEOUT" "$DT_SHARDC" run "$f" $flags ${DIFFTEST_FLAGS:-} --outputs="$f.direct" >"$f.out" 2>"$f.err" </dev/null
    rc=$?
    if [ $rc = 0 ]; then echo "$(classify_emitted "$f" "$flags")"; return; fi
    if [ $rc = 124 ] || [ $rc = 137 ]; then echo "crash|timeout after ${DT_TIMEOUT}s"; return; fi
    if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$f.err"; then
        echo "crash|$(grep -m1 -oE '(Address|Leak)Sanitizer: [a-z-]+|runtime error: .*' "$f.err" | cut -c1-160)"
        return
    fi
    if [ $rc -ge 128 ]; then echo "crash|signal $((rc - 128))"; return; fi
    if grep -q '^FAIL: ' "$f.out"; then echo "mismatch|results differ"; return; fi
    if ! "$DT_SHARDC" "$f" >/dev/null 2>"$f.static"; then
        echo "invalid|$(signature "$f.static")"
        return
    fi
    echo "error|$(signature "$f.err")"
}

# Worker: generate and classify each seed given; one line per seed.
run_seeds() {
    local seed f result
    for seed in "$@"; do
        f="$DT_OUT/$seed.shir"
        # shellcheck disable=SC2086
        if ! "$DT_SHIRGEN" --seed="$seed" $DT_GENOPTS >"$f" 2>"$f.gen"; then
            echo "$seed invalid|shirgen failed: $(head -c 120 "$f.gen")"
            continue
        fi
        result=$(classify "$f")
        echo "$seed $result"
        [ "${result%%|*}" = pass ] && rm -rf "$f" "$f.out" "$f.err" "$f.gen" "$f.static"
    done
}

# ---- reduction ---------------------------------------------------------------

# Greedy delta debugging over shirgen's edits: keep any variant that fails
# with the same class and signature, until no edit does.
reduce() {
    local seed=$1 want=$2
    local cur="$DT_OUT/$seed.cur.shir" cand="$DT_OUT/$seed.cand.shir" header k changed=1 rc got
    header=$(grep -E '^# (Generated by|RUN):' "$DT_OUT/$seed.shir")
    cp "$DT_OUT/$seed.shir" "$cur"
    while [ $changed = 1 ]; do
        changed=0 k=0
        while :; do
            "$DT_SHIRGEN" --reduce=$k "$cur" >"$cand.body" 2>/dev/null
            rc=$?
            [ $rc = 3 ] && break # past the last edit
            [ $rc = 0 ] || { k=$((k + 1)); continue; }
            { echo "$header"; echo; cat "$cand.body"; } >"$cand"
            # An edit that changes nothing would be "kept" forever.
            if cmp -s "$cand" "$cur"; then k=$((k + 1)); continue; fi
            got=$(classify "$cand")
            if [ "$got" = "$want" ]; then cp "$cand" "$cur"; changed=1; else k=$((k + 1)); fi
        done
    done
    { echo "# Reduced by tools/difftest.sh -r: ${want%%|*}: ${want#*|}"; cat "$cur"; } >"$DT_OUT/$seed.min.shir"
    rm -f "$cur" "$cand" "$cand".*
}

if [ "${1:-}" = --one ]; then
    shift
    run_seeds "$@"
    exit 0
fi
if [ "${1:-}" = --reduce-one ]; then
    reduce "$2" "$3"
    exit 0
fi

# ---- the campaign --------------------------------------------------------------

build=build n=100 seed=1 jobs=$(nproc 2>/dev/null || echo 2) timeout_s=60 out="" do_reduce=0
[ -n "${SHARDC:-}" ] && build=$(dirname "$SHARDC")
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=$2; shift ;;
    -n) n=$2; shift ;;
    -s) seed=$2; shift ;;
    -j) jobs=$2; shift ;;
    -t) timeout_s=$2; shift ;;
    -o) out=$2; shift ;;
    -r) do_reduce=1 ;;
    --) shift; break ;;
    *) echo "usage: tools/difftest.sh [-b BUILD] [-n N] [-s SEED] [-j JOBS] [-t SECONDS] [-o OUT] [-r] [-- SHIRGEN_OPTIONS...]" >&2
       exit 2 ;;
    esac
    shift
done
case $build in /*) ;; *) build="$root/$build" ;; esac
export DT_SHARDC="$build/shardc" DT_SHIRGEN="$build/shirgen" DT_TIMEOUT=$timeout_s DT_GENOPTS="$*"
export DT_OUT=${out:-$build/difftest}
for tool in "$DT_SHARDC" "$DT_SHIRGEN"; do
    [ -x "$tool" ] || { echo "difftest: $tool is missing (run make)" >&2; exit 2; }
done
mkdir -p "$DT_OUT"
results="$DT_OUT/results.$seed.txt"
start=$(date +%s.%N)
seq "$seed" $((seed + n - 1)) | xargs -P "$jobs" -n 8 bash "$0" --one >"$results"
rate=$(awk -v n="$n" -v t0="$start" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", n / (t1 - t0) }')

count() { grep -c " $1|" "$results"; }
mismatches=$(count mismatch) crashes=$(count crash) errors=$(count error) invalid=$(count invalid)
emitted=$(count emitted)
failed=$((mismatches + crashes + errors + invalid + emitted))
if [ $failed -gt 0 ]; then
    echo "failures (programs in $DT_OUT):"
    grep -v ' pass|' "$results" | sort -n | sed -E 's/^([0-9]+) ([a-z]+)\|/  seed \1: \2: /'
fi >&2
if [ $failed -gt 0 ] && [ $do_reduce = 1 ]; then
    # One reproducer per distinct signature, from its lowest seed.
    grep -v ' pass|' "$results" | sort -n | sort -s -t' ' -k2 -u | while read -r s want; do
        bash "$0" --reduce-one "$s" "$want"
        echo "reduced seed $s ($want): $DT_OUT/$s.min.shir"
    done >&2
fi
echo "$n programs, $mismatches mismatches, $crashes crashes, $errors errors, $invalid invalid, $emitted emitted-program failures ($rate programs/s)"
[ $failed = 0 ]
