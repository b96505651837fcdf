# shellcheck shell=bash
# Sourced by the separate benchmarks (bench/README.md): one way to put a
# script's markdown section into a results file.

# bench_put_section RESULTS SECTION NAME: replace the lines of RESULTS from
# `<!-- NAME begin -->` to `<!-- NAME end -->` with the file SECTION (which
# carries both markers), or append SECTION after a blank line if RESULTS
# has no such section yet. NAME is the script's path, e.g. bench/mlir.sh.
bench_put_section() {
    local results=$1 section=$2 name=$3
    touch "$results"
    awk -v sect="$section" -v begin="<!-- $name begin -->" -v end="<!-- $name end -->" '
        $0 == begin { skip = 1; while ((getline l < sect) > 0) print l; done = 1; next }
        $0 == end { skip = 0; next }
        !skip { print }
        END { if (!done) { print ""; while ((getline l < sect) > 0) print l } }' "$results" > "$results.tmp"
    mv "$results.tmp" "$results"
}
