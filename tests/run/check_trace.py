"""Checks a `shardc run --trace` file: valid JSON in the Trace Event format,
every slice on a named track, and per run one track per device, every
device with the same ops in the same order. Prints one line per run:
its tracks and the slices of each device (or of the host)."""
import json
import sys

doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"]
names = {}
for e in events:
    assert e["ph"] in ("M", "X"), e
    if e["ph"] == "M" and e["name"] == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
slices = {}
for e in events:
    if e["ph"] != "X":
        continue
    for key in ("name", "cat", "ts", "dur", "pid", "tid", "args"):
        assert key in e, (key, e)
    assert e["dur"] >= 0 and isinstance(e["args"]["bytes"], int), e
    assert e["cat"] in ("op", "collective"), e
    track = names[(e["pid"], e["tid"])]
    slices.setdefault(e["pid"], {}).setdefault(track, []).append(e)
for pid in sorted(slices):
    tracks = slices[pid]
    devices = sorted((t for t in tracks if t.startswith("device ")), key=lambda t: int(t.split()[1]))
    seqs = {t: [e["name"] for e in sorted(tracks[t], key=lambda e: e["ts"])] for t in devices}
    assert len(set(map(tuple, seqs.values()))) <= 1, seqs
    line = "run %d: %d device tracks" % (pid, len(devices))
    if devices:
        first = sorted(tracks[devices[0]], key=lambda e: e["ts"])
        line += "; per device: " + " ".join(
            e["name"] + ("(%d bytes)" % e["args"]["bytes"] if e["cat"] == "collective" else "") for e in first)
    if "host" in tracks:
        line += "; host: " + " ".join(e["name"] for e in sorted(tracks["host"], key=lambda e: e["ts"]))
    print(line)
