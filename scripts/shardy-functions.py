#!/usr/bin/env python3
"""Per-function scores of Shardy's single-case lit files (issue 16).

Usage: scripts/shardy-functions.py [--tool "build/shardc opt"] [-v] FILE.mlir|DIR...

Shardy's export tests (insert_explicit_reshards/*.mlir, ...) are one lit
case each holding many functions, so one wrong function fails the whole
file. This runs the file's first RUN line's sdy_opt arguments with TOOL,
cuts the output into functions (`func.func @name` to the next one or a
`// -----`), and checks each `CHECK-LABEL: ... @name` block of the file's
directives with FileCheck against that function's text alone. A
function agrees when its block passes. Prints one line per file,
`agree/total`, then the sum; -v names the functions that disagree and
FileCheck's first error. The test files are read where they are (never
copied: ../shared/conformance/README.md). docs/conformance.md quotes it."""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

DIRECTIVE = re.compile(r'//\s*CHECK(-[A-Z]+)?:')
LABEL = re.compile(r'//\s*CHECK-LABEL:.*?@([\w$.-]+)')
FUNC = re.compile(r'^\s*func\.func\s+(?:public\s+|private\s+)?@([\w$.-]+)')


def run_args(text):
    """The sdy_opt arguments of the first RUN line, %s left out."""
    for line in text.splitlines():
        m = re.match(r'\s*//\s*RUN:\s*(.*)', line)
        if m:
            cmd = m.group(1).split('|')[0]
            words = shlex.split(cmd)
            return [w for w in words[1:] if w != '%s' and w != '2>&1']
    return None


def check_blocks(text):
    """[(function name, [directive lines])] in file order."""
    blocks = []
    for line in text.splitlines():
        m = LABEL.search(line)
        if m:
            blocks.append((m.group(1), [line]))
        elif blocks and DIRECTIVE.search(line):
            blocks[-1][1].append(line)
    return blocks


def functions(output):
    """{name: [text, ...]} of the tool's output, one chunk per function, in
    order (a name may come back in each `// -----` chunk)."""
    chunks, name, lines = {}, None, []
    for line in output.splitlines() + ['// -----']:
        m = FUNC.match(line)
        if m or line.startswith('// -----'):
            if name:
                chunks.setdefault(name, []).append('\n'.join(lines) + '\n')
            name, lines = (m.group(1) if m else None), []
        if name:
            lines.append(line)
    return chunks


def modules_per_function(text):
    """[(name, module text)]: each top-level function with the lines outside
    functions of its `// -----` chunk (meshes), for a file the tool
    rejects as a whole (an op or type of another function it lacks)."""
    out = []
    for chunk in re.split(r'^// -----$', text, flags=re.M):
        pre, funcs, cur = [], [], None
        for line in chunk.splitlines():
            m = FUNC.match(line) if line.startswith('func.func') else None
            if m:
                cur = (m.group(1), [line])
                funcs.append(cur)
            elif cur:
                cur[1].append(line)
                if line.startswith('}'):
                    cur = None
            else:
                pre.append(line)
        out += [(name, '\n'.join(pre + lines) + '\n') for name, lines in funcs]
    return out


def run_tool(tool, path, args):
    p = subprocess.run(shlex.split(tool) + [path] + args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def outputs(path, text, tool, args, tmp):
    """The function chunks of the tool's output: of the whole file, or,
    when the tool rejects it, of each function alone. Also the error."""
    rc, out, err = run_tool(tool, path, args)
    if rc == 0:
        return functions(out), ''
    funcs = {}
    one = [a for a in args if a != '-split-input-file']
    for name, module in modules_per_function(text):
        f = os.path.join(tmp, 'one.mlir')
        with open(f, 'w') as fh:
            fh.write(module)
        rc1, out1, err1 = run_tool(tool, f, one)
        if rc1 == 0:
            funcs.setdefault(name, []).extend(functions(out1).get(name, []))
        else:
            funcs.setdefault('!' + name, err1)
    return funcs, err


def filecheck(checks, text, tmp):
    cf = os.path.join(tmp, 'checks')
    inp = os.path.join(tmp, 'input')
    with open(cf, 'w') as f:
        f.write('\n'.join(checks) + '\n')
    with open(inp, 'w') as f:
        f.write(text)
    p = subprocess.run([os.environ.get('FILECHECK', 'FileCheck-14'), cf, '--input-file', inp],
                       capture_output=True, text=True)
    err = next((l for l in p.stderr.splitlines() if 'error:' in l), '')
    return p.returncode == 0, err.split('error:', 1)[-1].strip()


def score(path, tool, verbose, tmp):
    text = open(path).read()
    args, blocks = run_args(text), check_blocks(text)
    if args is None or not blocks:
        return 0, 0
    funcs, file_err = outputs(path, text, tool, args, tmp)
    agree = 0
    for name, checks in blocks:
        bodies = funcs.get(name) or [None]
        body = bodies.pop(0) if len(bodies) > 1 else bodies[0]
        why = funcs.get('!' + name) or file_err
        ok, err = filecheck(checks, body, tmp) if body else (False, 'no output for @%s (%s)' % (
            name, (why.strip().splitlines() or ['no error'])[0][:300]))
        agree += ok
        if verbose and not ok:
            print('  @%s: %s' % (name, err[:200]))
    return agree, len(blocks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tool', default='build/shardc opt')
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('paths', nargs='+')
    a = ap.parse_args()
    files = []
    for p in a.paths:
        files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith('.mlir')) if os.path.isdir(p) else [p]
    total_agree = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            if a.verbose:
                print(os.path.basename(path))
            agree, n = score(path, a.tool, a.verbose, tmp)
            total_agree, total = total_agree + agree, total + n
            print('%-45s %3d/%d' % (os.path.basename(path)[:-5], agree, n))
    print('functions agreeing: %d/%d (%.1f %%)' % (total_agree, total, 100.0 * total_agree / max(total, 1)))


if __name__ == '__main__':
    main()
