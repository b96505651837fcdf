#!/usr/bin/env python3
"""Bytes per device of random reshards under two shardc binaries.

Usage: scripts/reshard-bytes.py [--seed S] [-n N] [-v] [--base-flag F]... [--new-flag F]... BASE NEW

Each case is one `reshard` of a rank-2 or rank-3 f32 tensor (dims of two
or four times the mesh's device count) between two random shardings on
one of seven meshes (2x2x2, 4x2, 4x2x4, 2x3, 4x6, 2x2x2x2, 8x2), each axis
on a random dim in a random order or left out. Both binaries partition it
(`--emit=partitioned --stats=json`); the script counts the cases where NEW
receives fewer, as many and more bytes per device than BASE, and with -v
prints the cases where NEW moves more, worst first. docs/partitioning.md
("Reshards to collectives") quotes it: BASE a build whose partitioner
plans with shardc's greedy planner alone or Shardy's rounds alone, or
one binary twice with --base-flag=--reshard-plan=shardy
--new-flag=--reshard-plan=fewest-bytes."""
import argparse
import json
import os
import random
import subprocess
import tempfile

MESHES = [[('x', 2), ('y', 2), ('z', 2)], [('x', 4), ('y', 2)], [('x', 4), ('y', 2), ('z', 4)],
          [('x', 2), ('y', 3)], [('x', 4), ('y', 6)], [('x', 2), ('y', 2), ('z', 2), ('w', 2)],
          [('x', 8), ('y', 2)]]


def random_sharding(rng, mesh, rank):
    names = [n for n, _ in mesh]
    rng.shuffle(names)
    dims = [[] for _ in range(rank)]
    for n in names:
        if rng.random() >= 0.35:
            dims[rng.randrange(rank)].append(n)
    return '[' + ', '.join('{' + ', '.join('"%s"' % a for a in d) + '}' for d in dims) + ']'


def program(rng):
    mesh = rng.choice(MESHES)
    rank = rng.choice([2, 3])
    devices = 1
    for _, size in mesh:
        devices *= size
    shape = 'f32[' + ','.join(str(rng.choice([2, 4]) * devices) for _ in range(rank)) + ']'
    a, b = random_sharding(rng, mesh, rank), random_sharding(rng, mesh, rank)
    axes = ', '.join('"%s"=%d' % m for m in mesh)
    return (f'mesh @m = <{axes}>\n\nfunc @f(%a: {shape} {{sharding = <@m, {a}>}}) -> '
            f'({shape} {{sharding = <@m, {b}>}}) {{\n  %b = reshard %a {{sharding = <@m, {b}>}} : {shape}\n'
            f'  return %b\n}}\n')


def bytes_per_device(shardc, flags, path):
    r = subprocess.run([shardc, path, '--emit=partitioned', '--stats=json', '-o', os.devnull] + flags,
                       capture_output=True, text=True)
    if r.returncode:
        return None
    return json.loads(r.stdout)['total_bytes_per_device']


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('-n', type=int, default=400)
    ap.add_argument('-v', action='store_true')
    ap.add_argument('--base-flag', action='append', default=[], help='a flag BASE gets (repeatable)')
    ap.add_argument('--new-flag', action='append', default=[], help='a flag NEW gets (repeatable)')
    ap.add_argument('base')
    ap.add_argument('new')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    fewer = same = more = failed = 0
    worse = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'reshard.shir')
        for _ in range(a.n):
            text = program(rng)
            with open(path, 'w') as f:
                f.write(text)
            old, new = bytes_per_device(a.base, a.base_flag, path), bytes_per_device(a.new, a.new_flag, path)
            if old is None or new is None:
                failed += 1
            elif new < old:
                fewer += 1
            elif new > old:
                more += 1
                worse.append((new / old if old else float('inf'), old, new, text))
            else:
                same += 1
    print('%d reshards: fewer %d, same %d, more %d, failed %d' % (a.n, fewer, same, more, failed))
    for ratio, old, new, text in sorted(worse, reverse=True) if a.v else []:
        print('%.2fx (%d -> %d):\n%s' % (ratio, old, new, text))


if __name__ == '__main__':
    main()
