#!/usr/bin/env python3
"""The layering rules of docs/architecture.md, checked on a built tree.

    python3 scripts/check-layering.py [BUILD]     (default BUILD=build)

Reads the symbol tables of BUILD/obj/**/*.o (nm) and the #include lines of
src/, passes/ and include/. A file's subsystem is its folder under src/
(src/ir/print.c -> ir); passes/ and cli/ are the two layers on top.
Fails (exit 1) when
  1. a file under src/ or include/ includes a passes/ header, or an object
     of src/ uses a symbol defined in passes/;
  2. a passes/*.c exports anything but its `const Pass` and at most one
     entry function;
  3. two files of different subsystems depend on each other, directly or
     through a cycle of files (a strongly connected component of the
     file-level "uses a symbol defined in" graph spanning two folders);
  4. the folder-level graph has a cycle (subsystems call one way);
  5. an exported function does not carry one of its subsystem's prefixes
     (PREFIXES below: the subsystem's name, or the names of the types and
     files it owns).
Prints the folder-level graph, in topological order, on success."""
import os, re, subprocess, sys
from collections import defaultdict

build = sys.argv[1] if len(sys.argv) > 1 else 'build'
root = os.path.join(build, 'obj')

def subsystem(path):
    parts = path.split('/')
    if parts[0] == 'src':
        return parts[1]
    if parts[0] in ('passes', 'cli'):
        return parts[0]
    return None

objs = {}
for dp, _, fns in os.walk(root):
    for fn in fns:
        if fn.endswith('.o'):
            rel = os.path.relpath(os.path.join(dp, fn), root)[:-2] + '.c'
            if subsystem(rel) and os.path.exists(rel):  # not a stale object
                objs[rel] = os.path.join(dp, fn)
if not objs:
    sys.exit('check-layering: no objects under %s (build first)' % root)

defined, used = {}, defaultdict(set)
exports = defaultdict(list)
# One nm for all objects (-A: each line starts "OBJECT:"), not one each:
# 162 processes took 4 s of make check.
by_obj = {obj: src for src, obj in objs.items()}
out = subprocess.run(['nm', '-A'] + list(objs.values()), capture_output=True, text=True, check=True).stdout
for entry in out.splitlines():
    obj, _, line = entry.partition(':')
    src = by_obj.get(obj)
    if src is None:
        continue
    f = line.split()
    if len(f) == 3 and f[2].startswith('__'):
        continue  # the sanitizers' own symbols (__odr_asan.*, ...)
    if len(f) == 3 and f[1] in 'TDBRC':
        defined[f[2]] = src
        exports[src].append((f[1], f[2]))
    elif len(f) == 2 and f[0] == 'U':
        used[src].add(f[1])

edges = defaultdict(set)
for src, syms in used.items():
    for s in syms:
        d = defined.get(s)
        if d and d != src:
            edges[src].add((d, s))

# Each subsystem's exported names start with one of these (Lua's rule: a
# name says where it lives). Add a prefix here only for a type or file the
# subsystem owns.
PREFIXES = {
    'support': 'arena_ diag_ loc_ symtab_ textbuf_ writer_ timer_ io_ suggest_ interner_',
    'ir': 'ir_ cost_ module_ func_ block_ op_ value_ attr_ sharding_ axis_ref_ axis_refs_ axis_list_ '
          'axis_set_ mesh_ type_ dtype_ print_ lapack_',
    'front': 'parse_ build_',
    'config': 'config_ yaml_ logical_',
    'rules': 'rule_ rules_ einsum_',
    'verify': 'verify_ vma_ limits_',
    'propagate': 'propagate_ prop_ projection_ factor_ origins_',
    'explicit': 'explicit_ xspec_ xdim_',
    'partition': 'partition_ pc_ stats_ reshard_ factor_assignment',
    'interp': 'interp_ exec_ collective_ dist_ group_',
    'kernels': 'kern_ tensor_ npy_ nditer_ rng_',
    'transport': 'transport_',
    'passes': 'pass_ pipeline_',
    'mlir': 'mlir_',
    'autoshard': 'autoshard_',
    'cli': 'cli_ cmd_ run_dist_ visualize_ main',
}

errors = []
for src, es in edges.items():
    if src.startswith('src/'):
        for d, s in es:
            if d.startswith('passes/'):
                errors.append('%s calls %s, defined in %s' % (src, s, d))
inc = re.compile(r'#include\s+"([^"]+)"')
def resolve(including, name):
    """The file an #include "name" reaches (the quote form's search: the
    including file's folder, then -Iinclude -Isrc), relative to the root."""
    for base in (os.path.dirname(including), 'include', 'src'):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.exists(path):
            return path
    return os.path.normpath(name)

for top in ('src', 'include'):  # cli/ may run the pipeline
    for dp, _, fns in os.walk(top):
        for fn in fns:
            p = os.path.join(dp, fn)
            for n, line in enumerate(open(p, errors='replace'), 1):
                m = inc.search(line)
                if m and resolve(p, m.group(1)).split(os.sep)[0] in ('passes', 'cli'):
                    errors.append('%s:%d includes %s' % (p, n, m.group(1)))

for src, ex in exports.items():
    if src.startswith('passes/') and src != 'passes/pipeline.c':
        funcs = [s for k, s in ex if k == 'T']
        data = [s for k, s in ex if k != 'T']
        if len(funcs) > 1 or any(not s.startswith('pass_') for s in data):
            errors.append('%s exports %s (a pass file exports its Pass and at most one entry)'
                          % (src, ', '.join(funcs + data)))

for src, ex in sorted(exports.items()):
    allowed = tuple(PREFIXES.get(subsystem(src), '').split())
    for kind, name in ex:
        if kind == 'T' and not name.startswith(allowed):
            errors.append('%s exports %s, without a prefix of %s' % (src, name, subsystem(src)))

# Tarjan's strongly connected components over files.
graph = {s: sorted({d for d, _ in edges[s]}) for s in objs}
index, low, stack, on, sccs = {}, {}, [], set(), []
def strong(v):
    work = [(v, 0)]
    index[v] = low[v] = len(index); stack.append(v); on.add(v)
    while work:
        v, i = work[-1]
        if i < len(graph[v]):
            work[-1] = (v, i + 1)
            w = graph[v][i]
            if w not in index:
                index[w] = low[w] = len(index); stack.append(w); on.add(w)
                work.append((w, 0))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            sccs.append(comp)
for v in sorted(graph):
    if v not in index:
        strong(v)
inner = 0
for comp in sccs:
    if len(comp) > 1:
        if len({subsystem(f) for f in comp}) > 1:
            errors.append('cycle across subsystems: ' + ' <-> '.join(sorted(comp)))
        else:
            inner += 1

folders = defaultdict(set)
for s, es in edges.items():
    for d, _ in es:
        a, b = subsystem(s), subsystem(d)
        if a != b:
            folders[a].add(b)
order, state = [], {}
def visit(n, path):
    if state.get(n) == 1:
        errors.append('subsystem cycle: ' + ' -> '.join(path[path.index(n):] + [n]))
        return
    if state.get(n) == 2:
        return
    state[n] = 1
    for m in sorted(folders[n]):
        visit(m, path + [n])
    state[n] = 2
    order.append(n)
for n in sorted({subsystem(s) for s in objs}):
    visit(n, [])

if errors:
    print('\n'.join('check-layering: ' + e for e in errors))
    sys.exit(1)
print('check-layering: %d files, %d subsystems, no cross-subsystem cycle, '
      'nothing under src/ uses passes/; %d cycles inside one subsystem' % (len(objs), len(order), inner))
for n in order:
    print('  %-10s -> %s' % (n, ' '.join(sorted(folders[n])) or '-'))
