#!/usr/bin/env python3
"""Independent reference for tests/ops/window_values.shir: each result
computed by a direct loop over the StableHLO spec's formulas (no im2col,
no BLAS), then compared with `shardc run --print` of the test, element by
element.  Usage: window_reference.py SHARDC"""
import itertools, math, re, subprocess, sys

def iota(shape, start=0):
    n = math.prod(shape)
    return {idx: float(start + i) for i, idx in enumerate(itertools.product(*[range(s) for s in shape]))}, shape

def x_image():
    return {(0, r, c, 0): 10.0 * r + c for r in range(4) for c in range(4)}, (1, 4, 4, 1)

def parse_dims(s):
    lists = re.findall(r"\[([^\]]*)\]", s)
    return [[t.strip() for t in l.split(",")] for l in lists]

def padded_value(x, shape, idx, lo, base, fill):
    """x read through base dilation and low padding; None in holes."""
    src = []
    for d, p in enumerate(idx):
        q = p - lo[d]
        if q < 0 or q % base[d] or q // base[d] >= shape[d]:
            return fill
        src.append(q // base[d])
    return x[tuple(src)]

def conv(lhs, rhs, dims, out_shape, stride, pad, lhs_dil, rhs_dil, fg=1, bg=1):
    (x, xs), (k, ks) = lhs, rhs
    li, ki, oi = parse_dims(dims)
    n = len(li) - 2
    pos = lambda lst, c: lst.index(c)
    out = {}
    O = ks[pos(ki, "o")]
    for idx in itertools.product(*[range(s) for s in out_shape]):
        b, of = idx[pos(oi, "b")], idx[pos(oi, "f")]
        osp = [idx[pos(oi, str(i))] for i in range(n)]
        per_bg, per_fg = O // bg, O // fg
        gb, gf = of // per_bg, of // per_fg
        cg = ks[pos(ki, "i")]
        img = gb * out_shape[pos(oi, "b")] + b if bg > 1 else b
        acc = 0.0
        for kk in itertools.product(*[range(ks[pos(ki, str(i))]) for i in range(n)]):
            for ci in range(cg):
                xi = [0] * (n + 2)
                xi[pos(li, "b")] = img
                xi[pos(li, "f")] = gf * cg + ci if fg > 1 else ci
                ok = True
                for i in range(n):
                    p = osp[i] * stride[i] + kk[i] * rhs_dil[i] - pad[i][0]
                    size = xs[pos(li, str(i))]
                    if p < 0 or p % lhs_dil[i] or p // lhs_dil[i] >= size:
                        ok = False
                    xi[pos(li, str(i))] = p // lhs_dil[i] if ok else 0
                if not ok:
                    continue
                kidx = [0] * (n + 2)
                kidx[pos(ki, "i")], kidx[pos(ki, "o")] = ci, of
                for i in range(n):
                    kidx[pos(ki, str(i))] = kk[i]
                acc += x[tuple(xi)] * k[tuple(kidx)]
        out[idx] = acc
    return out

def windows(x, xs, size, stride, pad, base=None, wdil=None):
    r = len(xs)
    base, wdil = base or [1] * r, wdil or [1] * r
    out_shape = []
    for d in range(r):
        padded = (xs[d] - 1) * base[d] + 1 + pad[d][0] + pad[d][1]
        out_shape.append((padded - ((size[d] - 1) * wdil[d] + 1)) // stride[d] + 1)
    for idx in itertools.product(*[range(s) for s in out_shape]):
        elems = []
        for kk in itertools.product(*[range(s) for s in size]):
            src, ok = [], True
            for d in range(r):
                q = idx[d] * stride[d] + kk[d] * wdil[d] - pad[d][0]
                if q < 0 or q % base[d] or q // base[d] >= xs[d]:
                    ok = False
                    break
                src.append(q // base[d])
            if ok:
                elems.append(tuple(src))
        yield idx, elems, out_shape

def reduce_window(lhs, fn, init, **kw):
    x, xs = lhs
    return {idx: fn([x[e] for e in elems], init) for idx, elems, _ in windows(x, xs, **kw)}

def select_and_scatter(lhs, src, **kw):
    x, xs = lhs
    out = {idx: 0.0 for idx in itertools.product(*[range(s) for s in xs])}
    for idx, elems, _ in windows(x, xs, **kw):
        best = None
        for e in elems:  # select ge: keep the current unless it is not >= e
            if best is None or not x[best] >= x[e]:
                best = e
        if best is not None:
            out[best] += src[idx]
    return out

def flat(d):
    return [d[k] for k in sorted(d)]

def main():
    x = x_image()
    ones = ({k: 1.0 for k in itertools.product(range(3), range(3), range(1), range(1))}, (3, 3, 1, 1))
    y = conv(x, ones, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", (1, 4, 4, 1), [1, 1], [[1, 1], [1, 1]], [1, 1], [1, 1])
    pool = dict(size=[1, 2, 2, 1], stride=[1, 2, 2, 1], pad=[[0, 0]] * 4)
    p = reduce_window(x, lambda v, i: max(v, default=i), -math.inf, **pool)
    g = select_and_scatter(x, p, **pool)
    c1 = conv(iota((2, 4, 5, 6)), iota((2, 2, 2, 4)), "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", (2, 2, 2, 9),
              [2, 1], [[1, 0], [0, 1]], [1, 2], [2, 1], fg=2)
    c3 = conv(iota((4, 3, 2, 2)), iota((2, 1, 1, 4)), "[b, 0, 1, f]x[i, 0, 1, o]->[f, b, 0, 1]", (4, 2, 3, 2),
              [1, 1], [[0, 0], [0, 0]], [1, 1], [1, 1], bg=2)
    s5 = reduce_window(iota((1, 4, 6)), lambda v, i: sum(v, i), 0.0, size=[1, 2, 3], stride=[1, 1, 3],
                       pad=[[0, 0], [0, 0], [1, 1]], base=[1, 1, 2], wdil=[1, 1, 1])
    same = dict(size=[1, 3, 3, 1], stride=[1, 1, 1, 1], pad=[[0, 0], [1, 1], [1, 1], [0, 0]])
    q = reduce_window(x, lambda v, i: min(v, default=i), math.inf, **same)
    neg = ({k: -v for k, v in x[0].items()}, x[1])
    g2 = select_and_scatter(neg, q, **same)
    want = [flat(r) for r in (y, p, g, c1, c3, s5, g2)]
    text = subprocess.run([sys.argv[1], "run", sys.argv[0].replace("window_reference.py", "window_values.shir"),
                           "--print"], capture_output=True, text=True).stdout
    got = [[float(v) for v in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", block)]
           for block in re.split(r"^result \d+ .*$", text, flags=re.M)[1:]]
    got = [g[: len(w)] for g, w in zip(got, want)]
    bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    print("window_reference: %d results, %s" % (len(want), "mismatch in %s" % bad if bad else "all equal"))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
