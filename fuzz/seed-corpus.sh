#!/usr/bin/env bash
# Build the seed corpora fuzz/corpus/<target>/ from the samples and tests.
# Usage: fuzz/seed-corpus.sh. Deterministic; a few dozen small files each,
# so the seeds stay reviewable. libFuzzer grows its own working corpus
# under build-fuzz/corpus/ (not committed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/fuzz/corpus"
max_files=40

# fuzz_parse: every sample (full-line comments dropped: they only cost the
# fuzzer time), every regression input (so each fuzz run replays them under
# clang's sanitizers) and every 8th other test .shir, valid and invalid.
seed_parse() {
    local dir="$corpus/fuzz_parse" f n=0
    rm -rf "$dir" && mkdir -p "$dir"
    for f in "$root"/samples/*.shir "$root"/tests/regress/*.shir; do
        grep -v '^ *#' "$f" >"$dir/$(basename "$f")" || true
    done
    find "$root/tests" -name '*.shir' -size -4k -not -path '*/regress/*' | sort | while read -r f; do
        if [ $((n++ % 8)) = 0 ]; then
            grep -v '^ *#' "$f" >"$dir/$(echo "${f#"$root"/}" | tr '/' '_')" || true
        fi
    done
}

# The quoted value of option $2 in a RUN line $1 ('' if absent).
run_option() {
    sed -nE "s/.*--$2[ =]'([^']*)'.*/\\1/p; s/.*--$2[ =]([^ ']+).*/\\1/p" <<<"$1" | head -1
}

# `shardc rule` RUN lines become RULE \0 TYPES \0 OPTIONS (see fuzz_rule.c).
rule_seed_of() {
    local line=$1 rule types opts="" name
    rule=$(sed -nE "s/^# RUN: shardc rule '([^']*)'.*/\\1/p" <<<"$line")
    types=$(run_option "$line" types)
    for name in $(run_option "$line" reduction | tr ',' ' '); do opts+="r:$name "; done
    for name in $(run_option "$line" need-replication | tr ',' ' '); do opts+="n:$name "; done
    for name in $(run_option "$line" permutation | tr ',' ' '); do opts+="p:$name "; done
    for name in $(grep -oE -- "--size[ =][^ ]+" <<<"$line" | sed -E 's/--size[ =]//'); do
        opts+="s:$name "
    done
    printf '%s\0%s\0%s' "$rule" "$types" "$opts"
}

seed_rule() {
    local dir="$corpus/fuzz_rule" line n=0
    rm -rf "$dir" && mkdir -p "$dir"
    while IFS= read -r line; do
        rule_seed_of "$line" >"$dir/run_$n"
        n=$((n + 1))
    done < <(grep -rhE "^# RUN: shardc rule '" "$root/tests" | sort -u | head -n "$max_files")
    # rule strings of the custom ops in the samples, types derived by the target
    grep -rhoE 'rule = "[^"]*"' "$root/samples" | sort -u | sed -E 's/rule = "(.*)"/\1/' |
        while IFS= read -r line; do
            printf '%s' "$line" >"$dir/sample_$n"
            n=$((n + 1))
        done
}

# One byte of value $1.
byte() { printf "\\$(printf %03o "$1")"; }

# A .npy image: version $1, descr $2, shape $3 (Python tuple text), then the
# data bytes $4 (printf escapes). The header is padded to 64 bytes.
npy_image() {
    local dict="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
    local pre=$(($1 == 1 ? 10 : 12))
    local len=$(( (pre + ${#dict} + 1 + 63) / 64 * 64 - pre ))
    printf '\223NUMPY'; byte "$1"; byte 0
    byte $((len % 256)); byte $((len / 256))
    [ "$1" = 1 ] || { byte 0; byte 0; }
    printf '%-*s\n' $((len - 1)) "$dict"
    printf "$4"
}

seed_npy() {
    local dir="$corpus/fuzz_npy"
    rm -rf "$dir" && mkdir -p "$dir"
    npy_image 1 '<f4' '(2, 3)' '\0\0\200\77\0\0\0\100\0\0\100\100\0\0\200\100\0\0\240\100\0\0\300\100' >"$dir/f4_2x3"
    npy_image 1 '<f8' '(2,)' '\0\0\0\0\0\0\360\77\0\0\0\0\0\0\370\177' >"$dir/f8_nan"
    npy_image 1 '<i4' '()' '\7\0\0\0' >"$dir/i4_scalar"
    npy_image 1 '<i8' '(0, 4)' '' >"$dir/i8_empty"
    npy_image 1 '|b1' '(3,)' '\1\0\1' >"$dir/b1_3"
    npy_image 1 '>f4' '(1,)' '\77\200\0\0' >"$dir/f4_big_endian"
    npy_image 1 '>i8' '(1, 1)' '\0\0\0\0\0\0\0\5' >"$dir/i8_big_endian"
    npy_image 2 '<f4' '(1,)' '\0\0\200\77' >"$dir/v2_f4"
    npy_image 3 '<i4' '(1,)' '\1\0\0\0' >"$dir/v3_i4"
    npy_image 1 '<f4' '(4611686018427387904, 4)' '' >"$dir/lying_overflow"
    npy_image 1 '<f4' '(1000,)' '\0\0\200\77' >"$dir/lying_short"
}

# fuzz_config: the YAML files of tests/ and samples/, and a few written here
# so the target has seeds before any test does.
seed_config() {
    local dir="$corpus/fuzz_config" f
    rm -rf "$dir" && mkdir -p "$dir"
    find "$root/samples" "$root/tests" -name '*.yaml' -size -4k | sort | head -n "$max_files" |
        while read -r f; do cp "$f" "$dir/$(echo "${f#"$root"/}" | tr '/' '_')"; done
    cat >"$dir/basic.yaml" <<'EOF'
meshes:
  mesh: {axes: {data: 4, model: 2}}
logical_axis_rules:
  default:
    rules: {batch: data, embed: null, mlp: model, heads: [model]}
EOF
    cat >"$dir/two_sets.yaml" <<'EOF'
meshes:
  m1:
    axes: {x: 2, y: 2}
    device_ids: [3, 2, 1, 0]
    explicit: [x]
  m2:
    axes:
      a: 8
logical_axis_rules:
  fsdp:
    mesh: m1
    rules:
      batch: [x, y]
      embed: []
  tp:
    mesh: m2
    rules: {mlp: a}
EOF
    printf 'meshes: [1, 2]\n' >"$dir/bad_type.yaml"
    printf 'a: &x [*x]\n' >"$dir/alias.yaml"
    printf 'meshes:\n  m: {axes: {x: 99999999999999999999}}\n' >"$dir/huge.yaml"
}

# fuzz_mlir: every MLIR sample and every MLIR test input under 4 KB,
# valid and invalid (full-line // comments dropped; expected-error
# annotations are comments too).
seed_mlir() {
    local dir="$corpus/fuzz_mlir" f
    rm -rf "$dir" && mkdir -p "$dir"
    for f in "$root"/samples/mlir/*.mlir; do
        grep -v '^ *//' "$f" >"$dir/$(basename "$f")" || true
    done
    find "$root/tests" -name '*.mlir' -size -4k | sort | while read -r f; do
        grep -v '^ *//' "$f" >"$dir/$(echo "${f#"$root"/}" | tr '/' '_')" || true
    done
}

# The hostile inputs of tests/hostile (issue 21): its .shir files as they
# are, and its generated ones (deep nesting, many functions, ops, calls,
# axes, constants) scaled down to what one fuzzing execution can afford and
# to fuzz_parse's -max_len (fuzz/run.sh).
seed_hostile_parse() {
    local dir="$corpus/fuzz_parse" f
    for f in "$root"/tests/hostile/*.shir; do
        grep -v '^ *#' "$f" >"$dir/hostile_$(basename "$f")" || true
    done
    awk 'BEGIN { printf "func @f(%%x: f32[4]) -> f32[4] {\n  %%y = neg %%x {a = "; for (i = 0; i < 2000; i++) printf "["; printf "1"; for (i = 0; i < 2000; i++) printf "]"; print "} : f32[4]\n  return %y\n}" }' >"$dir/hostile_deep_nesting.shir"
    awk 'BEGIN { print "mesh @m = <\"a\"=2>"; for (i = 0; i < 80; i++) printf "func @f%d(%%x: f32[4] {sharding = <@m, [{\"a\"}]>}) -> f32[4] {\n  %%y = neg %%x : f32[4]\n  return %%y\n}\n", i }' >"$dir/hostile_many_functions.shir"
    awk 'BEGIN { print "func @f0(%x: f32[4]) -> f32[4] {\n  return %x\n}"; for (i = 1; i < 100; i++) printf "func @f%d(%%x: f32[4]) -> f32[4] {\n  %%y = call @f%d(%%x) : f32[4]\n  return %%y\n}\n", i, i-1 }' >"$dir/hostile_chained_functions.shir"
    awk 'BEGIN { print "func @g0(%x: f32[4]) -> f32[4] {\n  %y = neg %x : f32[4]\n  return %y\n}"; for (i = 1; i < 12; i++) printf "func @g%d(%%x: f32[4]) -> f32[4] {\n  %%a = call @g%d(%%x) : f32[4]\n  %%b = call @g%d(%%a) : f32[4]\n  return %%b\n}\n", i, i - 1, i - 1 }' >"$dir/hostile_exponential_calls.shir"
    awk 'BEGIN { print "mesh @m = <\"a\"=2>"; print "func @f(%x0: f32[8] {sharding = <@m, [{\"a\"}]>}) -> f32[8] {"; for (i = 0; i < 250; i++) printf "  %%x%d = neg %%x%d : f32[8]\n", i + 1, i; print "  return %x250"; print "}" }' >"$dir/hostile_many_ops.shir"
    # 1025 axes (one too many) named with two characters: under -max_len
    awk 'BEGIN { c = "abcdefghijklmnopqrstuvwxyz0123456789"; printf "mesh @m = <"; for (i = 0; i < 1025; i++) printf "%s\"%s%s\"=1", (i ? "," : ""), substr(c, int(i / 36) + 1, 1), substr(c, i % 36 + 1, 1); print ">" }' >"$dir/hostile_too_many_axes.shir"
    awk 'BEGIN { printf "mesh @m = <\"a\"=4>\nfunc @main() -> f32[1000] {\n  %%c = constant {value = ["; for (i = 0; i < 1000; i++) printf (i ? ", %d.0" : "%d.0"), i % 7; print "]} : f32[1000]"; print "  %w = sharding_constraint %c {sharding = <@m, [{\"a\"}]>} : f32[1000]"; print "  return %w\n}" }' >"$dir/hostile_long_constant.shir"
}

# The hand-made hostile .npy files of tests/hostile/npy.sh.
seed_hostile_npy() {
    local tmp f
    tmp=$(mktemp -d)
    bash "$root/tests/hostile/npy.sh" "$tmp"
    for f in "$tmp"/*.npy; do cp "$f" "$corpus/fuzz_npy/hostile_$(basename "$f" .npy)"; done
    rm -rf "$tmp"
}

seed_hostile_config() {
    local dir="$corpus/fuzz_config"
    awk 'BEGIN { s = "meshes: "; for (i = 0; i < 2000; i++) s = s "["; print s }' >"$dir/hostile_deep_nesting.yaml"
    awk 'BEGIN { print "meshes:"; for (i = 0; i < 200; i++) printf "  m%d:\n    axes:\n      a: 2\n", i }' >"$dir/hostile_many_meshes.yaml"
    awk 'BEGIN { print "meshes:"; print "  m:"; print "    axes:"; for (i = 0; i < 1025; i++) printf "      a%d: 1\n", i }' >"$dir/hostile_too_many_axes.yaml"
}

# fuzz_run: its input is 14 bytes of generator options (fuzz_run.c,
# decode_options); seeds 1..24 with a spread of sizes, meshes and options.
seed_run() {
    local dir="$corpus/fuzz_run" i
    rm -rf "$dir" && mkdir -p "$dir"
    for i in $(seq 1 24); do
        { byte "$i"; printf '\0\0\0\0\0\0\0'; byte $((i * 5 % 12)); byte $((i % 4)); byte $((i % 7 == 0 ? 1 : i % 11 == 0 ? 2 : 0))
          printf '\0\0'; byte $((i % 4)); } >"$dir/seed_$i"
    done
}

seed_parse
seed_hostile_parse
seed_mlir
seed_rule
seed_npy
seed_hostile_npy
seed_config
seed_hostile_config
seed_run
for d in "$corpus"/*/; do echo "$(basename "$d"): $(ls "$d" | wc -l) files"; done
