"""The modules of `python/aqmlab` import one another without a circle (issue 31 item 4).

The graph is read from the source with `ast`: an edge A → B for every `import` statement in A
that names a module B of the package — at module level, under `if TYPE_CHECKING:` and inside
functions alike. Imports inside functions count because they are where circles hide: the two
this test was written against (`io` ↔ `record`, `tuner` ↔ `tunereport`) and a third it found
(`api` ↔ `calibrate`) each closed through an import inside a function, so a graph of module-level
imports alone had no cycle. A module imported lazily to save start-up time is still a
dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "aqmlab"


def module_name(path: Path, root: Path) -> str:
    """Dotted name of the module at `path` in the package whose directory is `root`."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module → the package's modules it imports anywhere in its source."""
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the module's package, `level - 1` further up
                    package = name.split(".") if is_package else name.split(".")[:-1]
                    package = package[: len(package) - (node.level - 1)]
                    base = ".".join([*package, base] if base else package)
                for alias in node.names:  # `from pkg import mod` imports the module pkg.mod
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in files else base)
        graph[name] = {t for t in targets if t in files and t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of `graph`: its strongly connected components of two or more modules
    (Tarjan's algorithm), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


#: Circles known and left, each with why. A circle broken is removed from here (the test says
#: so); a new one fails the test.
KNOWN_CIRCLES: set[tuple[str, ...]] = set()


def test_circle_finder_finds_each_circle_and_only_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": {"a"}}
    assert circles(graph) == [["a", "b", "c"], ["d", "e"]]
    assert circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_graph_sees_imports_inside_functions_and_relative_ones(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg import b\n")
    (pkg / "b.py").write_text("if False:\n    from pkg.sub.c import x\n")
    (pkg / "sub" / "__init__.py").write_text("from . import c\n")
    (pkg / "sub" / "c.py").write_text("from ..a import f\nimport json\n")
    graph = import_graph(pkg)
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.sub.c"},
        "pkg.sub": {"pkg.sub.c"},
        "pkg.sub.c": {"pkg.a"},
    }
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]


def test_aqmlab_imports_have_no_circle():
    graph = import_graph(PACKAGE)
    # The graph is the package's: the layers the circles were broken into are in it.
    assert {"aqmlab.engine.run_variant", "aqmlab.storage.run_dir"} <= graph["aqmlab.engine.api"]
    assert {"aqmlab.storage.run_dir", "aqmlab.engine.document"} <= graph["aqmlab.engine.calibrate"]
    assert "aqmlab.storage.tables" in graph["aqmlab.storage.record"]
    assert "aqmlab.tuning.store" in graph["aqmlab.tuning.report"]
    found = {tuple(c) for c in circles(graph)}
    assert found - KNOWN_CIRCLES == set(), "import circles: " + "; ".join(map(" ↔ ".join, found))
    assert KNOWN_CIRCLES - found == set(), "broken, remove from KNOWN_CIRCLES"
