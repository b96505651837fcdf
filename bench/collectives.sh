#!/usr/bin/env bash
# Section 4 of bench/results.md, "Collectives" (bench/README.md): the
# interpreter's in-process transports against memcpy of the same bytes,
# measured by bench_collectives (bench/bench_collectives.c), each
# collective's repetitions interleaved with its memcpy baseline.
#
# usage: bash bench/collectives.sh BUILD_DIR BENCH_COLLECTIVES [--update]
#   prints the section's markdown; with --update it also replaces section 4
#   of bench/results.md (from "## 4." up to "## 5."), leaving the rest as it
#   was. bench/run.sh calls it without --update.
set -euo pipefail
build=$1 prog=$2 update=${3:-}
work="$build/bench"
mkdir -p "$work"
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v >= t) ? "met" : "**missed**" }'; }
kv() {
    awk -v k="$1" '{ for (i = 1; i <= NF; i++) { n = index($i, "="); if (n && substr($i, 1, n - 1) == k) { print substr($i, n + 1); exit } } }'
}
# the issue's targets for the all-reduce: S -> ratio
target_of() { case $1 in 65536) echo 0.5 ;; 1048576) echo 0.7 ;; 67108864) echo 1.0 ;; *) echo "" ;; esac; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
"$prog" sweep > "$work/collectives.out"
section=$(mktemp)
trap 'rm -f "$section"' EXIT
{
    echo "## 4. Collectives"
    echo ""
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2> /dev/null || echo '?')"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc); load average at start: $load_start, at end: $(cut -d' ' -f1-3 /proc/loadavg)"
    if awk -v l="${load_start%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
        echo "- **the load average exceeded the $(nproc) cores**: other processes took CPU time and memory"
        echo "  bandwidth from both sides of every ratio, unevenly (see the min–max); the figures are unreliable"
    fi
    echo ""
    echo "The interpreter's in-process transports on 8 devices: **lockstep**"
    echo "(src/transport/lockstep.c, the default engine's: a publish and a complete"
    echo "pass of the 8 devices' calls, each pass on the engine's pool of $(nproc) workers)"
    echo "and **threads** (src/transport/local.c, the threaded engine's: a thread per"
    echo "device, meeting at barriers). Size S per device as in nccl-tests; bytes"
    echo "moved per device are the bandwidth-optimal algorithm's (all-reduce"
    echo "2(n-1)/n·S, others (n-1)/n·S); effective GB/s = 8 × that / time. Each"
    echo "repetition runs the collective, then memcpy of the same total bytes on one"
    echo "thread; ratio = t_memcpy / t_collective of the repetition, median (min–max)"
    echo "over the repetitions (41 at 64 KiB, 21 at 1 MiB, 9 at 16 MiB, 5 at 64 MiB)."
    echo "Targets (all-reduce, lockstep): ≥ 0.5 at 64 KiB, ≥ 0.7 at 1 MiB, ≥ 1.0 at 64 MiB."
    echo ""
    echo "| collective | transport | S per device | ms | effective GB/s | memcpy GB/s | ratio (min–max) | target |"
    echo "|---|---|---:|---:|---:|---:|---:|---|"
    while read -r line; do
        name=$(kv name <<< "$line") tr=$(kv transport <<< "$line") bytes=$(kv bytes <<< "$line")
        ratio=$(kv ratio <<< "$line") target="" t=$(target_of "$bytes")
        [ "$name" = all_reduce ] && [ "$tr" = lockstep ] && [ -n "$t" ] && target="≥ $t: $(verdict "$ratio" "$t")"
        echo "| $name | $tr | $((bytes / 1024)) KiB | $(kv coll_ms <<< "$line") | $(kv coll_gbs <<< "$line") |" \
            "$(kv memcpy_gbs <<< "$line") | $ratio ($(kv ratio_min <<< "$line")–$(kv ratio_max <<< "$line")) | $target |"
    done < "$work/collectives.out"
    echo ""
} > "$section"
cat "$section"
if [ "$update" = --update ]; then
    results=bench/results.md
    awk -v sect="$section" '
        /^## 4\. / { skip = 1; while ((getline l < sect) > 0) print l; next }
        /^## 5\. / { skip = 0 }
        !skip { print }' "$results" > "$results.tmp"
    mv "$results.tmp" "$results"
fi
