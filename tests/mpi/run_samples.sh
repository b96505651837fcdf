#!/usr/bin/env bash
# The distributed runtime's checks (docs/distributed.md), run by .ci/run
# before the final `make check`:
#   1. every sample under `mpirun -n <its mesh size>` with --transport=mpi,
#      against the in-process runs of the same binary: the same report
#      lines as the threaded engine's (whose handlers the MPI run shares, so
#      its peaks too; the lockstep engine's devices hold no staging copies
#      at an all-gather, reduce-scatter or all-to-all) and results
#      bit-identical to both engines' (--outputs, compared with cmp);
#   2. per-device input files (--inputs=x.{device}.npy) against the global file;
#   3. failures end the job with a message from every rank, never a hang:
#      a mesh of another size than the job, a rank that fails, a timeout,
#      ranks that run another program or another seed (an MPMD launch).
# Usage: tests/mpi/run_samples.sh [BUILD_DIR]   (default build-mpi, from
# `make MPI=1`). Last line: "MPI: N passed, N failed". Without mpirun it
# says so and fails: run it only where MPICH is installed.
set -u
build=${1:-build-mpi}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
shardc="$build/shardc"
out="$build/test-out/mpi"
limit=${MPI_TEST_TIMEOUT:-300}   # seconds for one mpirun, a hang guard
export SHARDC_MPI_TIMEOUT=${SHARDC_MPI_TIMEOUT:-120}
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
rm -rf "$out"
mkdir -p "$out"
passed=0 failed=0
failures=()

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL: $1" >&2; }

if ! command -v mpirun > /dev/null || [ ! -x "$shardc" ]; then
    echo "tests/mpi/run_samples.sh: needs mpirun (MPICH) and $shardc (make MPI=1)" >&2
    echo "MPI: 0 passed, 1 failed"
    exit 1
fi

mpi() { # mpi N ARGS...: shardc run under mpirun -n N
    local n=$1
    shift
    timeout "$limit" mpirun -n "$n" "$shardc" run "$@" --transport=mpi
}

# ---- 1. samples ---------------------------------------------------------------

# The --config a sample's header names (logical-axis samples), if any.
sample_flags() {
    grep -m1 -o -- '--config=[^ ]*' "$1" || true
}

# Flags for `shardc run` only, from a "# MPI-FLAGS:" line (%s: the file).
run_flags() {
    grep -m1 '^# MPI-FLAGS: ' "$1" | sed "s/^# MPI-FLAGS: //; s#%s#$1#g"
}

# Devices of the mesh the entry's top-level shard_map runs on (0: none),
# in the partitioned program or, if it does not compile, as written.
mesh_size() {
    { "$shardc" "$@" --emit=partitioned 2> /dev/null || "$shardc" "$1" --emit=ir 2> /dev/null; } | awk '
        /^mesh @/ { name = $2; sub(/^@/, "", name); n = 1; line = $0
                    while (match(line, /=[0-9]+/)) { n *= substr(line, RSTART + 1, RLENGTH - 1); line = substr(line, RSTART + RLENGTH) }
                    size[name] = n }
        /= shard_map/ { in_header = 1 } # its attributes may be on the lines after (one a line)
        in_header && !found { if (match($0, /mesh = @[A-Za-z0-9_.]+/)) { m = substr($0, RSTART + 8, RLENGTH - 8); found = 1 } }
        in_header && /\) \{$/ { in_header = 0 }
        END { print (found ? size[m] : 0) }'
}

# The report without timings: result lines, verdict, stats counters.
report_lines() {
    grep -v -E '^ *(reference|spmd) run: ' "$1"
}

check_sample() {
    local file=$1 name flags n dir
    name=$(basename "$file" .shir)
    flags="$(sample_flags "$file") $(run_flags "$file")"
    n=$(mesh_size "$file" $(sample_flags "$file"))
    dir="$out/$name"
    mkdir -p "$dir"
    if [ "$n" = 0 ]; then
        echo "  $name: no shard_map in its SPMD form, skipped" >&2
        return
    fi
    "$shardc" run "$file" $flags --stats --engine=threads --outputs="$dir/local" > "$dir/local.out" 2> "$dir/local.err"
    local rc_local=$?
    "$shardc" run "$file" $flags --outputs="$dir/lockstep" > /dev/null 2>&1
    mpi "$n" "$file" $flags --stats --outputs="$dir/mpi" > "$dir/mpi.out" 2> "$dir/mpi.err"
    local rc_mpi=$? ok=1
    [ "$rc_local" = "$rc_mpi" ] || { ok=0; echo "  $name: exit $rc_mpi under mpirun -n $n, $rc_local in-process" >&2; }
    if ! diff <(report_lines "$dir/local.out") <(report_lines "$dir/mpi.out") > "$dir/report.diff"; then
        ok=0; echo "  $name: the reports differ:" >&2; head -20 "$dir/report.diff" >&2
    fi
    for f in "$dir"/local/result_*.npy "$dir"/lockstep/result_*.npy; do
        [ -f "$f" ] || continue
        cmp -s "$f" "$dir/mpi/$(basename "$f")" || { ok=0; echo "  $name: $(basename "$f") differs ($f)" >&2; }
    done
    if [ $ok = 1 ]; then
        pass; echo "  ok   mpirun -n $n $name" >&2
    else
        fail "mpirun -n $n $name"; head -20 "$dir/mpi.err" >&2
    fi
}

echo "MPI: samples under mpirun -n <mesh size>, against the in-process runs" >&2
for file in samples/*.shir tests/mpi/*.shir tests/partition/uneven/*.shir; do
    check_sample "$file"
done

# MPI's own float reductions (SHARDC_MPI_REDUCE=native) associate in their
# own order: within the tolerances, not bit for bit.
SHARDC_MPI_REDUCE=native mpi 8 tests/mpi/reductions.shir > "$out/native.out" 2>&1
if grep -q "^PASS: 12 results match" "$out/native.out"; then
    pass; echo "  ok   SHARDC_MPI_REDUCE=native reductions" >&2
else
    fail "SHARDC_MPI_REDUCE=native reductions"; cat "$out/native.out" >&2
fi

# ---- 2. per-device input files -------------------------------------------------

# samples/fsdp_layout.shir shards every argument along dim 0 over its 8
# devices. A generated program cuts random arguments into those blocks:
# its results are the 5 global arrays, then each one's 8 blocks.
args=(x w1 b1 w2 b2)
dims=("16,8,64" "256,64" "256" "64,256" "64")
make_shards_program() {
    local sig="" res="" body="" ret="" a d k rows rest start limit
    for a in "${!args[@]}"; do
        sig+="${sig:+, }%${args[a]}: f32[${dims[a]}]"
        res+="${res:+, }f32[${dims[a]}]"
        ret+="${ret:+, }%${args[a]}"
    done
    for a in "${!args[@]}"; do
        rows=${dims[a]%%,*}
        rest=${dims[a]#"$rows"}
        for k in 0 1 2 3 4 5 6 7; do
            start="$((k * rows / 8))$(echo "$rest" | sed 's/,[0-9]*/, 0/g')"
            limit="$(((k + 1) * rows / 8))$(echo "$rest" | sed 's/,/, /g')"
            local ones; ones=$(echo "$rest" | sed 's/,[0-9]*/, 1/g')
            body+="  %${args[a]}.$k = slice %${args[a]} {start = [$start], limit = [$limit], stride = [1$ones]} : f32[$((rows / 8))$rest]"$'\n'
            res+=", f32[$((rows / 8))$rest]"
            ret+=", %${args[a]}.$k"
        done
    done
    printf 'func @main(%s) -> (%s) {\n%s  return %s\n}\n' "$sig" "$res" "$body" "$ret"
}

check_inputs() {
    local dir="$out/per_device" a k i=5 ok=1
    mkdir -p "$dir/files"
    make_shards_program > "$dir/make_shards.shir"
    if ! "$shardc" run "$dir/make_shards.shir" --seed=7 --outputs="$dir/made" > "$dir/made.out" 2>&1; then
        fail "per-device inputs: cannot make the files"; cat "$dir/made.out" >&2; return
    fi
    for a in "${!args[@]}"; do
        cp "$dir/made/result_$a.npy" "$dir/files/${args[a]}.npy"
        for k in 0 1 2 3 4 5 6 7; do
            cp "$dir/made/result_$i.npy" "$dir/files/${args[a]}.$k.npy"
            i=$((i + 1))
        done
    done
    local global="" pattern=""
    for a in "${args[@]}"; do
        global+="${global:+,}$dir/files/$a.npy"
        pattern+="${pattern:+,}$dir/files/$a.{device}.npy"
    done
    "$shardc" run samples/fsdp_layout.shir --inputs="$global" --outputs="$dir/global" > "$dir/global.out" 2>&1 || ok=0
    "$shardc" run samples/fsdp_layout.shir --inputs="$pattern" --outputs="$dir/local" > "$dir/local.out" 2>&1 || ok=0
    mpi 8 samples/fsdp_layout.shir --inputs="$pattern" --outputs="$dir/mpi" > "$dir/mpi.out" 2>&1 || ok=0
    cmp -s "$dir/global/result_0.npy" "$dir/local/result_0.npy" || ok=0
    cmp -s "$dir/global/result_0.npy" "$dir/mpi/result_0.npy" || ok=0
    cmp -s "$dir/global.out" "$dir/mpi.out" || ok=0
    if [ $ok = 1 ]; then
        pass; echo "  ok   per-device inputs (in-process and mpirun -n 8) = the global files" >&2
    else
        fail "per-device inputs"; tail -5 "$dir"/*.out >&2
    fi
    rm "$dir/files/w2.5.npy" # for check_failures
}

# An uneven dim: 7 rows on 4 ranks, each file holding its real rows only
# (tests/run/per_device_inputs_uneven.shir cuts them).
check_uneven_inputs() {
    local file=tests/run/per_device_inputs_uneven.shir dir="$out/per_device_uneven" k ok=1
    mkdir -p "$dir"
    "$shardc" run "$file" --func=make --seed=4 --outputs="$dir" > "$dir/made.out" 2>&1 || ok=0
    for k in 0 1 2 3; do
        mv "$dir/result_$((k + 1)).npy" "$dir/x.$k.npy" 2> /dev/null || ok=0
    done
    "$shardc" run "$file" --inputs="$dir/result_0.npy" --outputs="$dir/global" > "$dir/global.out" 2>&1 || ok=0
    mpi 4 "$file" --inputs="$dir/x.{device}.npy" --outputs="$dir/mpi" > "$dir/mpi.out" 2>&1 || ok=0
    cmp -s "$dir/global/result_0.npy" "$dir/mpi/result_0.npy" || ok=0
    if [ $ok = 1 ]; then
        pass; echo "  ok   per-device inputs of an uneven dim (mpirun -n 4) = the global file" >&2
    else
        fail "per-device inputs of an uneven dim"; tail -5 "$dir"/*.out >&2
    fi
}

echo "MPI: per-device input files" >&2
check_inputs
check_uneven_inputs

# ---- 3. failures: a message from every rank, never a hang ------------------------

# expect_stop NAME N OUTPUT RC PATTERN: the job failed (not by the hang
# guard) and every rank 1..N-1 printed a line with "rank K of N" (rank 0
# prints its diagnostic in full, or the same line); PATTERN names the cause.
expect_stop() {
    local name=$1 n=$2 log=$3 rc=$4 pattern=$5 ok=1 k
    if [ "$rc" = 0 ] || [ "$rc" = 124 ]; then ok=0; echo "  $name: exit $rc" >&2; fi
    grep -q -- "$pattern" "$log" || { ok=0; echo "  $name: no '$pattern' in the output" >&2; }
    for ((k = 1; k < n; k++)); do
        grep -q "rank $k of $n" "$log" || { ok=0; echo "  $name: rank $k said nothing" >&2; }
    done
    if [ $ok = 1 ]; then pass; echo "  ok   $name" >&2; else fail "$name"; cat "$log" >&2; fi
}

check_failures() {
    local dir="$out/failures" files="$out/per_device/files" pattern="" a rc
    mkdir -p "$dir"
    mpi 2 samples/psum.shir > "$dir/mesh.log" 2>&1
    rc=$?
    expect_stop "a 4-device mesh on 2 ranks" 2 "$dir/mesh.log" "$rc" "has 4 devices, but the job has 2 processes"
    for a in "${args[@]}"; do
        pattern+="${pattern:+,}$files/$a.{device}.npy"
    done
    mpi 8 samples/fsdp_layout.shir --inputs="$pattern" > "$dir/rank.log" 2>&1
    rc=$?
    expect_stop "rank 5 cannot read its input" 8 "$dir/rank.log" "$rc" "rank 5 of 8: .*w2.5.npy"
    grep -q "stopped in .*: rank 5 failed" "$dir/rank.log" || { fail "the others name rank 5"; cat "$dir/rank.log" >&2; }
    # The other ranks wait while rank 0 runs the reference (~0.3 s): with a
    # 50 ms limit they give up, and rank 0 stops at its next MPI call.
    SHARDC_MPI_TIMEOUT=0.05 mpi 8 bench/megatron_mlp_e2e.shir > "$dir/timeout.log" 2>&1
    rc=$?
    expect_stop "a timeout" 8 "$dir/timeout.log" "$rc" "no progress in .* for 0.05 s"
    # Every rank must run the same program with the same inputs and flags:
    # an MPMD launch where ranks 2 and 3 run another program, and one rank
    # with another seed, stop with the ranks that differ named.
    sed 's/= psum %x_block/= pmax %x_block/' samples/psum.shir > "$dir/psum_max.shir"
    timeout "$limit" mpirun -n 2 "$shardc" run samples/psum.shir --transport=mpi : \
        -n 2 "$shardc" run "$dir/psum_max.shir" --transport=mpi > "$dir/mpmd.log" 2>&1
    rc=$?
    expect_stop "ranks 2 and 3 run another program" 4 "$dir/mpmd.log" "$rc" "ranks 2, 3 of 4 run a different program"
    timeout "$limit" mpirun -n 3 "$shardc" run samples/psum.shir --transport=mpi : \
        -n 1 "$shardc" run samples/psum.shir --seed=5 --transport=mpi > "$dir/seed.log" 2>&1
    rc=$?
    expect_stop "rank 3 runs with another seed" 4 "$dir/seed.log" "$rc" "rank 3 of 4 runs a different program"
}

echo "MPI: failures" >&2
check_failures

if [ ${#failures[@]} -gt 0 ]; then
    echo "failed MPI checks:"; printf '  %s\n' "${failures[@]}"
fi
echo "MPI: $passed passed, $failed failed"
[ "$failed" = 0 ]
