#!/usr/bin/env bash
# Run the libFuzzer targets (docs/testing.md).
# Usage: fuzz/run.sh toolchain          check that clang-14 can build fuzzers
#        fuzz/run.sh BUILD SECONDS [TARGET...]
# Each target (default: every BUILD/fuzz/fuzz_*) runs SECONDS seconds on its
# working corpus BUILD/corpus/TARGET, seeded from fuzz/corpus/TARGET. A
# crash, leak, timeout or sanitizer report is saved under BUILD/artifacts/
# and makes the script fail once every target has had its turn.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)

check_toolchain() {
    local probe
    probe=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' >"$probe/p.c"
    if ! command -v clang-14 >/dev/null ||
        ! clang-14 -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>/dev/null; then
        rm -rf "$probe"
        echo "make fuzz needs clang-14 with libFuzzer; install them (as root) with" >&2
        echo "    apt-get install -y clang-14 libclang-rt-14-dev" >&2
        exit 1
    fi
    rm -rf "$probe"
}

# Target-specific flags: .shir and .mlir inputs get their keyword
# dictionaries and room for deep nesting; the others stay small.
target_flags() {
    case $1 in
    # 8 KB: the seeds fit; longer inputs cost time in proportion and find
    # nothing shorter ones do not (docs/testing.md, "Fuzzing")
    fuzz_parse) echo "-dict=$root/fuzz/shir.dict -max_len=8192" ;;
    fuzz_mlir) echo "-dict=$root/fuzz/mlir.dict -max_len=16384" ;;
    fuzz_config) echo "-max_len=8192" ;;
    fuzz_run) echo "-max_len=32" ;; # 14 bytes of generator options
    *) echo "-max_len=4096" ;;
    esac
}

run_target() {
    local build=$1 seconds=$2 name=$3 work
    work="$root/$build/corpus/$name"
    mkdir -p "$work" "$root/$build/artifacts"
    echo "== $name: ${seconds}s"
    # shellcheck disable=SC2046
    "$root/$build/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$root/$build/artifacts/$name-" \
        $(target_flags "$name") "$work" "$root/fuzz/corpus/$name"
}

main() {
    [ "${1:-}" = toolchain ] && { check_toolchain; exit 0; }
    local build=${1:?usage: fuzz/run.sh BUILD SECONDS [TARGET...]} seconds=${2:-60} failed=()
    shift 2 || shift $#
    local targets=("$@") t
    [ ${#targets[@]} -eq 0 ] && for t in "$root/$build"/fuzz/fuzz_*; do targets+=("$(basename "$t")"); done
    for t in "${targets[@]}"; do
        run_target "$build" "$seconds" "$t" || failed+=("$t")
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "fuzzing found problems in: ${failed[*]} (inputs in $build/artifacts/)" >&2
        exit 1
    fi
    echo "fuzzing: ${#targets[@]} targets ran ${seconds}s each, nothing found"
}

main "$@"
