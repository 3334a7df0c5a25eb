"""scalargrad's layers import only downward, and no module imports itself back through others.

Every import statement of every module counts, those inside functions included (a deferred
import is still a dependency). Layers, lowest first: ``_base`` (stdlib only), ``_ops``,
``_tensor``, ``_autograd``, the public facades (``autograd``, ``utils``, ``random``, ``cuda``,
``errors``, ``linalg``), ``nn``, ``optim``, the symbolic proofs, the package root (``scalargrad/__init__``,
the torch namespace), and the command-line application, which runs programs against that
namespace. A module may import modules of its own layer or lower ones.
"""

from __future__ import annotations

import ast
import pathlib

import scalargrad

PACKAGE = pathlib.Path(scalargrad.__file__).parent

LAYERS = [
    ("_base",),
    ("_ops",),
    ("_tensor",),
    ("_autograd",),
    ("autograd", "utils", "random", "cuda", "errors", "linalg", "backends", "version", "torch_version"),
    ("nn",),
    ("optim", "serialization"),
    ("symbolic", "symbolic_elements"),
    ("runner", "run_command", "verify", "cli", "__main__", "documents", "viz", "warm_worker", "proof_summary",
     "check_report"),
]


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[:-(node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(modules: dict) -> dict:
    """module -> the set of scalargrad modules it imports (any import statement, anywhere)."""
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        is_package = path.name == "__init__.py"
        deps = set()
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node)
                # ``from pkg import mod`` depends on the module; ``from pkg import name`` on pkg
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for t in targets:
                if t == "scalargrad" or t.startswith("scalargrad."):
                    while t and t not in modules:
                        t = t.rpartition(".")[0]
                    if t and t != name:
                        deps.add(t)
        graph[name] = deps
    return graph


_ROOT = len(LAYERS) - 1.5  # the package root: above the library, below the application


def _layer(module: str) -> float:
    parts = module.split(".")
    if len(parts) == 1:
        return _ROOT
    top = parts[1]
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS in tests/test_layers.py")


def test_every_module_is_in_a_layer_and_imports_only_downward():
    graph = _imports(_modules())
    bad = []
    for module, deps in sorted(graph.items()):
        mine = _layer(module)
        if module == "scalargrad":
            continue  # the root re-exports every layer below it
        for d in sorted(deps):
            theirs = _layer(d)
            if theirs > mine:
                what = "the package root" if theirs == _ROOT else f"layer {LAYERS[int(theirs)][0]}"
                bad.append(f"{module} (layer {LAYERS[int(mine)][0] if mine != _ROOT else 'root'}) imports {d} "
                           f"({what})")
    assert not bad, "\n".join(bad)


def test_the_base_layer_imports_only_the_standard_library():
    for module, path in _modules().items():
        if _layer(module) != 0:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for n in names:
                top = n.split(".")[0]
                assert top in _STDLIB, f"{module} imports {n}"


_STDLIB = {"__future__", "abc", "array", "builtins", "collections", "contextlib", "copy", "dataclasses", "dis",
           "fractions", "functools", "importlib", "inspect", "itertools", "math", "operator", "os", "struct", "sys",
           "threading", "types", "typing", "warnings", "weakref"}


def test_no_import_cycle_anywhere():
    graph = _imports(_modules())
    # Tarjan's strongly connected components, iteratively
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    cycles = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_checker_sees_a_deferred_import(tmp_path):
    # the check must not be blind to imports inside functions: parse one and look
    src = "def f():\n    from ..cli import main\n    return main\n"
    node = ast.parse(src).body[0].body[0]
    assert _resolve("scalargrad._tensor.tensor", False, node) == "scalargrad.cli"
