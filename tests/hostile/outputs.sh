#!/usr/bin/env bash
# --outputs=DIR when writing fails or a signal comes (issue 21): the set of
# results appears whole or not at all, and no PASS is printed after an I/O
# error. Usage: tests/hostile/outputs.sh full|readonly|signal; prints one
# line, "exit N; files: ...; PASS printed: yes|no; old result_0: ...", or
# "skipped: why".
set -u
mode=$1
shardc=${SHARDC:-build/shardc}
prog=tests/hostile/two_results.shir
d=$(mktemp -d)
mounted=
cleanup() { [ -n "$mounted" ] && umount "$d"; rm -rf "$d"; }
trap cleanup EXIT

# A 64 KiB tmpfs (root only): the first result fits, the second does not.
tmpfs() {
    if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=64k tmpfs "$d" 2>/dev/null; then
        echo "skipped: a small tmpfs needs root"
        exit 0
    fi
    mounted=1
}

case $mode in
full)
    tmpfs
    target=$d/out ;;
readonly)
    # root writes through a mode of 555: a tmpfs remounted read-only then
    if [ "$(id -u)" = 0 ]; then tmpfs; mount -o remount,ro "$d"; else chmod 555 "$d"; fi
    target=$d/out ;;
signal)
    export SHARDC_TEST_KILL_AT=outputs
    mkdir "$d/out"
    echo old >"$d/out/result_0.npy"
    target=$d/out ;;
esac
"$shardc" run $prog --outputs="$target" >"$d.stdout" 2>"$d.stderr"
rc=$?
[ "$mode" = readonly ] && [ "$(id -u)" != 0 ] && chmod 755 "$d"
files=$(cd "$d" && find . -mindepth 1 | sort | tr '\n' ' ')
grep -q PASS "$d.stdout" && pass=yes || pass=no
cat "$d.stderr" >&2
rm -f "$d.stdout" "$d.stderr"
kept=$(grep -qx old "$d/out/result_0.npy" 2>/dev/null && echo old || echo none)
echo "exit $rc; files: $files; PASS printed: $pass; old result_0: $kept"
