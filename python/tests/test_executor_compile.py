"""The one-step compile of a lone-expression cell gives what the usual parse-then-compile gives, and stays silent when it fails."""

import _ast as ast
import contextlib
import io
import os
import random
import sys
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evalkit_kernel.core import executor  # noqa: E402

FLAGS = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
FILENAME = "<cell 7>"
SOURCES = [
    "1+1", "x", "x.real", "f(2)", "(1,\n 2)", "1, 2", "[i for i in range(3)]", "{'a': 1}", "lambda: 1", "None",
    "'text'", "not x", "x if x else 2", "1/0", "undefined_name", "f(*[1])", "(x)\n", "\n\n1+1\n\n", "# c\n1+1",
    "1+1  # c", "x\n# trailing", "f(x) + f(2)", "[1, 2][5]", "print(x)", "\f1", "h5", "(yield)", "yield",
    "", "   ", "# only", " 1+1", "x: int", "print 1", "import os", "del x", "pass", "x += 1", "x = 1", "1+1;",
    "for i in range(2): i", "if x: 1", "a, *b = 1, 2", "*a, b", "1if x else 2", "'a' is 1", "'\\d'", "x := 1",
]


def usual_code(source):
    """The executor's usual way for a cell whose AST is one expression; None for any other cell."""
    tree = compile(source, FILENAME, "exec", ast.PyCF_ONLY_AST | FLAGS, dont_inherit=True)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    if executor._ends_with_semicolon(source, tree.body[0]):
        return None
    return compile(ast.Expression(body=tree.body[0].value), FILENAME, "eval", FLAGS, dont_inherit=True)


def outcome(code):
    namespace = {"x": 3, "f": lambda value: value * 2}
    printed = io.StringIO()  # what a cell such as print(x) writes is compared too, not shown among test results
    try:
        with contextlib.redirect_stdout(printed):
            value = eval(code, namespace)
        # A function's repr holds its address: compare what it is, not where it lives.
        shown = value.__code__.co_code if callable(value) and hasattr(value, "__code__") else repr(value)
        return ("value", shown, printed.getvalue())
    except Exception as exc:
        tb = sys.exc_info()[2]
        while tb.tb_next is not None:
            tb = tb.tb_next
        return ("raised", type(exc).__name__, str(exc), tb.tb_lineno, tb.tb_frame.f_code.co_filename)


class LoneExpressionTest(unittest.TestCase):
    def check(self, source):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fast = executor._compile_lone_expression(source, FILENAME, FLAGS)
        if fast is None:
            # A failed attempt must have shown nothing: the usual way shows its warnings once, itself.
            self.assertEqual([str(w.message) for w in seen], [], source)
            return False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            usual = usual_code(source)
        self.assertIsNotNone(usual, "compiled in one step but is not one expression: %r" % source)
        self.assertEqual(fast.co_flags, usual.co_flags, source)
        self.assertEqual(fast.co_firstlineno, usual.co_firstlineno, source)
        self.assertEqual(fast.co_name, usual.co_name, source)
        self.assertEqual(outcome(fast), outcome(usual), source)
        return True

    def test_every_listed_cell_compiles_to_the_same_code_or_takes_the_usual_way(self):
        taken = [source for source in SOURCES if self.check(source)]
        # The common display cells do take the one-step way.
        for source in ("1+1", "x", "f(2)", "print(x)", "x.real"):
            self.assertIn(source, taken)
        for source in ("x = 1", "import os", "1+1;", "'\\d'", "1if x else 2", "(yield)", "x: int", ""):
            self.assertNotIn(source, taken)

    def test_random_token_soup_never_differs(self):
        rng = random.Random(7)
        tokens = ["x", "f", "1", "2", "+", "-", "*", "(", ")", "[", "]", ",", ":", ".", "real", " ", "\n", "if",
                  "else", "not", "'s'", "lambda", "for", "in", "#", "{", "}", "is", "or", "0"]
        for _ in range(3000):
            source = "".join(rng.choice(tokens) for _ in range(rng.randrange(1, 9)))
            try:
                self.check(source)
            except RecursionError:
                pass


if __name__ == "__main__":
    unittest.main()
