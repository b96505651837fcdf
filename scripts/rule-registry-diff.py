#!/usr/bin/env python3
"""Which functions of a Shardy rule-registry test file `shardc opt` gets right.

Shardy's op_sharding_rule_registry*.mlir files are one lit case each (no
-split-input-file), so one unsupported op fails them whole. This splits such
a file at its `// CHECK-LABEL` lines, runs each function on its own (padded
with blank lines so diagnostics keep the file's line numbers) through
`shardc opt -sdy-populate-op-sharding-rules[=OPTIONS]` and checks it
against its own CHECK lines with FileCheck, then prints one line per
function: `ok NAME`, or `FAIL NAME: reason` (the tool's first error, or
the expected rule next to the one printed).

    scripts/rule-registry-diff.py FILE.mlir [--options conservative-propagation=true]
        [--shardc build/shardc] [--filecheck FileCheck-14] [-v]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def functions(lines):
    """(name, first line index, end index) per CHECK-LABEL section."""
    starts = [i for i, l in enumerate(lines) if 'CHECK-LABEL' in l]
    for k, s in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        m = re.search(r'CHECK-LABEL:\s*(?:func\s+)?@?(\S+)', lines[s])
        yield (m.group(1) if m else str(s + 1)), s, end


def check(args, lines, start, end, tmp):
    chunk = ['\n'] * start + lines[start:end]
    path = os.path.join(tmp, os.path.basename(args.file))
    with open(path, 'w') as f:
        f.writelines(chunk)
    flag = '-sdy-populate-op-sharding-rules' + ('=' + args.options if args.options else '')
    tool = subprocess.run([args.shardc, 'opt', path, flag], capture_output=True, text=True)
    if tool.returncode != 0:
        first = next((l for l in tool.stderr.splitlines() if 'error' in l), tool.stderr.strip()[:200])
        return first.split('error: ', 1)[-1], tool.stderr
    fc = subprocess.run([args.filecheck, path], input=tool.stdout, capture_output=True, text=True)
    if fc.returncode == 0:
        return None, ''
    want = next((l.split('CHECK:', 1)[1].strip() for l in lines[start:end] if 'CHECK:' in l), '?')
    got = re.findall(r'sdy\.sharding_rule = (#sdy\.op_sharding_rule<[^>]*>)', tool.stdout)
    return 'want %s; got %s' % (want, ' | '.join(got) or 'no rule'), fc.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('file')
    ap.add_argument('--options', default='')
    ap.add_argument('--shardc', default='build/shardc')
    ap.add_argument('--filecheck', default=os.environ.get('FILECHECK', 'FileCheck-14'))
    ap.add_argument('-v', action='store_true', help="print the tool's or FileCheck's output of failures")
    args = ap.parse_args()
    with open(args.file) as f:
        lines = f.readlines()
    failed = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, start, end in functions(lines):
            total += 1
            reason, detail = check(args, lines, start, end, tmp)
            if reason is None:
                print('ok', name)
                continue
            failed += 1
            print('FAIL %s: %s' % (name, reason))
            if args.v:
                print(detail)
    print('%d of %d functions match' % (total - failed, total))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
