#!/usr/bin/env bash
# The MPI transport's all-reduce against MPICH's own MPI_Allreduce
# (bench/README.md, "MPI"): `mpirun -n 2 bench_mpi vs-mpi 2 REPS`, f32 sum
# of S = 64 KiB, 1, 4, 16, 64 MiB per rank, each repetition timing the
# transport's call and then MPI_Allreduce of the same buffers (barrier to
# barrier), RUNS runs of the program. Prints the section and puts it into
# bench/results-mpi.md between its markers (replacing the last one, else
# appending); bench/mpi.sh keeps it when it rewrites the file.
#
# usage: bash bench/mpi_allreduce.sh [BUILD_DIR]   (default build-mpi: make MPI=1)
# environment: BENCH_REPS (default 9), BENCH_RUNS (default 3), CC_MPI (mpicc)
set -euo pipefail
build=${1:-build-mpi}
reps=${BENCH_REPS:-9} runs=${BENCH_RUNS:-3}
cd "$(dirname "$0")/.."
if ! command -v mpirun > /dev/null || ! command -v "${CC_MPI:-mpicc}" > /dev/null || [ ! -f "$build/libshardc.a" ]; then
    echo "bench/mpi_allreduce.sh: skipped: needs mpirun and mpicc (MPICH) and $build/libshardc.a (make MPI=1)" >&2
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CC_MPI:-mpicc}" -std=c11 -Wall -Wextra -Werror -Wshadow -O2 -g -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
    -Iinclude -o "$work/bench_mpi" bench/bench_mpi.c "$build/libshardc.a" -lopenblas -lyaml -ldl -lpthread -lm
kv() { awk -v k="$1" '{ for (i = 1; i <= NF; i++) { n = index($i, "="); if (n && substr($i, 1, n - 1) == k) print substr($i, n + 1) } }'; }
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < runs; r++)); do
    mpirun -n 2 "$work/bench_mpi" vs-mpi 2 "$reps" >> "$work/out"
done
section=$work/section
{
    echo "<!-- bench/mpi_allreduce.sh begin -->"
    echo "## All-reduce vs MPICH's MPI_Allreduce, 2 ranks (bench/mpi_allreduce.sh)"
    echo ""
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2> /dev/null || echo '?')"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc); load average at start: $load_start, at end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- $(mpichversion 2> /dev/null | head -n 1 | tr -s ' \t' ' ' || echo 'MPI: unknown')"
    echo "- f32 sum over 2 ranks; each repetition: the transport's all-reduce (ordered: bit-identical to in-process),"
    echo "  then \`MPI_Allreduce(MPI_FLOAT, MPI_SUM)\` of the same buffers, each barrier to barrier; ratio ="
    echo "  t_MPI_Allreduce / t_transport (above 1: the transport faster); $runs runs × $reps repetitions:"
    echo "  the median of the runs' medians (the runs' min–max of their medians; the min–max over every repetition)."
    echo "  Target ≥ 0.9 at every size."
    if awk -v l="${load_start%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
        echo "- **the load average exceeded the $(nproc) cores**: MPI_Allreduce spins without yielding, so"
        echo "  descheduled ranks cost it most at small sizes; those ratios are unreliable (see the spreads)"
    fi
    echo ""
    echo "| S per rank | transport ms | MPI_Allreduce ms | ratio | runs' medians | repetitions | target |"
    echo "|---:|---:|---:|---:|---:|---:|---|"
    for size in $(kv size < "$work/out" | sort -nu); do
        grep "size=$size " "$work/out" > "$work/rows"
        med() { sort -g | awk '{a[NR] = $1} END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
        ratio=$(kv ratio < "$work/rows" | med)
        lo=$(kv ratio < "$work/rows" | sort -g | head -n 1) hi=$(kv ratio < "$work/rows" | sort -g | tail -n 1)
        rlo=$(kv ratio_min < "$work/rows" | sort -g | head -n 1) rhi=$(kv ratio_max < "$work/rows" | sort -g | tail -n 1)
        ours=$(kv ours < "$work/rows" | med) mpi=$(kv mpi < "$work/rows" | med)
        ok=$(awk -v v="$ratio" 'BEGIN { print (v >= 0.9) ? "met" : "**missed**" }')
        echo "| $((size / 1024)) KiB | $(awk "BEGIN { printf \"%.3f\", $ours * 1e3 }") | $(awk "BEGIN { printf \"%.3f\", $mpi * 1e3 }") |" \
            "$ratio | $lo–$hi | $rlo–$rhi | ≥ 0.9: $ok |"
    done
    echo ""
    echo "<!-- bench/mpi_allreduce.sh end -->"
} > "$section"
cat "$section"
# shellcheck source=bench/section.sh
. "$(dirname "$0")/section.sh"
bench_put_section bench/results-mpi.md "$section" bench/mpi_allreduce.sh
