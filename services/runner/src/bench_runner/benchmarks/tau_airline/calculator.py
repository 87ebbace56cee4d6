"""Arithmetic for the `calculate` tool without `eval`.

τ² runs `eval(expression, {"__builtins__": None}, {})` on expressions made only of digits,
`+ - * / ( ) .` and spaces. This walks the same Python syntax tree and applies Python's own
operators, so results and error messages match `eval`, but nothing else can run. One guard
τ² lacks: an integer power with a huge exponent is refused instead of hanging the process.
"""

from __future__ import annotations

import ast
import operator
import warnings
from collections.abc import Callable
from typing import Any

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
MAX_EXPONENT = 10_000


def evaluate_expression(expression: str) -> float:
    """`float(eval(expression))` for the calculator's character set.

    Raises:
        SyntaxError, ArithmeticError, TypeError, ValueError: as `eval` would (the message is
            what the agent sees).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        tree = ast.parse(expression, filename="<string>", mode="eval")
    return float(_value(tree.body))


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and _too_big(left, right):
            raise ValueError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.Tuple):
        return tuple(_value(element) for element in node.elts)
    if isinstance(node, ast.Call):
        raise TypeError(f"'{type(_value(node.func)).__name__}' object is not callable")
    raise ValueError(f"unsupported expression: {ast.dump(node)}")


def _too_big(base: Any, exponent: Any) -> bool:
    """Only integer powers can grow without bound (float powers overflow at once)."""
    if not isinstance(exponent, int) or not isinstance(base, int):
        return False
    return exponent > MAX_EXPONENT and abs(base) > 1
