#!/usr/bin/env python3
"""Check the relative links and #anchors of kqcd's Markdown pages.

Usage: check_links.py [SOURCE_DIR] [--readme-example]

Reads README.md, CHANGELOG.md, docs/**/*.md, examples/README.md and benchmarks/RESULTS.md under
SOURCE_DIR (default: the checkout this script is in). Every relative link ([text](target),
![alt](target), [ref]: target, <a href>, <img src>) must name a file or folder inside the
repository, and every #anchor a heading (GitHub's slug rules) or an explicit id/name of the page
it points to. External links (http:, https:, mailto:) are not checked.

A fenced code block preceded by the comment <!-- example: PATH --> must equal the file PATH
(relative to the repository root): README.md shows examples/quick_start/main.cpp this way.
--readme-example runs only that check.

Exit code 0 when everything resolves, 1 with a list of the broken links otherwise.
"""
import argparse
import pathlib
import re
import sys
import unicodedata

PAGES = ["README.md", "CHANGELOG.md", "examples/README.md", "benchmarks/RESULTS.md"]
PAGE_GLOBS = ["docs/**/*.md"]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']*)[\"']", re.I)
HTML_ID = re.compile(r"<[a-z][^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']*)[\"']", re.I)
EXAMPLE_MARK = re.compile(r"^<!--\s*example:\s*(\S+)\s*-->\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def strip_code_spans(line):
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n, line


def heading_text(raw):
    """The text GitHub renders for a heading's Markdown (formatting dropped)."""
    t = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", raw)           # images: alt text
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)              # links: their text
    t = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", t)             # reference links
    t = re.sub(r"<[^>]+>", "", t)                               # inline HTML tags
    t = re.sub(r"(`+)(.+?)\1", lambda m: m.group(2).strip(), t)  # code spans: their content
    t = re.sub(r"(\*\*|__)(.+?)\1", r"\2", t)
    t = re.sub(r"(?<![\w*])[*_](?=\S)(.+?)(?<=\S)[*_](?![\w*])", r"\1", t)
    t = re.sub(r"~~(.+?)~~", r"\1", t)
    t = re.sub(r"\\(.)", r"\1", t)                              # backslash escapes
    return t


def slug(text):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    out = []
    for ch in heading_text(text).strip().lower():
        cat = unicodedata.category(ch)
        if ch in " -_" or cat[0] in "LN" or cat == "Mn":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def anchors(text):
    """Every anchor a page offers: heading slugs (duplicates numbered -1, -2, ...) and HTML ids."""
    found, seen = set(), {}
    prev = None
    for _, line in prose_lines(text):
        m = HEADING.match(line)
        title = m.group(2) if m else None
        if not m and prev is not None and prev.strip() and SETEXT.match(line) and not HEADING.match(prev):
            title = prev.strip()
        if title is not None:
            base = slug(title)
            k = seen.get(base, 0)
            found.add(base if k == 0 else f"{base}-{k}")
            seen[base] = k + 1
        for idm in HTML_ID.finditer(line):
            found.add(idm.group(1))
        prev = line
    return found


def link_targets(text):
    """(line number, target) of every link in the prose."""
    for n, line in prose_lines(text):
        plain = strip_code_spans(line)
        for m in INLINE_LINK.finditer(plain):
            yield n, m.group(1).strip("<>")
        m = REF_DEF.match(plain)
        if m:
            yield n, m.group(1).strip("<>")
        for m in HTML_LINK.finditer(plain):
            yield n, m.group(1)


def pages(root):
    files = [root / p for p in PAGES]
    for g in PAGE_GLOBS:
        files += sorted(root.glob(g))
    return files


def check_links(root, files):
    errors = []
    cache = {}

    def page_anchors(path):
        if path not in cache:
            cache[path] = anchors(path.read_text(encoding="utf-8"))
        return cache[path]

    for page in files:
        rel = page.relative_to(root)
        if not page.is_file():
            errors.append(f"{rel}: missing")
            continue
        for n, target in link_targets(page.read_text(encoding="utf-8")):
            where = f"{rel}:{n}: {target}"
            if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                continue  # external (http:, https:, mailto:, ...), not checked
            path_part, _, anchor = target.partition("#")
            path_part = path_part.split("?", 1)[0]
            if path_part.startswith("/"):
                dest = (root / path_part.lstrip("/")).resolve()
            else:
                dest = (page.parent / path_part).resolve() if path_part else page.resolve()
            try:
                dest.relative_to(root.resolve())
            except ValueError:
                errors.append(f"{where}: points outside the repository")
                continue
            if not dest.exists():
                errors.append(f"{where}: no such file or folder")
                continue
            if anchor:
                if dest.is_dir() or dest.suffix.lower() != ".md":
                    errors.append(f"{where}: an anchor into something that is not a Markdown page")
                elif anchor not in page_anchors(dest):
                    errors.append(f"{where}: no heading or id '{anchor}' in {dest.relative_to(root.resolve())}")
    return errors


def check_examples(root, files):
    """Code blocks marked <!-- example: PATH --> equal the file PATH."""
    errors = []
    for page in files:
        if not page.is_file():
            continue
        lines = page.read_text(encoding="utf-8").splitlines()
        rel = page.relative_to(root)
        for i, line in enumerate(lines):
            m = EXAMPLE_MARK.match(line.strip())
            if not m:
                continue
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            fm = FENCE.match(lines[j]) if j < len(lines) else None
            if not fm:
                errors.append(f"{rel}:{i + 1}: the example mark is not followed by a code block")
                continue
            end = j + 1
            while end < len(lines) and not (lines[end].strip().startswith(fm.group(1)) and not lines[end].strip()[len(fm.group(1)):].strip()):
                end += 1
            block = "\n".join(lines[j + 1:end]).rstrip("\n")
            source = root / m.group(1)
            if not source.is_file():
                errors.append(f"{rel}:{i + 1}: example {m.group(1)}: no such file")
            elif source.read_text(encoding="utf-8").rstrip("\n") != block:
                errors.append(f"{rel}:{i + 1}: the code block differs from {m.group(1)}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source_dir", nargs="?", default=str(pathlib.Path(__file__).resolve().parent.parent))
    ap.add_argument("--readme-example", action="store_true", help="only check that marked code blocks equal their files")
    args = ap.parse_args()
    root = pathlib.Path(args.source_dir).resolve()
    files = pages(root)
    errors = check_examples(root, files)
    if not args.readme_example:
        errors = check_links(root, files) + errors
    for e in errors:
        print(e)
    print(f"check_links: {len(files)} pages, {len(errors)} broken")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
