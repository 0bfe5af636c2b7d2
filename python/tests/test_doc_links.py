"""The links of the README and of `docs/` (issue 31): every markdown link `[text](target)` that is
not a web address names a file or directory of the repository, relative to the page, and an
anchor `#name` names a heading of the target page (GitHub's rule: lower case, punctuation but
`-` and `_` removed, spaces to `-`). No link leaves the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: `](target)` of an inline link or image; the target ends at the first `)` or space (a title).
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def pages() -> list[Path]:
    """README.md, every page under docs/ and bench/HISTORY.md."""
    return [ROOT / "README.md", ROOT / "bench" / "HISTORY.md", *sorted((ROOT / "docs").rglob("*.md"))]


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `](x)` inside code is not a link)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(page.read_text(encoding="utf-8")):
        m = HEADING.match(line)
        if m:
            base = slug(m[1])
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """`PAGE: TARGET: reason` for each link of `page` that does not resolve inside `root`."""
    bad = []
    root, page = root.resolve(), page.resolve()
    rel = page.relative_to(root)
    for line in prose_lines(page.read_text(encoding="utf-8")):
        # Inline code spans hold examples, not links.
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.is_relative_to(root):
                bad.append(f"{rel}: {target}: leaves the repository")
            elif not dest.exists():
                bad.append(f"{rel}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{rel}: {target}: no heading #{anchor} in {dest.relative_to(root)}")
    return bad


def test_every_link_of_the_readme_and_docs_resolves_inside_the_repository():
    bad = [b for p in pages() for b in broken_links(p)]
    assert bad == []


def test_the_check_finds_each_kind_of_broken_link(tmp_path):
    # A control page: one good link of each form, and one link broken in each way.
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Sweeps: the `[sweep]` table\n")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/a.md) [ok](docs/a.md#sweeps-the-sweep-table) [ok](#top) [web](https://x.org)\n"
        "# Top\n"
        "[gone](docs/b.md) [out](../elsewhere.md) [anchor](docs/a.md#nothing)\n"
        "`[code](not/a/link.md)`\n```\n[fenced](not/a/link.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page, root=tmp_path) == [
        "README.md: docs/b.md: no such file",
        "README.md: ../elsewhere.md: leaves the repository",
        "README.md: docs/a.md#nothing: no heading #nothing in docs/a.md",
    ]


def test_slug_is_githubs():
    # Hand-derived from GitHub's rule on headings of these pages.
    assert slug("Comparing pcaps of the simulator and the testbed") == (
        "comparing-pcaps-of-the-simulator-and-the-testbed"
    )
    assert slug("Tuning: how `aqmlab tune` runs") == "tuning-how-aqmlab-tune-runs"
    assert slug("Seed 001's twin: two-way PackMime (2026-11-26)") == (
        "seed-001s-twin-two-way-packmime-2026-11-26"
    )
