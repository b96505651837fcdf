#!/bin/bash
# The convolution kernel against a direct OpenBLAS im2col + sgemm of the
# same shape (bench/bench_conv.c), interleaved, REPS pairs per shape
# (BENCH_REPS, default 15), one BLAS thread for both (OPENBLAS_NUM_THREADS=1:
# the machine is shared). Prints the section and puts it into
# bench/results.md between its markers (replacing the last one, else
# appending). Not part of make check.
# usage: bash bench/conv.sh [BUILD]
set -eu
build=${1:-build}
reps=${BENCH_REPS:-15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
${CC:-cc} -std=c11 -Wall -Wextra -Werror -Wshadow -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude \
    -I/usr/include/x86_64-linux-gnu -o "$work/bench_conv" bench/bench_conv.c "$build/libshardc.a" \
    -lopenblas -lyaml -ldl -lpthread -lm
section=$work/section
{
    echo "<!-- bench/conv.sh begin -->"
    echo "## Convolution kernel vs a direct im2col + sgemm (bench/conv.sh)"
    echo ""
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc); OPENBLAS_NUM_THREADS=1; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- f32 NHWC input, HWIO kernel; $reps interleaved pairs per shape; ratio = direct code's time / kern_convolution's (1 = as fast), median (min–max) over the pairs; times are medians"
    echo ""
    echo "| shape | ratio | kern_convolution ms | im2col + sgemm ms | max abs diff |"
    echo "|---|---:|---:|---:|---:|"
    OPENBLAS_NUM_THREADS=1 "$work/bench_conv" "$reps" | sed -E \
        's#^RESULT name=([^ ]*) ratio=([^ ]*) min=([^ ]*) max=([^ ]*) ours_ms=([^ ]*) ref_ms=([^ ]*) maxdiff=([^ ]*)#| \1 | \2 (\3–\4) | \5 | \6 | \7 |#'
    echo ""
    echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "<!-- bench/conv.sh end -->"
} > "$section"
cat "$section"
# shellcheck source=bench/section.sh
. "$(dirname "$0")/section.sh"
bench_put_section bench/results.md "$section" bench/conv.sh
