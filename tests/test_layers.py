"""scalargrad's layers import only downward, and no module imports itself back through others.

Every import statement of every module counts, those inside functions included (a deferred
import is still a dependency). Layers, lowest first: ``_base`` (stdlib only), ``_ops``,
``_tensor``, ``_autograd``, the public facades (``autograd``, ``utils``, ``random``, ``cuda``,
``errors``, ``linalg``), ``nn``, ``optim``, the symbolic proofs, the package root (``scalargrad/__init__``,
the torch namespace), and the command-line application, which runs programs against that
namespace. A module may import modules of its own layer or lower ones.

Below them, the shape of the code (issue 24's bars): no file over 800 lines, no function over
100 lines, imports inside functions only the few listed with their reasons, and no private name
(``_x``) imported from, or read on, a module of another package.
"""

from __future__ import annotations

import ast
import functools
import pathlib

import scalargrad

PACKAGE = pathlib.Path(scalargrad.__file__).parent

LAYERS = [
    ("_base",),
    ("_ops",),
    ("_tensor",),
    ("_autograd",),
    ("autograd", "utils", "random", "cuda", "errors", "linalg", "special", "backends", "version", "torch_version",
     "functional", "accelerator", "testing", "__future__", "_C", "func", "sparse", "hub", "signal"),
    ("nn", "distributions"),
    ("optim", "serialization"),
    ("symbolic",),
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


@functools.cache
def _tree(path: pathlib.Path) -> ast.Module:
    """A module's syntax tree, parsed once for all the tests of this file (which only read it)."""
    return ast.parse(path.read_text(), str(path))


def teardown_module():
    _tree.cache_clear()


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
        tree = _tree(path)
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
        tree = _tree(path)
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
           "fractions", "functools", "importlib", "inspect", "itertools", "math", "operator", "os", "re", "struct",
           "sys", "threading", "types", "typing", "warnings", "weakref"}


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


# ---------------------------------------------------------------- the size and shape of the code
# Measured on scalargrad/ as it is (issue 24's bars); each allowance below names its reason.

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 100
# files that may be longer: nn.Module mirrors PyTorch's module.py method for method
LONG_FILES = {"scalargrad.nn.modules.module"}

# imports inside functions: a deferred import is a dependency the layer test still counts, and
# costs a lookup per call; each kept one is here with its reason (at most 10)
DEFERRED_IMPORTS = {
    ("scalargrad", "__getattr__", "scalargrad.serialization"):
        "torch.save/torch.load load the serialization format on first use, not at start-up",
    ("scalargrad._base.missing_api", "pytorch_names", "scalargrad._base.pytorch_api"):
        "PyTorch's table of names (a large module) loads only when a program asks for a name scalargrad lacks",
    ("scalargrad.cli", "demo", "scalargrad"):
        "`scalargrad --help`, `--version` and `verify` (whose children import the library) start without it",
    ("scalargrad.cli", "verify_documents_cmd", "scalargrad.documents"):
        "the document readers, judges and reports load with `scalargrad verify PATH...` alone",
    ("scalargrad.run_command", "_sympy_checker", "scalargrad.symbolic"):
        "SymPy loads only under --check: a plain `scalargrad run` starts without it",
    ("scalargrad.run_command", "run", "scalargrad.viz.program_graph"):
        "the picture machinery (which imports torch.nn) loads only with `--graph`",
    ("scalargrad.documents.execute", "run_document", "scalargrad.symbolic"):
        "a document's proofs load SymPy in the forked child, where the check runs",
    ("scalargrad.warm_worker", "warm_up", "scalargrad"):
        "the warm worker's one purpose: import what the children need, in the parent, before forking",
}
MAX_DEFERRED_IMPORTS = 10


def _scalargrad_import(module: str, is_package: bool, node) -> str | None:
    """The scalargrad module an import statement names, or None for another package's."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names if a.name == "scalargrad" or a.name.startswith("scalargrad.")]
        return names[0] if names else None
    base = _resolve(module, is_package, node)
    return base if base == "scalargrad" or base.startswith("scalargrad.") else None


def _functions(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_no_file_is_over_800_lines():
    long = {m: n for m, p in _modules().items() if (n := p.read_text().count("\n")) > MAX_FILE_LINES}
    assert set(long) <= LONG_FILES, {m: n for m, n in long.items() if m not in LONG_FILES}


def test_no_function_is_over_100_lines():
    long = []
    for module, path in _modules().items():
        if module in LONG_FILES:
            continue
        for fn in _functions(_tree(path)):
            n = fn.end_lineno - fn.lineno + 1
            if n > MAX_FUNCTION_LINES:
                long.append(f"{module}.{fn.name}: {n} lines")
    assert not long, long


def _deferred_imports() -> dict:
    """(module, function, imported scalargrad module) -> line, for every import statement inside a
    function."""
    found = {}
    for module, path in _modules().items():
        tree = _tree(path)
        for fn in _functions(tree):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    target = _scalargrad_import(module, path.name == "__init__.py", node)
                    if target is not None:
                        # one import statement, named by the module it reaches (the package, for
                        # ``from pkg import name, submodule``)
                        targets = _import_targets(target, node)
                        found.setdefault((module, fn.name, min(targets, key=len)), node.lineno)
    return found


def _import_targets(base: str, node) -> list:
    if isinstance(node, ast.Import):
        return [base]
    mods = _modules()
    return sorted({f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names})


def test_imports_inside_functions_are_the_documented_few():
    found = _deferred_imports()
    unlisted = sorted(k for k in found if k not in DEFERRED_IMPORTS)
    assert not unlisted, "imports inside functions (move them to the module's top, or list them with a reason): " \
                         + "; ".join(f"{m}.{f} imports {t}" for m, f, t in unlisted)
    assert len(DEFERRED_IMPORTS) <= MAX_DEFERRED_IMPORTS
    stale = sorted(k for k in DEFERRED_IMPORTS if k not in found)
    assert not stale, f"listed deferred imports that no longer exist: {stale}"


def _package_of(module: str, modules: dict) -> str:
    return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]


def test_no_private_name_crosses_a_package():
    """``from .._tensor.surface import _where`` or ``grad_mode.state`` from another package
    reaches into a module's insides: a name another package needs is public in its module."""
    modules = _modules()
    bad = []
    for module, path in modules.items():
        tree = _tree(path)
        is_package = path.name == "__init__.py"
        mine = _package_of(module, modules)
        imported_modules = {}  # local name -> scalargrad module, for attribute access
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _scalargrad_import(module, is_package, node)
                if base is None:
                    continue
                for a in node.names:
                    full = f"{base}.{a.name}"
                    if full in modules:
                        imported_modules[a.asname or a.name] = full
                        continue
                    owner = base if base in modules else base.rpartition(".")[0]
                    if a.name.startswith("_") and not a.name.startswith("__") \
                            and _package_of(owner, modules) != mine:
                        bad.append(f"{module} imports {a.name} from {owner}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in imported_modules and node.attr.startswith("_") \
                    and not node.attr.startswith("__"):
                owner = imported_modules[node.value.id]
                if _package_of(owner, modules) != mine:
                    bad.append(f"{module} reads {owner}.{node.attr}")
    assert not bad, sorted(set(bad))


# NumPy is an optional extra (runtime dependencies: the standard library and SymPy): scalargrad
# reads arrays through their own methods and imports NumPy only where it must build one
NUMPY_IMPORTS = {
    ("scalargrad._tensor.numpy_bridge", "to_numpy"): "Tensor.numpy() (and __array__) returns a NumPy array",
}


def test_numpy_is_imported_only_where_an_array_is_built():
    found = set()
    for module, path in _modules().items():
        tree = _tree(path)
        owner = {}
        for fn in _functions(tree):  # ast.walk is breadth first: an inner function's name wins
            for node in ast.walk(fn):
                owner[node] = fn.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            if any(n.split(".")[0] == "numpy" for n in names):
                found.add((module, owner.get(node, "<module top>")))
    assert found == set(NUMPY_IMPORTS), found
