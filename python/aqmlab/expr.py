"""A small, safe arithmetic evaluator for the derived values of sweeps (`[sweep.derive]`).

An expression is parsed with Python's own parser (`ast.parse(..., mode="eval")`) and then
interpreted by walking an allow-list of node types; nothing is ever passed to `eval()`, and any
other node (calls to unknown functions, comprehensions, lambdas, attribute access on values …)
is rejected when the expression is parsed, before anything runs.

Allowed:
- numbers, strings, booleans;
- `+ - * / // % **` and unary `-`/`+` on numbers (`**` with an exponent of at most 64 in
  magnitude, so a typo cannot hang the sweep); `+` joins two strings;
- `min(...)`, `max(...)`, `abs(x)`, `round(x[, n])`, `int(x)`, `float(x)`, `str(x)`;
- references to values of the resolved scenario by key path, exactly as written in the sweep
  table: `queue.min_th`, `workload[0].rate`, `variant[red].queue.limit`, sweep variables
  `var.load`.

Example: `"3 * queue.min_th"`, `"max(4 * queue.min_th, 120)"`, `"str(2 * var.ms) + 'ms'"`.

Validation: python/tests/test_sweep_spec.py (derived values, rejected expressions).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_EXPONENT = 64

_BINOPS: dict[type, Callable] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_FUNCS: dict[str, Callable] = {
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "int": int,
    "float": float,
    "str": str,
}


class ExprError(ValueError):
    """An expression that cannot be parsed or evaluated; the message says why."""


def _ref_path(node: ast.AST) -> str | None:
    """The key path a Name/Attribute/Subscript chain spells (`a.b[0].c`, `variant[red].x`), or
    None if the node is not such a chain."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _ref_path(node.value)
        return None if base is None else f"{base}.{node.attr}"
    if isinstance(node, ast.Subscript):
        base = _ref_path(node.value)
        s = node.slice
        if base is None:
            return None
        if isinstance(s, ast.Constant) and type(s.value) is int:
            return f"{base}[{s.value}]"
        if isinstance(s, ast.Name):
            return f"{base}[{s.id}]"
        if isinstance(s, ast.Constant) and isinstance(s.value, str):
            return f"{base}[{s.value}]"
    return None


def _is_num(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


@dataclass
class Expr:
    """A parsed expression: `text` as written, `refs` the key paths it reads (in order)."""

    text: str
    tree: ast.Expression = field(repr=False)
    refs: list[str]

    def eval(self, lookup: Callable[[str], object]):
        """Value of the expression; `lookup(path)` gives the value of a key path (and raises
        ExprError/KeyError for an unknown one)."""
        return self._eval(self.tree.body, lookup)

    def _eval(self, n: ast.AST, lookup):
        if isinstance(n, ast.Constant):
            return n.value
        path = _ref_path(n)
        if path is not None:
            return lookup(path)
        if isinstance(n, ast.UnaryOp):
            v = self._eval(n.operand, lookup)
            if not _is_num(v):
                raise ExprError(f"unary {'-' if isinstance(n.op, ast.USub) else '+'} of a non-number {v!r}")
            return -v if isinstance(n.op, ast.USub) else +v
        if isinstance(n, ast.BinOp):
            a = self._eval(n.left, lookup)
            b = self._eval(n.right, lookup)
            if isinstance(a, str) or isinstance(b, str):
                if isinstance(n.op, ast.Add) and isinstance(a, str) and isinstance(b, str):
                    return a + b
                raise ExprError(f"cannot combine {a!r} and {b!r} (strings only join with + to strings)")
            if not (_is_num(a) and _is_num(b)):
                raise ExprError(f"arithmetic on non-numbers {a!r}, {b!r}")
            if isinstance(n.op, ast.Pow) and abs(b) > MAX_EXPONENT:
                raise ExprError(f"exponent {b!r} larger than {MAX_EXPONENT}")
            try:
                r = _BINOPS[type(n.op)](a, b)
            except ZeroDivisionError:
                raise ExprError("division by zero") from None
            if isinstance(r, complex) or (isinstance(r, float) and not math.isfinite(r)):
                raise ExprError(f"result {r!r} is not a finite real number")
            return r
        if isinstance(n, ast.Call):
            f = _FUNCS[n.func.id]  # checked at parse time
            args = [self._eval(a, lookup) for a in n.args]
            try:
                return f(*args)
            except (TypeError, ValueError) as e:
                raise ExprError(f"{n.func.id}(): {e}") from None
        raise ExprError(f"unsupported syntax {ast.dump(n)}")  # unreachable after _check


def _check(n: ast.AST, text: str, refs: list[str]) -> None:
    if isinstance(n, ast.Constant):
        if not isinstance(n.value, int | float | str | bool):
            raise ExprError(f"{text!r}: unsupported constant {n.value!r}")
        return
    path = _ref_path(n)
    if path is not None:
        refs.append(path)
        return
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub | ast.UAdd):
        _check(n.operand, text, refs)
        return
    if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
        _check(n.left, text, refs)
        _check(n.right, text, refs)
        return
    if isinstance(n, ast.Call):
        if not (isinstance(n.func, ast.Name) and n.func.id in _FUNCS) or n.keywords:
            name = n.func.id if isinstance(n.func, ast.Name) else ast.unparse(n.func)
            raise ExprError(
                f"{text!r}: unknown function {name!r} (allowed: {', '.join(sorted(_FUNCS))}, "
                "positional arguments only)"
            )
        for a in n.args:
            _check(a, text, refs)
        return
    raise ExprError(f"{text!r}: unsupported syntax {ast.unparse(n)!r}")


def parse_expr(text: str) -> Expr:
    """Parse and check `text` (see the module doc); raises ExprError naming the problem."""
    if not isinstance(text, str):
        raise ExprError(f"expected an expression string, got {text!r}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ExprError(f"{text!r}: syntax error: {e.msg}") from None
    refs: list[str] = []
    _check(tree.body, text, refs)
    return Expr(text, tree, refs)
