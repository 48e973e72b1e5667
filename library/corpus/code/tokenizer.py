"""A tiny tokenizer for arithmetic expressions, with a Pratt parser.

Sample corpus file for the dpe-tui library: short, self-contained, runnable.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

TOKEN_RE = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|[-+*/()^,]))")


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    pos: int


def tokenize(src: str) -> Iterator[Token]:
    pos = 0
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        if not m or m.end() == pos:
            if src[pos:].strip() == "":
                return
            raise SyntaxError(f"unexpected character {src[pos]!r} at {pos}")
        kind = m.lastgroup or "op"
        yield Token(kind, m.group(kind), m.start(kind))
        pos = m.end()


BINDING = {"+": 10, "-": 10, "*": 20, "/": 20, "**": 30, "^": 30}
RIGHT_ASSOC = {"**", "^"}


class Parser:
    def __init__(self, src: str) -> None:
        self.tokens = list(tokenize(src))
        self.i = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def next(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise SyntaxError("unexpected end of input")
        self.i += 1
        return tok

    def expr(self, rbp: int = 0) -> float:
        tok = self.next()
        if tok.kind == "num":
            left = float(tok.text)
        elif tok.text == "-":
            left = -self.expr(25)
        elif tok.text == "(":
            left = self.expr()
            if self.next().text != ")":
                raise SyntaxError("expected )")
        else:
            raise SyntaxError(f"unexpected {tok.text!r} at {tok.pos}")
        while (op := self.peek()) is not None and BINDING.get(op.text, 0) > rbp:
            self.next()
            bp = BINDING[op.text] - (1 if op.text in RIGHT_ASSOC else 0)
            right = self.expr(bp)
            left = {"+": left + right, "-": left - right, "*": left * right,
                    "/": left / right}.get(op.text, left ** right)
        return left


if __name__ == "__main__":
    for case in ["1 + 2 * 3", "(1 + 2) * 3", "2 ** 3 ** 2", "-4 + 10 / 4"]:
        print(f"{case:>14} = {Parser(case).expr():g}")
