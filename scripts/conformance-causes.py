#!/usr/bin/env python3
"""Sorts the failing cases of a conformance run by cause.

Usage: scripts/conformance-causes.py RESULTS.json [--files]

RESULTS.json is what `run-shardy-lit.sh --json` writes (`make conformance`
writes build/conformance.json). Each failing case goes to the first cause
in CAUSES whose pattern is found in the runner's reason or the tool's
output; the rest are "other". Prints one line per cause (cases, then the
cause), largest first; --files adds the passed/total table per test file.
docs/conformance.md quotes this output."""
import json
import re
import sys
from collections import Counter, defaultdict

# (cause, regex on reason + tool output), first match wins. Keep the
# wording in step with docs/conformance.md.
CAUSES = [
    ("sdy.func_data_flow_edge (propagation across functions) not supported",
     r"'stablehlo\.(case|while|if|optimization_barrier)'|sdy\.(func_)?data_flow_edge'"),
    ("op not in shardc's IR yet: sharding groups, barriers, named computations, sdy.constant (issue 16)",
     r"'sdy\.(sharding_group|propagation_barrier|named_computation|constant)'"),
    ("op not in shardc's IR yet: gather/scatter/convolution/dynamic slices/... (issue 18)",
     r"op '[a-z_.]+' is not supported by shardc|only one operand \(and its init\)"),
    ("custom_call without a sharding rule (Shardy treats it as fully replicated)",
     r"custom_call @\S+ is not supported by shardc|unknown function '@"),
    ("pass or pass option not implemented in shardc opt",
     r"is not supported by shardc opt yet|pass options .* are not supported"),
    ("tuple or quantized types, or a dynamic or unranked value where shardc refuses one",
     r"type 'tuple<|quant\.|!stablehlo|has the (dynamic|unranked) type|static shape"),
    ("Shardy's exact verifier/parser message differs or is missing",
     r"expected (error|warning|note|remark) \"|unexpected (error|warning)"),
    ("propagation or printing differs (FileCheck mismatch)", r"FileCheck"),
    ("tool error on input Shardy accepts", r"tool exited"),
]


def classify(case):
    text = (case.get("reason") or "") + "\n" + (case.get("tool_output") or "")
    for cause, pattern in CAUSES:
        if re.search(pattern, text):
            return cause
    return "other"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    data = json.load(open(sys.argv[1]))
    causes = Counter()
    files = defaultdict(lambda: [0, 0])
    for case in data["cases"]:
        status = case.get("status")
        if status not in ("pass", "fail"):
            continue  # unsupported (needs an interpreter)
        files[case["file"]][1] += 1
        if status == "pass":
            files[case["file"]][0] += 1
        else:
            causes[classify(case)] += 1
    for cause, n in causes.most_common():
        print("%5d  %s" % (n, cause))
    if "--files" in sys.argv:
        for name in sorted(files):
            passed, total = files[name]
            print("%4d/%-4d %s" % (passed, total, name.replace("shardy/dialect/sdy/", "")))
    print("%d passed, %d failed" % (sum(p for p, _ in files.values()), sum(causes.values())))


if __name__ == "__main__":
    main()
