"""The runner's import graph: no cycles (function-level imports included), and the core never imports the optional parts."""

import ast
import os
import unittest

PACKAGE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "evalkit_kernel")
OPTIONAL = ("evalkit_kernel.display", "evalkit_kernel.magics", "evalkit_kernel.prelude")


def _modules():
    found = {}
    for folder, _, files in os.walk(PACKAGE_DIR):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            dotted = os.path.relpath(path, os.path.dirname(PACKAGE_DIR))[:-3].replace(os.sep, ".")
            is_package = name == "__init__.py"
            if is_package:
                dotted = dotted[: -len(".__init__")]
            found[dotted] = (path, is_package)
    return found


def _imports(dotted, path, is_package, known):
    """Every runner module `dotted` imports, wherever the import statement sits."""
    package = dotted if is_package else dotted.rpartition(".")[0]
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                candidate = source + "." + alias.name
                targets.add(candidate if candidate in known else source)
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
    # Importing a package's submodule runs the package's __init__, which is not an edge we count: only modules.
    return {target for target in targets if target in known and target != dotted}


class ImportGraphTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        known = _modules()
        self.graph = {name: _imports(name, path, is_package, known) for name, (path, is_package) in known.items()}

    def test_the_runner_has_no_import_cycle(self):
        cycles = []
        state = {}

        def visit(node, stack):
            state[node] = "open"
            stack.append(node)
            for target in sorted(self.graph[node]):
                if state.get(target) == "open":
                    cycles.append(" -> ".join(stack[stack.index(target):] + [target]))
                elif target not in state:
                    visit(target, stack)
            stack.pop()
            state[node] = "done"

        for node in sorted(self.graph):
            if node not in state:
                visit(node, [])
        self.assertEqual(cycles, [])

    def test_the_core_never_imports_an_optional_part(self):
        core = ("evalkit_kernel.core", "evalkit_kernel.capture", "evalkit_kernel.lifetime")
        offenders = sorted(
            "%s -> %s" % (name, target)
            for name, targets in self.graph.items()
            if name.startswith(core)
            for target in targets
            if target.startswith(OPTIONAL)
        )
        self.assertEqual(offenders, [])


if __name__ == "__main__":
    unittest.main()
