#!/usr/bin/env python3
"""Benchmark figures as JSON, and a regression guard against a recorded baseline.

    bench/figures.py collect TABLE.txt... > figures.json
    bench/figures.py compare BASELINE.json CURRENT.json [--threshold 0.20]

`collect` reads the Markdown tables the benches print (`| figure | input | median | note |`, the
headings bench's `| headings | file | wall / CPU | ... |`) and keeps, per row, the first number
with a unit in its third cell: a time (ns, µs, ms, s; stored in ms, lower is better) or a rate
(MB/s, docs/s, /s; higher is better). A row whose third cell holds hit rates keeps its MRR
(higher is better). A criterion row's low and high estimates are kept as its spread. Rows
without such a number are left out. A figure is named by its first two cells (after the
table's first header cell when that is not `figure`).

`compare` prints every figure present in both files with the ratio now / baseline (for a rate,
baseline / now, so above 1 is always worse) and flags each worse by more than the threshold
(default 20%). Exit status: 0 none flagged, 1 some flagged, 2 unusable input. The threshold is
wider than the run-to-run spread of medians on a quiet machine (under 10% for the whole-process
figures in BENCHMARKS.md); on a busy machine re-run flagged figures before believing them.

The machine's own speed drifts from day to day (the same build and input 20-30% apart), which
a comparison of two runs cannot pair away. When both files hold the yardstick — `pdftotext`'s
CPU time over the corpus PDFs, a program docnav does not touch, run by `bench/run` on the same
machine minutes apart — `compare` prints the machine factor (the yardstick's now / baseline)
and, beside each time or rate, its ratio divided by that factor (not for scores, nor for asks
against the fake model server, whose sleeps and loopback HTTP the factor does not describe).
Only the raw ratio is flagged: the factor is one program's, and not every figure follows it. A
figure within the threshold raw but beyond it adjusted (a quicker machine hiding a regression)
is marked `worse adjusted` and counted on a last line, to re-run paired against the baseline's
build.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

TIME_UNITS_MS = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1000.0}
NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
TIME = re.compile(NUMBER + r"\s*(ns|µs|us|ms|s)\b")
RATE = re.compile(NUMBER + r"\s*((?:MB|MiB|docs?|files?|questions?)/s)\b")
MRR = re.compile(r"MRR\s+" + NUMBER)
SPREAD = re.compile(r"low " + NUMBER + r"\s*(ns|µs|us|ms|s), high " + NUMBER + r"\s*(ns|µs|us|ms|s)")


def number(text: str) -> float:
    return float(text.replace(",", ""))


def figure_of(cells: list[str]) -> dict | None:
    """The figure of one table row's cells, or None when its third cell holds none."""
    value_cell = cells[2]
    rest = " ".join(cells[3:])
    time, rate, mrr = TIME.search(value_cell), RATE.search(value_cell), MRR.search(value_cell)
    if mrr:
        return {"value": number(mrr.group(1)), "unit": "MRR", "better": "higher"}
    if rate and (not time or rate.start() <= time.start()):
        return {"value": number(rate.group(1)), "unit": rate.group(2), "better": "higher"}
    if time:
        figure = {
            "value": number(time.group(1)) * TIME_UNITS_MS[time.group(2)],
            "unit": "ms",
            "better": "lower",
        }
        spread = SPREAD.search(rest)
        if spread:
            figure["spread"] = [
                number(spread.group(1)) * TIME_UNITS_MS[spread.group(2)],
                number(spread.group(3)) * TIME_UNITS_MS[spread.group(4)],
            ]
        return figure
    return None


def collect(paths: list[str]) -> dict:
    figures: dict[str, dict] = {}
    for path in paths:
        header = None
        for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
            line = line.strip()
            if not (line.startswith("|") and line.endswith("|")):
                header = None
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = cells[0]
                continue
            if len(cells) < 3 or set(cells[0]) <= set("-: "):
                continue
            figure = figure_of(cells)
            if figure is not None:
                # A table whose first column is not the figure's name (the headings bench's
                # counts) names its rows after that column.
                prefix = "" if header == "figure" else f"{header} "
                figures[f"{prefix}{cells[0]} · {cells[1]}"] = figure
    return {"figures": figures}


# A program docnav does not touch, timed by `bench/run` on the same machine: how much quicker or
# slower the machine itself was between the two runs.
YARDSTICK = "pdftotext CPU time (user + sys of the processes) · 16 files"
# Figures of asks against the fake model server (its delay per call, `N ms/call`, sleeps and
# loopback HTTP), which the machine factor does not describe: never adjusted.
AGAINST_FAKE_MODEL = re.compile(r"ms/call|delay per call")


def worse_ratio(b: dict, n: dict) -> float:
    """now / baseline for a time, baseline / now for a rate or score: above 1 is worse."""
    return n["value"] / b["value"] if b["better"] == "lower" else b["value"] / n["value"]


def machine_factor(base: dict, now: dict) -> float | None:
    """The yardstick's now / baseline time (below 1: the machine was quicker), or None."""
    b, n = base.get(YARDSTICK), now.get(YARDSTICK)
    if not b or not n or b["unit"] != "ms" or n["unit"] != "ms" or b["value"] <= 0 or n["value"] <= 0:
        return None
    return n["value"] / b["value"]


def compare(baseline: dict, current: dict, threshold: float) -> int:
    base, now = baseline.get("figures", {}), current.get("figures", {})
    shared = [name for name in now if name in base]
    factor = machine_factor(base, now)
    flagged = hidden = 0
    if factor is None:
        print("no machine factor (the yardstick, pdftotext, is not in both files): raw ratios only\n")
        print("| figure | baseline | now | worse by | |")
        print("| --- | --- | --- | --- | --- |")
    else:
        print(f"machine factor {factor:.2f} (the yardstick took {factor:.2f}x its baseline time): "
              "'adjusted' is each 'worse by' ratio divided by it\n")
        print("| figure | baseline | now | worse by | adjusted | |")
        print("| --- | --- | --- | --- | --- | --- |")
    for name in shared:
        b, n = base[name], now[name]
        if b["unit"] != n["unit"] or b["value"] <= 0 or n["value"] <= 0:
            continue
        ratio = worse_ratio(b, n)
        worse = ratio > 1 + threshold
        flagged += worse
        mark = "WORSE" if worse else ""
        row = f"| {name} | {b['value']:.4g} {b['unit']} | {n['value']:.4g} {n['unit']} | {ratio - 1:+.0%} |"
        if factor is not None:
            # Scores (MRR) do not depend on the machine's speed.
            fixed = b["unit"] == "MRR" or AGAINST_FAKE_MODEL.search(name)
            adjusted = ratio if fixed else ratio / factor
            if not worse and adjusted > 1 + threshold:
                hidden += 1
                mark = "worse adjusted"
            row += f" {adjusted - 1:+.0%} |"
        print(f"{row} {mark} |")
    only = sorted(set(base) ^ set(now))
    if only:
        print(f"\n{len(only)} figure(s) in one file only (not compared): " + "; ".join(only))
    print(f"\n{flagged} of {len(shared)} figure(s) worse by more than {threshold:.0%}")
    if hidden:
        print(f"{hidden} more worse by more than {threshold:.0%} once the machine factor is taken out "
              "(not flagged: re-run them paired against the baseline's build)")
    return 1 if flagged else 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "collect":
        json.dump(collect(argv[1:]), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
        print()
        return 0
    if len(argv) >= 3 and argv[0] == "compare":
        threshold = 0.20
        if len(argv) == 5 and argv[3] == "--threshold":
            threshold = float(argv[4])
        try:
            baseline = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
            current = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            print(f"error: cannot read the figures: {e} (make them with `bench/run`)", file=sys.stderr)
            return 2
        return compare(baseline, current, threshold)
    print("usage: bench/figures.py collect TABLE.txt... | compare BASELINE.json CURRENT.json [--threshold 0.20]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
