"""The pieces of aqmlab's report pages: Markdown and HTML tables, and files written whole
(under a temporary name in the same directory, then renamed, so a reader never sees half a file)."""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path


def md_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (pipes in cells escaped)."""
    esc = [[c.replace("|", "\\|") for c in r] for r in [header, *rows]]
    lines = ["| " + " | ".join(esc[0]) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in esc[1:]])


def html_table(header: list[str], rows: list[list[str]]) -> str:
    """An HTML table (cells escaped)."""
    th = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    trs = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>"


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` (text as UTF-8, newlines as written) to `path` under a temporary name in the
    same directory, then rename."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    os.replace(tmp, path)


def html_figure(name: str, png: bytes, heading: str = "h2") -> list[str]:
    """A figure of an HTML page: its heading and the PNG embedded as a data URL."""
    b64 = base64.b64encode(png).decode("ascii")
    return [
        f"<{heading}>{html.escape(name)}</{heading}>",
        f'<img alt="{html.escape(name)}" src="data:image/png;base64,{b64}">',
    ]


#: The style of every report page (sweep, tuning and study reports alike).
PAGE_CSS = (
    "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse;font-size:0.85em;margin:1em 0}"
    "td,th{border:1px solid #bbb;padding:3px 6px;text-align:right}"
    "td:first-child,th:first-child{text-align:left}img{max-width:100%}"
)


def html_page(title: str, body: list[str]) -> str:
    """A self-contained HTML page of `body`'s elements, one a line, in `PAGE_CSS`."""
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>' + html.escape(title)
        + f"</title><style>{PAGE_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )  # fmt: skip
