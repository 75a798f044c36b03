"""Recursive-descent parser for CEL, producing ``kubedra.cel.ast`` nodes.

Precedence, the negative-literal rule, optional syntax (``.?f``, ``[?k]``, ``?`` entries) and
the macro set follow cel-go's grammar and default macros, including the two-variable
comprehensions and ``cel.bind``. Syntax errors carry the offending offset so that messages
point at the right column.
"""

from __future__ import annotations

from kubedra.cel import ast
from kubedra.cel.lexer import LexError, Token, tokenize
from kubedra.cel.values import INT64_MAX, INT64_MIN, UINT64_MAX, UInt

MAX_RECURSION_DEPTH = 250

_EXPR_START = (
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}"
)
_EXPR_START_OR_OPTIONAL = _EXPR_START.replace("'!', ", "'!', '?', ")
_STARTS = {"[", "{", "(", ".", "-", "!", "true", "false", "null"} | {
    "INT", "UINT", "DOUBLE", "STRING", "BYTES", "IDENT", "QIDENT",
}  # fmt: skip
_RESERVED = {
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
}


class ParseError(Exception):
    """A syntax error at ``offset`` (-1 when it concerns the expression as a whole)."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


_RELATIONS = {"<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_"}
_ADDITIVE = {"+": "_+_", "-": "_-_"}
_MULTIPLICATIVE = {"*": "_*_", "/": "_/_", "%": "_%_"}
_ONE_VAR_MACROS = {"all": "all", "exists": "exists", "exists_one": "exists_one"}
_TWO_VAR_MACROS = {"all": "all", "exists": "exists", "existsOne": "exists_one"}


class Parser:
    def __init__(self, text: str) -> None:
        try:
            self.tokens = tokenize(text)
        except LexError as e:
            raise ParseError(e.offset, f"Syntax error: {e.message}") from None
        self.pos = 0
        self.depth = 0

    def parse(self) -> ast.Node:
        node = self.expr()
        tok = self.peek()
        if tok.kind != "EOF":
            raise ParseError(
                tok.offset, f"Syntax error: extraneous input '{tok.text}' expecting <EOF>"
            )
        return node

    # token helpers -------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != "EOF":
            self.pos += 1
        return tok

    def accept(self, kind: str) -> Token | None:
        if self.peek().kind == kind:
            return self.next()
        return None

    def expect(self, kind: str) -> Token:
        tok = self.peek()
        if tok.kind != kind:
            if tok.kind == "EOF":
                raise ParseError(tok.offset, f"Syntax error: missing '{kind}' at '<EOF>'")
            raise ParseError(
                tok.offset, f"Syntax error: mismatched input '{tok.text}' expecting '{kind}'"
            )
        return self.next()

    # grammar -------------------------------------------------------------------------

    def expr(self) -> ast.Node:
        self.depth += 1
        if self.depth > MAX_RECURSION_DEPTH:
            raise ParseError(-1, f"expression recursion limit exceeded: {MAX_RECURSION_DEPTH}")
        try:
            cond = self.logical_or()
            q = self.accept("?")
            if q is None:
                return cond
            then = self.logical_or()
            self.expect(":")
            otherwise = self.expr()
            return ast.Call(q.offset, "_?_:_", [cond, then, otherwise])
        finally:
            self.depth -= 1

    def logical_or(self) -> ast.Node:
        left = self.logical_and()
        while (tok := self.accept("||")) is not None:
            left = ast.Call(tok.offset, "_||_", [left, self.logical_and()])
        return left

    def logical_and(self) -> ast.Node:
        left = self.relation()
        while (tok := self.accept("&&")) is not None:
            left = ast.Call(tok.offset, "_&&_", [left, self.relation()])
        return left

    def relation(self) -> ast.Node:
        left = self.addition()
        while True:
            tok = self.peek()
            if tok.kind in _RELATIONS:
                self.next()
                left = ast.Call(tok.offset, _RELATIONS[tok.kind], [left, self.addition()])
            elif tok.kind == "in":
                self.next()
                left = ast.Call(tok.offset, "@in", [left, self.addition()])
            else:
                return left

    def addition(self) -> ast.Node:
        left = self.multiplication()
        while (tok := self.peek()).kind in _ADDITIVE:
            self.next()
            left = ast.Call(tok.offset, _ADDITIVE[tok.kind], [left, self.multiplication()])
        return left

    def multiplication(self) -> ast.Node:
        left = self.unary()
        while (tok := self.peek()).kind in _MULTIPLICATIVE:
            self.next()
            left = ast.Call(tok.offset, _MULTIPLICATIVE[tok.kind], [left, self.unary()])
        return left

    def unary(self) -> ast.Node:
        """``!`` and ``-`` runs: an even run cancels out and an odd one is one operator, as
        cel-go's parser does; a single ``-`` before a number is a negative literal."""
        tok = self.peek()
        if tok.kind not in ("!", "-"):
            return self.member()
        ops: list[Token] = []
        while self.peek().kind == tok.kind:
            ops.append(self.next())
        if tok.kind == "-" and len(ops) == 1 and self.peek().kind in ("INT", "DOUBLE"):
            return self.member(negate=ops[0])
        node = self.member()
        if len(ops) % 2 == 0:
            return node
        return ast.Call(ops[0].offset, "!_" if tok.kind == "!" else "-_", [node])

    def member(self, negate: Token | None = None) -> ast.Node:
        node = self.primary(negate)
        while True:
            tok = self.peek()
            if tok.kind == ".":
                self.next()
                optional = self.accept("?") is not None
                name_tok = self.peek()
                if name_tok.kind not in ("IDENT", "QIDENT") and name_tok.kind not in (
                    "true",
                    "false",
                    "null",
                    "in",
                ):
                    raise self._unexpected(name_tok, "IDENTIFIER")
                self.next()
                name = str(name_tok.value)
                open_paren = self.peek()
                if open_paren.kind == "(" and not optional and name_tok.kind == "IDENT":
                    self.next()
                    args = self.call_args()
                    node = self._member_call(open_paren.offset, node, name, args)
                else:
                    # Reserved words are valid field names (cel-go only refuses them as
                    # identifiers): {'as': 1}.as is 1.
                    node = ast.Select(tok.offset, node, name, optional=optional)
            elif tok.kind == "[":
                self.next()
                if self.peek().kind not in _STARTS and self.peek().kind != "?":
                    raise self._unexpected(self.peek(), _EXPR_START_OR_OPTIONAL)
                optional = self.accept("?") is not None
                index = self.expr()
                self.expect("]")
                node = ast.Call(tok.offset, "_[?_]" if optional else "_[_]", [node, index])
            elif tok.kind == "{" and isinstance(node, ast.Ident | ast.Select):
                raise ParseError(tok.offset, "message construction is not supported")
            else:
                return node

    def primary(self, negate: Token | None) -> ast.Node:
        tok = self.peek()
        if negate is not None:
            if tok.kind == "INT":
                self.next()
                value = -int(tok.value)
                if value < INT64_MIN:
                    raise ParseError(negate.offset, "invalid int literal")
                return ast.Const(negate.offset, value)
            if tok.kind == "DOUBLE":
                self.next()
                return ast.Const(negate.offset, -float(tok.value))
            raise self._unexpected(tok, _EXPR_START)
        kind = tok.kind
        if kind == "INT":
            self.next()
            if int(tok.value) > INT64_MAX:
                raise ParseError(tok.offset, "invalid int literal")
            return ast.Const(tok.offset, int(tok.value))
        if kind == "UINT":
            self.next()
            if int(tok.value) > UINT64_MAX:
                raise ParseError(tok.offset, "invalid uint literal")
            return ast.Const(tok.offset, UInt(tok.value))
        if kind in ("DOUBLE", "STRING", "BYTES"):
            self.next()
            return ast.Const(tok.offset, tok.value)
        if kind == "true" or kind == "false":
            self.next()
            return ast.Const(tok.offset, kind == "true")
        if kind == "null":
            self.next()
            return ast.Const(tok.offset, None)
        if kind == "." and self.peek(1).kind == "IDENT":
            self.next()
            return self.identifier(self.peek(), leading_dot=True)
        if kind == "IDENT":
            return self.identifier(tok, leading_dot=False)
        if kind == "(":
            self.next()
            node = self.expr()
            self.expect(")")
            return node
        if kind == "[":
            self.next()
            elements, optional = self.list_elements("]")
            return ast.CreateList(tok.offset, elements, optional)
        if kind == "{":
            self.next()
            return ast.CreateMap(tok.offset, self.map_entries())
        raise self._unexpected(tok, _EXPR_START)

    def identifier(self, tok: Token, leading_dot: bool) -> ast.Node:
        self.next()
        self._check_reserved(tok)
        name = str(tok.value)
        open_paren = self.peek()
        if open_paren.kind == "(":
            self.next()
            args = self.call_args()
            return self._global_call(open_paren.offset, name, args)
        return ast.Ident(tok.offset, name)

    def call_args(self) -> list[ast.Node]:
        args: list[ast.Node] = []
        if self.accept(")") is not None:
            return args
        while True:
            args.append(self.expr())
            if self.accept(",") is not None:
                continue
            self.expect(")")
            return args

    def list_elements(self, close: str) -> tuple[list[ast.Node], list[bool]]:
        elements: list[ast.Node] = []
        optional: list[bool] = []
        while True:
            if self.accept(close) is not None:
                return elements, optional
            optional.append(self.accept("?") is not None)
            elements.append(self.expr())
            if self.accept(",") is None:
                self.expect(close)
                return elements, optional

    def map_entries(self) -> list[ast.MapEntry]:
        entries: list[ast.MapEntry] = []
        while True:
            if self.accept("}") is not None:
                return entries
            opt = self.accept("?") is not None
            key = self.expr()
            self.expect(":")
            value = self.expr()
            entries.append(ast.MapEntry(key, value, opt))
            if self.accept(",") is None:
                self.expect("}")
                return entries

    # macros --------------------------------------------------------------------------

    def _global_call(self, offset: int, name: str, args: list[ast.Node]) -> ast.Node:
        if name == "has" and len(args) == 1:
            arg = args[0]
            if not isinstance(arg, ast.Select) or arg.optional or arg.test_only:
                raise ParseError(offset, "invalid argument to has() macro")
            return ast.Select(arg.offset, arg.operand, arg.field, test_only=True)
        return ast.Call(offset, name, args)

    def _member_call(
        self, offset: int, target: ast.Node, name: str, args: list[ast.Node]
    ) -> ast.Node:
        n = len(args)
        if name == "bind" and n == 3 and isinstance(target, ast.Ident) and target.name == "cel":
            var = self._var_name(args[0])
            return ast.Macro(offset, "bind", None, (var,), [args[1], args[2]])
        if name == "sortBy" and n == 2:
            return self._sort_by(offset, target, args)
        kind: str | None = None
        nvars = 0
        if n == 2 and name in _ONE_VAR_MACROS:
            kind, nvars = _ONE_VAR_MACROS[name], 1
        elif n == 2 and name == "existsOne":
            kind, nvars = "exists_one", 1
        elif n == 3 and name in _TWO_VAR_MACROS:
            kind, nvars = _TWO_VAR_MACROS[name], 2
        elif name == "map" and n in (2, 3):
            kind, nvars = "map", 1
        elif name == "filter" and n == 2:
            kind, nvars = "filter", 1
        elif name in ("transformList", "transformMap", "transformMapEntry") and n in (3, 4):
            kind, nvars = name, 2
        elif name in ("optMap", "optFlatMap") and n == 2:
            kind, nvars = name, 1
        if kind is None:
            return ast.Call(offset, name, args, target)
        variables = tuple(self._var_name(a) for a in args[:nvars])
        if nvars == 2 and variables[0] == variables[1]:
            raise ParseError(args[1].offset, f"duplicate variable name: {variables[0]}")
        return ast.Macro(offset, kind, target, variables, list(args[nvars:]))

    def _sort_by(self, offset: int, target: ast.Node, args: list[ast.Node]) -> ast.Node:
        """ext lists' ``sortBy`` macro: bind the list, sort it by the mapped keys."""
        if not isinstance(target, (ast.CreateList, ast.Select, ast.Ident, ast.Macro, ast.Call)):
            raise ParseError(
                target.offset,
                "sortBy can only be applied to a list, identifier, comprehension, call or "
                "select expression",
            )
        var = self._var_name(args[0])
        bound = "@__sortBy_input__"
        keys = ast.Macro(offset, "map", ast.Ident(offset, bound), (var,), [args[1]])
        call = ast.Call(offset, "@sortByAssociatedKeys", [keys], ast.Ident(offset, bound))
        return ast.Macro(offset, "bind", None, (bound,), [target, call])

    @staticmethod
    def _var_name(node: ast.Node) -> str:
        if not isinstance(node, ast.Ident):
            raise ParseError(node.offset, "argument must be a simple name")
        if node.name in ("__result__", "@result", "@it", "@it2"):
            raise ParseError(node.offset, "iteration variable overwrites accumulator variable")
        return node.name

    @staticmethod
    def _check_reserved(tok: Token) -> None:
        if tok.kind == "IDENT" and tok.value in _RESERVED:
            raise ParseError(tok.offset, f"reserved identifier: {tok.value}")

    @staticmethod
    def _unexpected(tok: Token, expecting: str) -> ParseError:
        text = "<EOF>" if tok.kind == "EOF" else tok.text
        if tok.kind == "EOF":
            return ParseError(
                tok.offset, f"Syntax error: mismatched input '{text}' expecting {expecting}"
            )
        return ParseError(
            tok.offset, f"Syntax error: extraneous input '{text}' expecting {expecting}"
        )


def parse(text: str) -> ast.Node:
    return Parser(text).parse()
