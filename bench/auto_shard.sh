#!/usr/bin/env bash
# The auto-sharding benchmark (docs/auto_sharding.md, not part of make
# check): the synthetic transformer of bench/gen_transformer at 2, 8, 32
# and 128 layers on data=2,model=4 and data=8,model=8, unannotated but for
# the input's batch dim (gen_transformer -u), through --auto-shard:
#   - the search's size: ops, strategies, tied nodes, ILP variables and
#     constraints (from the --explain summary line);
#   - solve time (tying, costing and CBC: wall and CPU) and the whole
#     compile's CPU time, min-max over REPEATS runs;
#   - the plan's predicted collective bytes per device (equal to the
#     partitioner's, checked with --stats=json) against the hand-annotated
#     Megatron plan's (gen_transformer without -u) actual bytes;
#   - the plan's cost in the model (the objective, seconds) against the
#     Megatron plan's cost in the same model (its propagated program, every
#     value annotated, through --auto-shard: the search then has one
#     strategy per value and only prices it);
# once without a budget and once with --memory-budget set to the Megatron
# plan's peak (the partitioner's --stats estimate).
#
# Usage: bash bench/auto_shard.sh [BUILD]   (REPEATS=3, BUDGET_REPEATS=1,
#        LAYERS="2 8 32 128", MESHES="2x4 8x8", TIME=60 the solver's limit in s)
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shardc="$build/shardc"
work="$build/bench/auto"
repeats=${REPEATS:-3}
budget_repeats=${BUDGET_REPEATS:-1}   # runs under a budget take up to TIME s each
layers_list=${LAYERS:-2 8 32 128}
meshes=${MESHES:-2x4 8x8}
limit=${TIME:-60}
mkdir -p "$work"
[ -x "$shardc" ] || { echo "bench/auto_shard.sh: build $shardc first (make)" >&2; exit 1; }
cc -std=c11 -Wall -Wextra -Werror -O2 -o "$work/gen_transformer" bench/gen_transformer.c

json_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# min-max of a list of numbers
spread() { python3 -c "import sys; v=[float(x) for x in sys.argv[1:]]; print('%.2f-%.2f' % (min(v), max(v)))" "$@"; }

# One configuration: prints a markdown row.
run_one() {
    local file=$1 budget=$2 hand_bytes=$3 hand_seconds=$4 label=$5
    local walls=() cpus=() totals=() line="" flags=(--auto-shard --auto-shard-time="$limit") runs=$repeats
    [ "$budget" != 0 ] && flags+=(--memory-budget="$budget") && runs=$budget_repeats
    for _ in $(seq "$runs"); do
        line=$(bash -c 'python3 - "$@" <<PY
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
head = [l for l in p.stdout.splitlines() if l.startswith("# auto-shard")]
print((head[0] if head else "# no plan: " + p.stderr.strip().splitlines()[0]) + " | compile cpu %.3f" % (r.ru_utime + r.ru_stime))
PY' _ "$shardc" "$file" "${flags[@]}" --explain)
        walls+=("$(sed -nE 's/.*solved in ([0-9.]+) s.*/\1/p' <<<"$line")")
        cpus+=("$(sed -nE 's/.*\(cpu ([0-9.]+) s\).*/\1/p' <<<"$line")")
        totals+=("$(sed -nE 's/.*compile cpu ([0-9.]+)$/\1/p' <<<"$line")")
    done
    if [[ $line == "# no plan"* ]]; then
        echo "| $label | - | - | - | - | - | - | - | - | ${line#\# no plan: } | - |"
        return
    fi
    local ops strategies tied vars cons bytes
    read -r ops strategies tied vars cons bytes < <(sed -nE \
        's/.*: ([0-9]+) ops, ([0-9]+) strategies, ([0-9]+) tied, ([0-9]+) variables, ([0-9]+) constraints; plan [^,]*, ([0-9]+) bytes.*/\1 \2 \3 \4 \5 \6/p' <<<"$line")
    "$shardc" "$file" "${flags[@]}" --stats=json >"$work/stats.json"
    local actual predicted seconds
    actual=$(json_field "$work/stats.json" "d['total_bytes_per_device']")
    predicted=$(json_field "$work/stats.json" "d['auto_shard']['predicted_bytes_per_device']")
    seconds=$(json_field "$work/stats.json" "d['auto_shard']['predicted_seconds']")
    local ratio time_ratio
    ratio=$(python3 -c "print('%.2f' % ($actual / $hand_bytes) if $hand_bytes else '-')")
    time_ratio=$(python3 -c "print('%.4g, %.4g (%.3f)' % ($seconds * 1e3, $hand_seconds * 1e3, $seconds / $hand_seconds))")
    echo "| $label | $ops | $strategies | $tied | $vars | $cons | $(spread "${walls[@]}") | $(spread "${cpus[@]}") | $(spread "${totals[@]}") | $predicted, $actual, $hand_bytes ($ratio) | $time_ratio |"
}

echo "# Auto-sharding benchmark"
echo
echo "CPU: $(lscpu | sed -nE 's/^Model name: *//p'), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg); $repeats repeats ($budget_repeats under a budget); solver limit $limit s"
echo
echo "| mesh, layers, budget | ops | strategies | tied | ILP variables | constraints | solve wall s | solve cpu s | compile cpu s | bytes/device: predicted, actual, hand Megatron (ratio actual/Megatron) | model ms: plan, Megatron (ratio) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for mesh in $meshes; do
    d=${mesh%x*} m=${mesh#*x}
    for layers in $layers_list; do
        auto="$work/t${layers}_${mesh}_auto.shir" hand="$work/t${layers}_${mesh}_hand.shir"
        "$work/gen_transformer" -u -l "$layers" -d "$d" -m "$m" -o "$auto" 2>/dev/null
        "$work/gen_transformer" -l "$layers" -d "$d" -m "$m" -o "$hand" 2>/dev/null
        "$shardc" "$hand" --stats=json >"$work/hand.json"
        hand_bytes=$(json_field "$work/hand.json" "d['total_bytes_per_device']")
        hand_peak=$(json_field "$work/hand.json" "d['peak_live_bytes_per_device']")
        "$shardc" "$hand" --emit=propagated >"$work/hand_propagated.shir"
        "$shardc" "$work/hand_propagated.shir" --auto-shard --stats=json >"$work/hand_model.json"
        hand_seconds=$(json_field "$work/hand_model.json" "d['auto_shard']['predicted_seconds']")
        run_one "$auto" 0 "$hand_bytes" "$hand_seconds" "data=$d,model=$m, $layers, none"
        run_one "$auto" "$hand_peak" "$hand_bytes" "$hand_seconds" "data=$d,model=$m, $layers, $hand_peak"
    done
done
