#!/usr/bin/env bash
# A fuzzing campaign (docs/testing.md, "Fuzzing"): every target for SECONDS
# seconds, one after another on one core, then a table of what each did.
# Usage: fuzz/campaign.sh BUILD SECONDS [TARGET...]   (make fuzz-campaign)
#
# Each target runs through fuzz/run.sh (its flags, corpora and artifact
# directory BUILD/artifacts/). libFuzzer stops at a finding; the campaign
# then restarts the target for the time left, at most MAX_FINDINGS times,
# so one crash does not end the target's share of the campaign (a failing
# seed ends it at once: it would fail again). The table (target, wall and
# CPU seconds, executions, exec/s by each, coverage, corpus, crashes,
# timeouts, leaks, out-of-memory) goes to stdout and to BUILD/campaign.md,
# the logs to BUILD/logs/. Exit status 1 if any target found anything.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
MAX_FINDINGS=${MAX_FINDINGS:-5}

# The value of libFuzzer's final statistic $2 in log $1 (0 if absent).
final_stat() {
    local v
    v=$(grep -oE "^stat::$2: *[0-9]+" "$1" | tail -1 | grep -oE '[0-9]+$')
    echo "${v:-0}"
}

# "cov ft corp" from the last status line of log $1.
last_coverage() {
    local line
    line=$(grep -E '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$1" | tail -1)
    [ -z "$line" ] && { echo "0 0 0"; return; }
    sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+)( corp: ([0-9]+))?.*/\1 \2 \4/' <<<"$line"
}

# Artifacts of target $2 under $1 whose kind is $3 (crash, timeout, ...).
count_artifacts() {
    find "$1" -maxdepth 1 -name "$2-$3-*" -newer "$4" 2>/dev/null | wc -l
}

# One target: sessions until its time is used up. Prints the table row.
run_campaign_target() {
    local build=$1 seconds=$2 name=$3 logs="$root/$1/logs" art="$root/$1/artifacts"
    local start end left execs=0 log session=0 stamp cpu=0 TIMEFORMAT='%U %S' u sy
    mkdir -p "$logs" "$art"
    stamp=$(mktemp) # artifacts newer than this are this campaign's
    start=$(date +%s)
    end=$((start + seconds))
    left=$seconds
    while [ "$left" -ge 5 ] && [ "$session" -le "$MAX_FINDINGS" ]; do
        log="$logs/$name.$session.log"
        # the bound on the whole session: libFuzzer's own clock may overrun
        # CPU time too: on a shared machine the wall clock says little
        read -r u sy < <({ time timeout -k 10 $((left + 120)) bash "$root/fuzz/run.sh" "$build" "$left" "$name" \
            >"$log" 2>&1; } 2>&1)
        cpu=$(awk -v a="$cpu" -v b="$u" -v c="$sy" 'BEGIN { printf "%.0f", a + b + c }')
        execs=$((execs + $(final_stat "$log" number_of_executed_units)))
        session=$((session + 1))
        left=$((end - $(date +%s)))
        finding "$log" || break
    done
    campaign_row "$name" "$execs" "$(( $(date +%s) - start ))" "$cpu" "$log" "$art" "$stamp"
    rm -f "$stamp"
}

# Whether session log $1 ended in a finding worth a restart: one made
# while fuzzing. A seed that fails fails again at once, so a restart
# would only repeat it.
finding() {
    grep -q 'INITED' "$1" &&
        grep -qE '^(==[0-9]+==ERROR|SUMMARY: libFuzzer|artifact_prefix=|Test unit written to)' "$1"
}

# The table row of one target; the row's last field says pass or FAIL.
campaign_row() {
    local name=$1 execs=$2 secs=$3 cpu=$4 log=$5 art=$6 stamp=$7 cov ft corp c t l o verdict=pass
    read -r cov ft corp < <(last_coverage "$log")
    c=$(count_artifacts "$art" "$name" crash "$stamp")
    t=$(count_artifacts "$art" "$name" timeout "$stamp")
    l=$(count_artifacts "$art" "$name" leak "$stamp")
    o=$(count_artifacts "$art" "$name" oom "$stamp")
    [ $((c + t + l + o)) -gt 0 ] && verdict=FAIL
    printf '| %s | %d | %d | %d | %d | %d | %s | %s | %s | %d | %d | %d | %d | %s |\n' "$name" "$secs" "$cpu" \
        "$execs" $((execs / (secs > 0 ? secs : 1))) $((execs / (cpu > 0 ? cpu : 1))) "$cov" "$ft" "${corp:-0}" \
        "$c" "$t" "$l" "$o" "$verdict"
}

campaign_header() {
    local seconds=$1 cpu
    cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
    echo "# Fuzzing campaign $(date -u +%Y-%m-%dT%H:%MZ)"
    echo
    echo "${seconds} s per target, one core; commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null); CPU: ${cpu:-unknown}."
    echo "cov and ft are libFuzzer's coverage counters (edges, features) at the end;"
    echo "crash, timeout, leak and oom count the artifacts saved under build-fuzz/artifacts/."
    echo
    echo "exec/s is per second of wall-clock time, exec/CPU-s per second of CPU time (user + system)."
    echo
    echo "| target | seconds | CPU s | executions | exec/s | exec/CPU-s | cov | ft | corpus | crashes | timeouts | leaks | oom | result |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

main() {
    local build=${1:?usage: fuzz/campaign.sh BUILD SECONDS [TARGET...]} seconds=${2:?SECONDS} t row
    shift 2
    local targets=("$@") table="$root/$build/campaign.md" failed=0
    [ ${#targets[@]} -eq 0 ] && for t in "$root/$build"/fuzz/fuzz_*; do targets+=("$(basename "$t")"); done
    campaign_header "$seconds" | tee "$table"
    for t in "${targets[@]}"; do
        row=$(run_campaign_target "$build" "$seconds" "$t")
        echo "$row" | tee -a "$table"
        [[ $row == *"| FAIL |" ]] && failed=1
    done
    echo
    echo "table: $table; logs: $build/logs/; findings (if any): $build/artifacts/"
    exit $failed
}

main "$@"
