"""The mutants mutmut never makes, found with ``ast`` (a library of ``benchmarks/mutation.py``).

mutmut 3 mutates the bodies of plain functions and of methods of top-level classes, through
trampolines. It leaves alone everything that runs at import time or that a trampoline cannot
wrap: module-level statements (constants, registries, ``OPERATIONS.seal()``), class bodies
(dataclass fields and their defaults, ``__slots__``, class constants), decorated functions
other than static and class methods (the interpreter's ``@operation`` handlers, properties,
cached properties, context managers), ``__new__``, the arguments of ``len`` and
``isinstance``, defaults that are not a plain name, number or string, and decorators. This
module mutates exactly those, with mutmut's kinds of change (a number plus one, a string
wrapped in ``XX``, ``True`` and ``False`` swapped, each comparison, arithmetic, bit and boolean
operator swapped for its neighbour, ``not`` and ``~`` dropped, a conditional expression forced
down each arm, a lambda returning ``None``).

mutmut never deletes a statement, so this module does, everywhere: each statement of a
function body (an assignment, a call, a ``return``, a ``raise``, a ``break``...) becomes
``pass``, and so does each call made at import time. Module- and class-level assignments are
not deleted (their values are mutated instead: deleting a definition fails at import or,
for a type alias read only by annotations, means nothing).

Docstrings, imports, annotations and ``__all__`` are never mutated. Each mutant is the whole
module's source with one span of it rewritten, so a failing import is a killed mutant like
any other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# What mutmut never descends into (its NEVER_MUTATE_FUNCTION_NAMES and _CALLS).
MUTMUT_SKIPPED_FUNCTIONS = {"__getattribute__", "__setattr__", "__new__"}
MUTMUT_SKIPPED_CALLS = {"len", "isinstance"}

SWAPPED: dict[type[ast.AST], type[ast.AST]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.Div,
    ast.Pow: ast.Mult,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitAnd,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.And: ast.Or,
    ast.Or: ast.And,
    ast.USub: ast.UAdd,
}


@dataclass(frozen=True)
class Mutant:
    """One mutant: where (``line``, and ``scope``: the top-level function, ``Class.method``,
    class or ``<module>`` it lies in), what it changes (``before`` and ``after``: the lines
    of the span, stripped), how (``kind``) and the whole mutated module (``source``)."""

    line: int
    scope: str
    kind: str
    before: str
    after: str
    source: str


class _Source:
    """The module's text as bytes (``ast`` offsets count UTF-8 bytes) and a splice by span."""

    def __init__(self, text: str) -> None:
        self.data = text.encode()
        self.starts = [0]
        for index, byte in enumerate(self.data):
            if byte == 10:  # a newline
                self.starts.append(index + 1)

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column

    def mutant(self, node: ast.expr | ast.stmt, replacement: str, scope: str, kind: str) -> Mutant:
        first, last = node.lineno, node.end_lineno or node.lineno
        start = self.offset(first, node.col_offset)
        end = self.offset(last, node.end_col_offset or 0)
        data = self.data[:start] + replacement.encode() + self.data[end:]
        line_start = self.starts[first - 1]
        line_end = self.starts[last] - 1 if last < len(self.starts) else len(self.data)
        before = self.data[line_start:line_end].decode()
        after = (self.data[line_start:start] + replacement.encode() + self.data[end:line_end]).decode()
        return Mutant(first, scope, kind, _stripped(before), _stripped(after), data.decode())


def _stripped(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines())


def _docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _covered_by_mutmut(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether mutmut mutates this top-level function or method (its decorator rule)."""
    if function.name in MUTMUT_SKIPPED_FUNCTIONS:
        return False
    decorators = function.decorator_list
    if not decorators:
        return True
    plain = len(decorators) == 1 and isinstance(decorators[0], ast.Name)
    return plain and decorators[0].id in ("staticmethod", "classmethod")  # type: ignore[attr-defined]


def mutants_of(text: str) -> list[Mutant]:
    """Every mutant of the module ``text`` that mutmut does not make, in source order."""
    source = _Source(text)
    tree = ast.parse(text)
    found: list[Mutant] = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            found += _function(source, statement, statement.name)
        elif isinstance(statement, ast.ClassDef):
            for decorator in statement.decorator_list:
                found += _expressions(source, decorator, statement.name)
            for member in statement.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    found += _function(source, member, f"{statement.name}.{member.name}")
                elif not _docstring(member):
                    found += _blind_statement(source, member, statement.name)
        elif not _docstring(statement):
            found += _blind_statement(source, statement, "<module>")
    found.sort(key=lambda mutant: mutant.line)
    return found


def _function(source: _Source, function: ast.FunctionDef | ast.AsyncFunctionDef, scope: str) -> list[Mutant]:
    """A function's mutants: all of its expressions when mutmut skips it, else only what mutmut
    skips inside it; and the deletion of each statement of its body, either way."""
    found: list[Mutant] = []
    covered = _covered_by_mutmut(function)
    arguments = function.args
    defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    if not covered:
        for decorator in function.decorator_list:
            found += _expressions(source, decorator, scope)
    for default in defaults:
        if not covered or not isinstance(default, ast.Name | ast.Constant):
            found += _expressions(source, default, scope)
    body = function.body[1:] if function.body and _docstring(function.body[0]) else function.body
    for statement in body:
        for node in _walk_statements(statement):
            found += _deletion(source, node, scope)
        if covered:
            for call in _skipped_calls(statement):
                for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
                    found += _expressions(source, argument, scope)
        else:
            found += _expressions(source, statement, scope)
    return found


def _blind_statement(source: _Source, statement: ast.stmt, scope: str) -> list[Mutant]:
    """A statement run at import time (module or class level): its expressions, and its
    deletion when it is a bare call."""
    if isinstance(statement, ast.Import | ast.ImportFrom | ast.Pass):
        return []
    if isinstance(statement, ast.Assign) and any(
        isinstance(target, ast.Name) and target.id == "__all__" for target in statement.targets
    ):
        return []
    found = _expressions(source, statement, scope)
    if isinstance(statement, ast.Expr):
        found.append(source.mutant(statement, "pass", scope, "delete"))
    return found


def _walk_statements(statement: ast.stmt) -> Iterator[ast.stmt]:
    """The statement and every statement nested in it (nested definitions' bodies included)."""
    yield statement
    for field in ("body", "orelse", "finalbody"):
        for child in getattr(statement, field, []):
            yield from _walk_statements(child)
    for handler in getattr(statement, "handlers", []):
        for child in handler.body:
            yield from _walk_statements(child)


DELETED = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Raise,
    ast.Delete,
    ast.Assert,
    ast.Break,
    ast.Continue,
)


def _deletion(source: _Source, statement: ast.stmt, scope: str) -> list[Mutant]:
    if not isinstance(statement, DELETED) or _docstring(statement):
        return []
    if isinstance(statement, ast.AnnAssign) and statement.value is None:
        return []
    return [source.mutant(statement, "pass", scope, "delete")]


def _skipped_calls(statement: ast.stmt) -> Iterator[ast.Call]:
    """The outermost calls of ``len`` and ``isinstance`` in a statement: mutmut skips them and
    everything inside."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MUTMUT_SKIPPED_CALLS:
            yield node
            continue
        stack.extend(ast.iter_child_nodes(node))


def _expressions(source: _Source, root: ast.AST, scope: str) -> list[Mutant]:
    """The expression mutants of every node under ``root`` (annotations, docstrings and the
    inside of f-strings left out), as mutmut would make them."""
    found: list[Mutant] = []
    stack: list[ast.AST] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.stmt) and _docstring(node):
            continue
        found += _changes(source, node, scope)
        if isinstance(node, ast.JoinedStr):
            continue  # positions inside f-strings are not reliable before Python 3.12
        for name, child in ast.iter_fields(node):
            if name in ("annotation", "returns", "type_comment"):
                continue
            children = child if isinstance(child, list) else [child]
            stack.extend(item for item in children if isinstance(item, ast.AST))
    return found


def _changes(source: _Source, node: ast.AST, scope: str) -> list[Mutant]:
    if not isinstance(node, ast.expr):
        return []

    def swapped(copy: ast.AST, kind: str) -> Mutant:
        return source.mutant(node, f"({ast.unparse(copy)})", scope, kind)

    found: list[Mutant] = []
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            found.append(source.mutant(node, str(not value), scope, "name"))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found.append(source.mutant(node, f"({value + 1!r})", scope, "number"))
        elif isinstance(value, str):
            found.append(source.mutant(node, repr(f"XX{value}XX"), scope, "string"))
    elif isinstance(node, ast.JoinedStr):
        found.append(
            source.mutant(node, f"('XX' {ast.get_source_segment(source.data.decode(), node)})", scope, "string")
        )
    elif isinstance(node, ast.BinOp | ast.BoolOp | ast.UnaryOp) and type(node.op) in SWAPPED:
        copy = _copy(node)
        copy.op = SWAPPED[type(node.op)]()
        found.append(swapped(copy, "operator"))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.Invert):
        found.append(source.mutant(node, f"({ast.unparse(node.operand)})", scope, "operator"))
    elif isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            if type(op) in SWAPPED:
                copy = _copy(node)
                copy.ops[index] = SWAPPED[type(op)]()
                found.append(swapped(copy, "operator"))
    elif isinstance(node, ast.IfExp):
        found.append(source.mutant(node, f"({ast.unparse(node.body)})", scope, "branch"))
        found.append(source.mutant(node, f"({ast.unparse(node.orelse)})", scope, "branch"))
    elif isinstance(node, ast.Lambda) and not (isinstance(node.body, ast.Constant) and node.body.value is None):
        copy = _copy(node)
        copy.body = ast.Constant(None)
        found.append(swapped(copy, "lambda"))
    return found


def _copy(node: ast.AST) -> Any:
    """A shallow copy deep enough to change an operator: the lists of ``Compare`` included."""
    copy = type(node)(**{name: getattr(node, name) for name in node._fields})
    if isinstance(copy, ast.Compare):
        copy.ops = list(copy.ops)
    return copy
