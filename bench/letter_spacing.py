#!/usr/bin/env python3
"""Count words split by letter spacing in docnav's PDF text, against pdftotext's (issue 42.9).

A *split word* is two adjacent alphabetic tokens on one line, `A B`, where
- `AB` (case-folded, at least 5 letters) occurs somewhere in the document as one token, and
- `A` or `B` never occurs in the document except inside such a split,
so "LIQUIDI TY" counts when "liquidity" is printed elsewhere and "liquidi" is never a word on its
own, while "in to" or "any one" never count (both halves are words of their own). The vocabulary
is the words both extractions print, so the two are judged by the same words.

Usage: bench/letter_spacing.py PDF_LINES_BINARY FILE.pdf... [--examples N] [--json OUT]
  PDF_LINES_BINARY: target/release/examples/pdf_lines (built with
  `cargo build --release --bins --examples`); pdftotext (poppler) must be on PATH.
Prints one row per file: split words in docnav's text, in pdftotext's, and up to N examples of each.
"""

import collections
import json
import re
import subprocess
import sys

WORD = re.compile(r"[A-Za-z]+")
MIN_JOINED_LETTERS = 5


def lines_of(command):
    # pdftotext exits 1 on a damaged cross-reference table after printing what it could read.
    out = subprocess.run(command, capture_output=True).stdout
    return out.decode("utf-8", "replace").splitlines()


def line_words(lines):
    """Each line's alphabetic tokens, in order (hyphens, digits and punctuation separate)."""
    result = []
    for line in lines:
        tokens = []
        for part in line.split():
            # A token glued to punctuation keeps its letters; one with inner digits is not a word.
            found = WORD.findall(part)
            tokens.append(found[0] if len(found) == 1 and WORD.fullmatch(part.strip(".,;:()\"'")) else None)
        result.append(tokens)
    return result


def split_words(lines, vocabulary):
    """`(count, examples)` of split words in `lines` (see the module docstring)."""
    words = line_words(lines)
    candidates = []
    counts = collections.Counter()
    for tokens in words:
        for t in tokens:
            if t:
                counts[t.lower()] += 1
        for a, b in zip(tokens, tokens[1:]):
            if a and b and len(a) + len(b) >= MIN_JOINED_LETTERS:
                if (a + b).lower() in vocabulary:
                    candidates.append((a, b))
    inside = collections.Counter()
    for a, b in candidates:
        inside[a.lower()] += 1
        inside[b.lower()] += 1
    found = [
        f"{a} {b}"
        for a, b in candidates
        if counts[a.lower()] <= inside[a.lower()] or counts[b.lower()] <= inside[b.lower()]
    ]
    return found


def main():
    args = sys.argv[1:]
    examples = 3
    out = None
    if "--examples" in args:
        i = args.index("--examples")
        examples = int(args[i + 1])
        del args[i : i + 2]
    if "--json" in args:
        i = args.index("--json")
        out = args[i + 1]
        del args[i : i + 2]
    binary, files = args[0], args[1:]
    rows = []
    total = [0, 0]
    print(f"{'file':44} {'docnav':>7} {'pdftotext':>9}  examples (docnav | pdftotext)")
    for path in files:
        ours = lines_of([binary, path, "--text"])
        theirs = lines_of(["pdftotext", "-enc", "UTF-8", path, "-"])
        # Words both extractions print: a join one of them makes at a line-end hyphen
        # ("weighted-" + "average") is no evidence that the other splits a word.
        def vocabulary_of(lines):
            return {t.lower() for tokens in line_words(lines) for t in tokens if t}

        vocabulary = vocabulary_of(ours) & vocabulary_of(theirs)
        mine = split_words(ours, vocabulary)
        other = split_words(theirs, vocabulary)
        total[0] += len(mine)
        total[1] += len(other)
        name = path.rsplit("/", 1)[-1]
        rows.append({"file": name, "docnav": len(mine), "pdftotext": len(other),
                     "docnav_examples": mine[:examples], "pdftotext_examples": other[:examples]})
        print(f"{name:44} {len(mine):>7} {len(other):>9}  {mine[:examples]} | {other[:examples]}")
    print(f"{'total':44} {total[0]:>7} {total[1]:>9}")
    worse = [r["file"] for r in rows if r["docnav"] > r["pdftotext"]]
    print(f"files where docnav splits more words than pdftotext: {len(worse)} {worse}")
    if out:
        with open(out, "w") as f:
            json.dump({"rows": rows, "total": {"docnav": total[0], "pdftotext": total[1]}}, f, indent=1)


if __name__ == "__main__":
    main()
