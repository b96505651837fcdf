#!/usr/bin/env python3
"""Canonical .shir text for the .shir <-> .mlir round-trip (tests/run.sh).

MLIR has no place for an einsum's subscripts or a custom rule's factor
names: dot_general numbers dims, #sdy.op_sharding_rule names factors i, j,
k... So both sides rename them, per op, to letters in order of first
appearance (and the factor lists reduction/need_replication/permutation of
that op with them). Everything else must match exactly."""
import re
import sys

SPEC = re.compile(r'(einsum |rule = )"([^"]*)"')
LIST = re.compile(r'\b(reduction|need_replication|permutation|blocked) = \[([^\]]*)\]')


def rename(line):
    names = {}

    def letter(m):
        name = m.group(0)
        if name not in names:
            names[name] = "F%d" % len(names)
        return names[name]

    def spec(m):
        return '%s"%s"' % (m.group(1), re.sub(r'[A-Za-z_][A-Za-z_0-9]*' if m.group(1) == "rule = " else r'[A-Za-z]',
                                               letter, m.group(2)))

    line = SPEC.sub(spec, line)
    return LIST.sub(lambda m: '%s = [%s]' % (m.group(1), re.sub(r'"([^"]*)"', lambda q: '"%s"' % names.get(q.group(1), q.group(1)), m.group(2))), line)


sys.stdout.write("".join(rename(l) for l in sys.stdin))
