#!/usr/bin/env python3
"""Parses each SVG named on the command line (tests/cli/visualize_svg.test)
and prints its root tag, title, caption count, rectangle count and the
rectangle labels: a malformed document fails the parse."""
import os
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    texts = [t.text or "" for t in root.iter(NS + "text")]
    rects = list(root.iter(NS + "rect"))
    labels = [t for t in texts if t.startswith("CPU")]
    captions = [t for t in texts[1:] if not t.startswith("CPU")]
    print(f"{os.path.basename(path)}: {root.tag.replace(NS, '')}, title {texts[0]}, {len(captions)} captions, "
          f"{len(rects)} rects, labels {' '.join(labels)}")
