"""The docs check's links: every relative link of a page ([label](target)) names a file that
exists, and an anchor (#...) a heading of that file, as GitHub makes the anchors.

A link inside a code block or inline code is not a link; http(s) and mailto links are not
followed (the check runs without a network).
"""

import os
import re

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [label](target) or [label](target "title"); the label may hold one level of brackets.
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


def prose_lines(text):
    """[(line number, text)] outside fenced code blocks, inline code removed."""
    lines, fence = [], None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip().strip(fence[0]):
                fence = None
            continue
        lines.append((number, INLINE_CODE.sub("", line)))
    return lines


def anchor_of(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores
    kept), each space a hyphen; inline code and links read as their text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its label
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    """The anchors of a markdown file's headings (repeats get -1, -2, ... as on GitHub)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    seen, found = {}, set()
    fence = None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and not line.strip().strip(fence[0]):
                fence = None
            continue
        h = HEADING.match(line)
        if not h:
            continue
        base = anchor_of(h.group(1))
        n = seen.get(base, 0)
        found.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return found


def link_errors(path, shown_as):
    """'FILE:LINE: reason' for each relative link of a page that does not resolve."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # A label may wrap onto the next line: join each line with the next for the search, and
    # count a link on the line it starts on.
    lines = prose_lines(text)
    errors, reported = [], set()
    for i, (number, line) in enumerate(lines):
        joined = line + (" " + lines[i + 1][1] if i + 1 < len(lines) else "")
        for m in LINK.finditer(joined):
            if m.start() >= len(line):
                continue  # starts on the next line: counted there
            target = m.group(1)
            if EXTERNAL.match(target) or (number, target) in reported:
                continue
            reported.add((number, target))
            problem = target_problem(path, target)
            if problem:
                errors.append(f"{shown_as}:{number}: link ({target}): {problem}")
    return errors


def target_problem(page, target):
    """Why a relative link does not resolve, or None."""
    file_part, _, anchor = target.partition("#")
    resolved = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part \
        else page
    if not os.path.exists(resolved):
        return f"no such file {file_part}"
    if anchor and resolved.endswith(".md"):
        if anchor not in anchors(resolved):
            where = file_part or "this page"
            return f"no heading of {where} has the anchor #{anchor}"
    return None
