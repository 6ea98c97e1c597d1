"""The magics transformer: valid Python is never rewritten (standard libraries, tricky cases); every magic form is."""

import glob
import hashlib
import io
import os
import sys
import sysconfig
import time
import tokenize
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from evalkit_kernel.magics.line_scanner import logical_line_starts  # noqa: E402
from evalkit_kernel.magics.transform import _MAYBE_MAGIC, find_magics, transform  # noqa: E402

M = "__evalkit_magic__"
S = "__evalkit_shell__"


def stdlib_dirs():
    """Lib/ of the running interpreter and of every other interpreter found on this machine."""
    dirs = [sysconfig.get_paths()["stdlib"]]
    patterns = ["/usr/lib/python3.*", "/usr/local/lib/python3.*"]
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    patterns.append(os.path.join(root, "versions", "3.*", "lib", "python3.*"))
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            version = os.path.basename(path)[len("python") :].split(".")
            if len(version) != 2 or not version[1].isdigit() or int(version[1]) < 8:
                continue  # evalkit supports CPython 3.8+
            if os.path.isfile(os.path.join(path, "os.py")) and path not in dirs:
                dirs.append(os.path.realpath(path))
    return list(dict.fromkeys(dirs))


def python_files(root):
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.endswith("-packages") and d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(directory, name)


def read_source(path):
    try:
        with io.open(path, "r", encoding="utf-8") as handle:
            return handle.read()
    except (UnicodeDecodeError, OSError):
        return None


def tokenize_starts(source):
    """Reference: physical lines (0-based) that begin a logical line, according to `tokenize`."""
    inside = set()
    first = None
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NEWLINE:
            if first is not None:
                inside.update(range(first + 1, tok.end[0] + 1))
            first = None
        elif first is None and tok.type not in skip:
            first = tok.start[0]
    count = source.count("\n") + (0 if source.endswith("\n") or not source else 1)
    return [i for i in range(count) if (i + 1) not in inside]


class StandardLibraryIsNeverRewritten(unittest.TestCase):
    def test_every_stdlib_file_of_every_interpreter_comes_back_unchanged(self):
        started = time.time()
        seen = set()
        checked = 0
        dirs = stdlib_dirs()
        for root in dirs:
            for path in python_files(root):
                source = read_source(path)
                if source is None:
                    continue
                digest = hashlib.sha1(source.encode("utf-8", "surrogatepass")).digest()
                if digest in seen:
                    continue
                seen.add(digest)
                checked += 1
                # The full transform returns the very same object...
                self.assertIs(transform(source), source, path)
                # ...and the scanner alone (no compile safety net) finds nothing where a magic could be.
                if _MAYBE_MAGIC.search(source):
                    self.assertEqual(find_magics(source), [], path)
        elapsed = time.time() - started
        if os.environ.get("EVALKIT_TEST_VERBOSE") == "1":
            sys.stderr.write("\n  stdlib property: %d distinct files from %d Lib dirs in %.1fs\n" % (checked, len(dirs), elapsed))
        self.assertGreater(checked, 1000)

    def test_the_scanner_agrees_with_tokenize_on_logical_line_starts(self):
        root = sysconfig.get_paths()["stdlib"]
        paths = sorted(python_files(root))
        # About 200 files plus the ones that stress the tokenizer most keeps this under a few seconds (Debian's
        # stdlib has no test package, so the sample step follows the size of the library).
        tricky = [p for p in paths if os.path.basename(p) in ("test_fstring.py", "test_grammar.py", "test_tokenize.py")]
        step = max(1, len(paths) // 200)
        compared = 0
        for path in sorted(set(paths[::step] + tricky)):
            source = read_source(path)
            if source is None:
                continue
            try:
                expected = tokenize_starts(source)
            except (tokenize.TokenError, SyntaxError, IndentationError):
                continue
            self.assertEqual(logical_line_starts(source), expected, path)
            compared += 1
        self.assertGreater(compared, 100)


VALID = [
    # the reference implementation's failure cases
    "x = (a\n     != b)\n",
    "x = (a\n  %b)\n",
    "x = [1,\n%2]\n",
    "y = {\n  'a': 1,\n  !=\n}\n",
    's = """\n%pip install nothing\n!rm -rf /\nobj?\n"""\n',
    "s = '''\n%%bash\n'''\n",
    "d = {\n    'k': 'v',\n    'w': ('x'\n          % 3),\n}\n",
    "@decorator\ndef f():\n    return 1 % 2\n",
    "a = b % c\n",
    "a = b % (c,\n         d)\n",
    "msg = 'hello!'\nmsg2 = \"what?\"\n",
    "f'{x!r}'\nf'{x!=y}'\nf\"{d['k']:>{width}}\"\n",
    "f'''\n{x\n}\n%notmagic\n'''\n",
    "x = 1 + \\\n    2\n",
    "x = a \\\n    % b\n",
    "if x:\n    pass  # really?\n",
    "print('a' if b else 'c?')\n",
    "r'\\'\n!nope'\n" if False else "r'\\''\nx = 1\n",
    "rb'''%x'''\n",
    "x = fr'\\{{%s}}'\n",
    "x = '\\N{BULLET} {y}'\n",
    "async def f():\n    await g()\n",
    "lambda: (yield)\n",
    "t = (\n    # comment ending in a question?\n    1,\n)\n",
]


class ValidPythonIsUntouched(unittest.TestCase):
    def test_tricky_valid_sources_are_returned_unchanged(self):
        for source in VALID:
            with self.subTest(source=source):
                self.assertEqual(find_magics(source), [])
                self.assertIs(transform(source), source)

    def test_lines_inside_brackets_and_strings_are_not_logical_starts(self):
        self.assertEqual(logical_line_starts("x = (a\n  %b)\n!ls\n"), [0, 2])
        self.assertEqual(logical_line_starts('s = """\n!a\n"""\n!b\n'), [0, 3])
        self.assertEqual(logical_line_starts("x = 1 + \\\n  2\ny\n"), [0, 2])

    def test_a_nested_fstring_with_the_same_quotes_does_not_end_early(self):
        source = 'x = f"{d["k"]}"\n!echo hi\n'
        self.assertEqual(logical_line_starts(source), [0, 1])


class MagicsAreRewritten(unittest.TestCase):
    def check(self, source, expected):
        self.assertEqual(transform(source), expected)

    def test_shell_escape(self):
        self.check("!ls -la\n", "%s.system('ls -la')\n" % S)

    def test_shell_escape_capture_and_sx(self):
        self.check("files = !ls *.py\n", "files = %s.getoutput('ls *.py')\n" % S)
        self.check("!!ls\n", "%s.getoutput('ls')\n" % S)
        self.check("a, b = !echo 1 2\n", "a, b = %s.getoutput('echo 1 2')\n" % S)

    def test_line_magic_and_its_assignment_form(self):
        self.check("%pip install foo\n", "%s.line('pip', 'install foo')\n" % M)
        self.check("here = %pwd\n", "here = %s.line('pwd', '')\n" % M)
        self.check("obj.attr = %env HOME\n", "obj.attr = %s.line('env', 'HOME')\n" % M)

    def test_magics_inside_blocks_keep_their_indentation(self):
        self.check("for f in x:\n    !echo $f\n", "for f in x:\n    %s.system('echo $f')\n" % S)
        self.check("if y:\n    %cd /tmp\n", "if y:\n    %s.line('cd', '/tmp')\n" % M)

    def test_magic_after_a_bracketed_statement_is_found(self):
        self.check("x = (a\n  %b)\n!echo hi\n", "x = (a\n  %%b)\n%s.system('echo hi')\n" % S)

    def test_magic_after_a_triple_quoted_string_is_found(self):
        self.check('s = """\n%x\n"""\n%pwd\n', 's = """\n%%x\n"""\n%s.line(\'pwd\', \'\')\n' % M)

    def test_cell_magic_takes_the_whole_cell(self):
        self.check("%%bash\necho hi\n", "%s.cell('bash', '', 'echo hi\\n', 1)\n" % M)
        self.check("\n%%capture out\nprint(1)", "%s.cell('capture', 'out', 'print(1)', 2)\n" % M)
        self.check("%%writefile -a f.txt\n!not a shell\n", "%s.cell('writefile', '-a f.txt', '!not a shell\\n', 1)\n" % M)

    def test_cell_magic_below_the_first_line_is_an_error_call(self):
        self.check("x = 1\n%%bash\n", "x = 1\n%s.misplaced_cell('bash')\n" % M)

    def test_help_syntax(self):
        self.check("os.path?\n", "%s.pinfo('os.path', 1)\n" % M)
        self.check("os.path.join??\n", "%s.pinfo('os.path.join', 2)\n" % M)
        self.check("?len\n", "%s.pinfo('len', 1)\n" % M)
        self.check("%timeit?\n", "%s.magic_help('timeit')\n" % M)

    def test_backslash_continued_magic_is_joined_and_line_numbers_kept(self):
        self.check("%pip install a \\\n    b\nx = 1\n", "%s.line('pip', 'install a b')\n\nx = 1\n" % M)

    def test_crlf_line_endings_are_kept(self):
        self.check("!ls\r\nx = 1\r\n", "%s.system('ls')\r\nx = 1\r\n" % S)

    def test_quotes_in_shell_text_do_not_confuse_the_rest(self):
        self.check("!echo it's\nx = 'a'\n!echo b\n", "%s.system(\"echo it's\")\nx = 'a'\n%s.system('echo b')\n" % (S, S))

    def test_rewritten_sources_compile(self):
        for source in ["!ls\n", "x = %pwd\n", "%%bash\nif [ 1 ]; then echo '\"'; fi\n", "y = !echo '''\n"]:
            compile(transform(source), "<t>", "exec")


if __name__ == "__main__":
    unittest.main()
