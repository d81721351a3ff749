#!/usr/bin/env python3
"""Collect the Markdown of an installed npm tree as one flat folder of documents.

    bench/npm/collect.py NODE_MODULES OUT_DIR

Every package directory under NODE_MODULES (nested `node_modules` included) gives its `.md`
files (the package root and its sub-folders, not `node_modules`, test folders or licence files)
as `NAME__FILE.md`: `@docusaurus/core` is named `docusaurus-core`, a file in a sub-folder
`NAME__docs__guide.md`. A package installed more than once keeps its hoisted copy as `NAME__…`
and the others as `NAME__vVERSION__…`. Files with the same content are kept once (the first by
path order); empty files are left out. Prints the counts as JSON.
"""

import hashlib
import json
import sys
from pathlib import Path

SKIP_DIRS = {"node_modules", "test", "tests", "__tests__", "fixtures", "example", "examples",
             ".github"}
SKIP_FILES = {"license.md", "licence.md", "license-mit.md", "code_of_conduct.md"}


def package_dirs(node_modules: Path):
    """(package dir, depth) for every package, hoisted ones first."""
    found = []
    for pkg_json in node_modules.rglob("package.json"):
        d = pkg_json.parent
        parts = d.relative_to(node_modules).parts
        # A package dir is node_modules/<name> or node_modules/@scope/<name>.
        if d.parent.name == "node_modules" or (
            d.parent.name.startswith("@") and d.parent.parent.name == "node_modules"
        ):
            found.append((d, parts.count("node_modules")))
    found.sort(key=lambda x: (x[1], str(x[0])))
    return found


def name_of(pkg_dir: Path) -> str:
    if pkg_dir.parent.name.startswith("@"):
        return f"{pkg_dir.parent.name[1:]}-{pkg_dir.name}"
    return pkg_dir.name


def markdown_files(pkg_dir: Path):
    out = []
    for p in sorted(pkg_dir.rglob("*")):
        rel = p.relative_to(pkg_dir)
        if any(part in SKIP_DIRS for part in rel.parts[:-1]):
            continue
        if p.suffix.lower() in (".md", ".markdown") and p.is_file():
            if p.name.lower() not in SKIP_FILES:
                out.append(rel)
    return out


def main():
    node_modules, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    seen_hashes, seen_names = set(), set()
    packages = files = dup = empty = 0
    names = set()
    for pkg_dir, depth in package_dirs(node_modules):
        name = name_of(pkg_dir)
        try:
            version = json.loads((pkg_dir / "package.json").read_text())["version"]
        except (OSError, ValueError, KeyError):
            version = "0"
        prefix = name if name not in names else f"{name}__v{version}"
        taken = False
        for rel in markdown_files(pkg_dir):
            data = (pkg_dir / rel).read_bytes()
            if not data.strip():
                empty += 1
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen_hashes:
                dup += 1
                continue
            target = f"{prefix}__{'__'.join(rel.parts)}"
            if target in seen_names:
                dup += 1
                continue
            seen_hashes.add(digest)
            seen_names.add(target)
            (out_dir / target).write_bytes(data)
            files += 1
            taken = True
        if taken:
            packages += 1
            names.add(name)
    print(json.dumps({"packages": packages, "documents": files, "duplicates": dup,
                      "empty": empty}))


if __name__ == "__main__":
    main()
