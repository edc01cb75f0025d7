#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Check a flame graph SVG with a real XML parser: it must parse, and its
# frames (<g class="f">, document order) must be exactly the lines of
# EXPECT, each "X<TAB>WIDTH<TAB>TITLE" (the rect's x and width attributes
# as written, the <title> text unescaped). Every label must be its frame's
# name or a prefix of it ending in "..". Prints the differences; exit
# status 1 when there are any.
#
#   check-svg.py FILE.svg EXPECT
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main():
    svg, expect = sys.argv[1], sys.argv[2]
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        print(f"{svg}: not well-formed XML: {e}")
        return 1
    problems = []
    if root.tag != NS + "svg":
        problems.append(f"root element {root.tag}, not svg")
    got = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        title = g.find(NS + "title").text
        rect = g.find(NS + "rect")
        label = g.find(NS + "text").text or ""
        got.append(f"{rect.get('x')}\t{rect.get('width')}\t{title}")
        name = title[:title.rindex(" (")]
        if label != name and not (label.endswith("..") and
                                  name.startswith(label[:-2])):
            problems.append(f"label {label!r} of {name!r}")
    with open(expect, encoding="utf-8") as f:
        want = f.read().splitlines()
    if got != want:
        problems.append("frames differ (x, width, title):")
        for line in want:
            if line not in got:
                problems.append(f"- {line}")
        for line in got:
            if line not in want:
                problems.append(f"+ {line}")
        if sorted(got) == sorted(want):
            problems.append("(the same frames in another order)")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
