#!/usr/bin/env python3
"""Run PyTorch's own tests on scalargrad (issue 22): which of them pass.

PyTorch's test files are never committed here. They are read at run time from a source
directory outside git (``--source``, default ``/work/pytorch-tests``) that holds them under their
paths in PyTorch's repository (``test/nn/test_module_hooks.py``) beside ``SOURCES.json``, which
records for each file where it came from (repository, commit, path), how much of it is there
(the whole file, or the named excerpt) and its sha256, checked before every run. ``extract``
fills that directory from a bare git mirror of PyTorch (``git show REV:PATH``) when one can be
had; otherwise the files are copied from the stored file index and SOURCES.json says so.

Which tests count is decided by ``tools/pytorch_tests_scope.txt`` (class and name globs,
committed before any test was run; ``core`` is the issue's "in scope", ``ext`` its extension
files). Each file runs in a child interpreter twice:

* ``torch``: real PyTorch, with ``torch.testing._internal.common_utils`` and ``common_nn``
  replaced by the small shim in ``tools/pytorch_tests_shim/`` (TestCase with PyTorch's
  ``assertEqual`` tolerances, the decorators, parametrize). A selected test that real PyTorch
  does not pass under the shim is out of scope and listed as such.
* ``scalargrad``: the same, with ``torch`` resolved to scalargrad as ``scalargrad run`` resolves
  it (``scalargrad.runner.torch_alias``).

A file's top-level statements run one by one: an import that fails binds its names to
stand-ins that raise the import's error when a test uses them, so one missing name costs only
the tests that use it. Each test ends as ``pass``, ``fail`` (the assertion's first line),
``error`` (the exception), ``unsupported`` (scalargrad's Unsupported, naming the feature),
``skip``, ``shim`` (the test needs something the shim lacks) or ``timeout``.

    python tools/pytorch_tests.py list                         # the selection, per file
    python tools/pytorch_tests.py run --report R.md --json R.json [-k TEXT] [--backend ...]
    python tools/pytorch_tests.py extract --mirror GITDIR --rev REV   # fill --source from a mirror
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import types
import unittest
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, "pytorch_tests_shim")
SCOPE = os.path.join(HERE, "pytorch_tests_scope.txt")
DEFAULT_SOURCE = "/work/pytorch-tests"
FILES = ["test/nn/test_module_hooks.py", "test/test_autograd.py", "test/test_nn.py",
         "test/nn/test_load_state_dict.py", "test/autograd/test_functional.py", "test/autograd/test_inference_mode.py",
         "test/optim/test_lrscheduler.py", "test/nn/test_packed_sequence.py", "test/nn/test_init.py"]
TEST_TIMEOUT = 120


# ---------------------------------------------------------------- the scope rules

def read_rules(path: str = SCOPE) -> tuple[list, list]:
    """(rules, exclusions): each rule (group, path glob, class glob, [name globs])."""
    rules, excludes = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            group, path_glob, class_glob, *names = line
            (excludes if group == "-" else rules).append((group, path_glob, class_glob, names))
    return rules, excludes


def group_of(rules, excludes, path: str, cls: str, name: str) -> str | None:
    """The group of the first rule selecting the test, None if none does or an exclusion hits."""
    def hit(rule):
        _, p, c, names = rule
        return fnmatch.fnmatchcase(path, p) and fnmatch.fnmatchcase(cls, c) and \
            any(fnmatch.fnmatchcase(name, n) for n in names)
    if any(hit(r) for r in excludes):
        return None
    return next((r[0] for r in rules if hit(r)), None)


# ---------------------------------------------------------------- sources

def load_sources(source: str) -> dict:
    with open(os.path.join(source, "SOURCES.json"), encoding="utf-8") as f:
        sources = json.load(f)
    for path, meta in sources.items():
        with open(os.path.join(source, "src", path), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if digest != meta["sha256"]:
            raise SystemExit(f"{path}: sha256 {digest} is not SOURCES.json's {meta['sha256']}")
    return sources


def extract(args) -> None:
    """Copy FILES at REV out of a bare mirror into --source and record them in SOURCES.json."""
    sources_path = os.path.join(args.source, "SOURCES.json")
    sources = json.load(open(sources_path)) if os.path.exists(sources_path) else {}
    commit = subprocess.run(["git", f"--git-dir={args.mirror}", "rev-parse", args.rev + "^{commit}"],
                            capture_output=True, text=True, check=True).stdout.strip()
    for path in FILES:
        got = subprocess.run(["git", f"--git-dir={args.mirror}", "show", f"{commit}:{path}"], capture_output=True)
        if got.returncode:
            print(f"{path}: not at {commit}")
            continue
        out = os.path.join(args.source, "src", path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(got.stdout)
        sources[path] = {"repo": "pytorch/pytorch", "commit": commit, "rev": args.rev, "extent": "whole file",
                         "via": "git show from a mirror", "sha256": hashlib.sha256(got.stdout).hexdigest()}
    with open(sources_path, "w") as f:
        json.dump(sources, f, indent=1)


# ---------------------------------------------------------------- the child: one file, one backend

class _ImportFailed:
    """The names of a top-level import that failed: using one raises the import's error."""

    def __init__(self, name: str, error: BaseException) -> None:
        self._name, self._error = name, error

    def __bool__(self) -> bool:
        return False

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise self._error

    def __mro_entries__(self, bases):  # ``class F(InplaceFunction)``: the import's error
        raise self._error

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and getattr(args[0], "__name__", "").startswith("test"):
            error = self._error

            def failed(*a, **k):
                raise error
            failed.__name__ = args[0].__name__
            return failed
        raise self._error


class _ShimFinder:
    """Serves ``torch.testing._internal`` and below from tools/pytorch_tests_shim (a module the
    shim does not have answers every name with a stand-in)."""

    PREFIX = "torch.testing._internal"

    def find_spec(self, fullname, path=None, target=None):
        import importlib.util
        if fullname != self.PREFIX and not fullname.startswith(self.PREFIX + "."):
            return None
        last = fullname.rsplit(".", 1)[-1]
        file = os.path.join(SHIM, last + ".py")
        if fullname == self.PREFIX:
            return importlib.util.spec_from_loader(fullname, _EmptyPackage())
        if os.path.exists(file):
            return importlib.util.spec_from_file_location(fullname, file)
        return importlib.util.spec_from_loader(fullname, _StandInModule())


class _EmptyPackage:
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__path__ = []


class _StandInModule:
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        def __getattr__(name, _module=module.__name__):
            if name.startswith("__"):
                raise AttributeError(name)
            from torch.testing._internal.common_utils import _StandIn
            return _StandIn(f"{_module}.{name}")
        module.__getattr__ = __getattr__


def _exec_tolerant(source: str, filename: str, namespace: dict) -> list[str]:
    """Run a file's top-level statements one by one; returns the errors of those that failed."""
    errors = []
    for stmt in ast.parse(source, filename).body:
        code = compile(ast.Module(body=[stmt], type_ignores=[]), filename, "exec")
        try:
            exec(code, namespace)
        except Exception as e:  # a test file's own top-level error is a result
            errors.append(f"line {stmt.lineno}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            if isinstance(stmt, ast.ClassDef) and not stmt.decorator_list:
                errors += _exec_class_tolerant(stmt, filename, namespace)
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:  # each name on its own: only the missing ones fail
                    name = alias.asname or alias.name.split(".")[0]
                    one = ast.ImportFrom(stmt.module, [alias], stmt.level) if isinstance(stmt, ast.ImportFrom) \
                        else ast.Import([alias])
                    try:
                        exec(compile(ast.fix_missing_locations(ast.Module([one], [])), filename, "exec"), namespace)
                    except Exception as e1:  # the name's own error, raised when a test uses it
                        namespace.setdefault(name, _ImportFailed(name, e1))
    return errors


def _exec_class_tolerant(stmt: ast.ClassDef, filename: str, namespace: dict) -> list[str]:
    """A class whose body failed (a decorator's argument names a missing feature): its body
    statements run one by one, as Python runs a class body, and a method whose definition
    failed becomes a test that raises that error; the class is then built from the rest."""
    errors = []
    body: dict = {"__module__": namespace.get("__name__"), "__qualname__": stmt.name}
    for item in stmt.body:
        code = compile(ast.Module(body=[item], type_ignores=[]), filename, "exec")
        try:
            exec(code, namespace, body)
        except Exception as e:  # this method's definition failed: running it raises the same error
            errors.append(f"line {item.lineno}: {stmt.name} body: {type(e).__name__}: {str(e).splitlines()[0]}")
            if isinstance(item, ast.FunctionDef):
                body[item.name] = _ImportFailed(item.name, e)(_named(item.name))
    bases = tuple(eval(compile(ast.Expression(b), filename, "eval"), namespace) for b in stmt.bases)
    namespace[stmt.name] = type(stmt.name, bases, body)
    errors.append(f"line {stmt.lineno}: class {stmt.name} built from its body statement by statement")
    return errors


def _named(name: str):
    def fn(*args, **kwargs):
        return None
    fn.__name__ = name
    return fn


class _Recorder(unittest.TestResult):
    def __init__(self) -> None:
        super().__init__()
        self.outcome: tuple[str, BaseException | None, str] = ("pass", None, "")

    def _set(self, kind, err):
        exc = err[1]
        text = "".join(traceback.format_exception_only(err[0], exc)).strip()
        self.outcome = (kind, exc, text)

    def addError(self, test, err):
        self._set("error", err)

    def addFailure(self, test, err):
        self._set("fail", err)

    def addSkip(self, test, reason):
        self.outcome = ("skip", None, reason)

    def addExpectedFailure(self, test, err):  # an @expectedFailure test that fails: the suite passes
        self.outcome = ("pass", None, "expected failure")

    def addUnexpectedSuccess(self, test):
        self.outcome = ("fail", None, "unexpected success of an expectedFailure test")

    def addSubTest(self, test, subtest, err):
        if err is not None and self.outcome[0] == "pass":
            self._set("fail" if issubclass(err[0], test.failureException) else "error", err)


def _classify(kind: str, exc: BaseException | None, text: str, unsupported_type) -> tuple[str, str]:
    if kind == "error" and exc is not None:
        if unsupported_type is not None and isinstance(exc, unsupported_type):
            return "unsupported", text
        if type(exc).__name__ == "ShimMissing":
            return "shim", text
        if isinstance(exc, TimeoutError) and "harness" in str(exc):
            return "timeout", text
    return kind, text


def _alarm(signum, frame):
    raise TimeoutError(f"the harness's {TEST_TIMEOUT} s limit for one test")


def child(path: str, backend: str, source: str, only: list[str] | None, out: str, collect: bool = False) -> None:
    sys.path.insert(0, HERE)
    if backend == "scalargrad":
        from scalargrad._base.errors import Unsupported
        from scalargrad.runner import torch_alias
        ctx = torch_alias()
    else:
        import contextlib
        Unsupported = None
        ctx = contextlib.nullcontext()
    rules, excludes = read_rules()
    results, errors = [], []
    with ctx:
        sys.meta_path.insert(0, _ShimFinder())
        for name in [m for m in sys.modules if m.startswith(_ShimFinder.PREFIX)]:
            del sys.modules[name]
        with open(os.path.join(source, "src", path), encoding="utf-8") as f:
            text = f.read()
        module = types.ModuleType("pytorch_test_" + os.path.basename(path)[:-3])
        module.__file__ = path
        sys.modules[module.__name__] = module  # so that pickle finds the file's functions
        namespace = module.__dict__
        errors = _exec_tolerant(text, path, namespace)
        signal.signal(signal.SIGALRM, _alarm)
        for cls in [v for v in namespace.values() if isinstance(v, type) and issubclass(v, unittest.TestCase)]:
            for name in sorted(n for n in dir(cls) if n.startswith("test") and callable(getattr(cls, n, None))):
                group = group_of(rules, excludes, path, cls.__name__, name)
                key = f"{cls.__name__}.{name}"
                if group is None or (only is not None and key not in only):
                    continue
                if collect:
                    results.append({"file": path, "class": cls.__name__, "test": name, "group": group})
                    continue
                result = _Recorder()
                start = time.time()
                signal.alarm(TEST_TIMEOUT)
                try:
                    cls(name).run(result)
                finally:
                    signal.alarm(0)
                kind, text = _classify(*result.outcome, Unsupported)
                results.append({"file": path, "class": cls.__name__, "test": name, "group": group,
                                "outcome": kind, "detail": text[:2000], "seconds": round(time.time() - start, 2)})
    with open(out, "w") as f:
        json.dump({"file": path, "backend": backend, "module_errors": errors, "results": results}, f)


# ---------------------------------------------------------------- the parent

def run_child(path: str, backend: str, args, only=None, collect=False) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        cmd = [sys.executable, os.path.abspath(__file__), "_child", path, backend, "--source", args.source,
               "--out", out]
        if only is not None:
            cmd += ["--only", json.dumps(sorted(only))]
        if collect:
            cmd.append("--collect")
        env = dict(os.environ, PYTHONHASHSEED="0")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.file_timeout, env=env,
                                  cwd=tmp)
        except subprocess.TimeoutExpired:
            return {"file": path, "backend": backend, "crashed": f"timed out after {args.file_timeout} s",
                    "results": []}
        if not os.path.exists(out):
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            return {"file": path, "backend": backend, "crashed": " | ".join(tail), "results": []}
        with open(out) as f:
            return json.load(f)


def run(args) -> dict:
    sources = load_sources(args.source)
    files = [p for p in FILES if p in sources]
    report = {"sources": sources, "files": {}}
    for path in files:
        entry = {}
        ref = run_child(path, "torch", args) if args.backend in ("both", "torch") else None
        only = None
        if ref is not None:
            if args.k:
                ref["results"] = [r for r in ref["results"] if args.k in f"{r['class']}.{r['test']}"]
            only = {f"{r['class']}.{r['test']}" for r in ref["results"]}
        entry["torch"] = ref
        if args.backend in ("both", "scalargrad"):
            entry["scalargrad"] = run_child(path, "scalargrad", args, only)
        report["files"][path] = entry
        print(f"{path}: done", file=sys.stderr)
    return report


def combine(report: dict) -> list[dict]:
    """One row per selected test: its group, PyTorch's outcome under the shim, scalargrad's."""
    rows = []
    for path, entry in report["files"].items():
        ref = {(r["class"], r["test"]): r for r in (entry.get("torch") or {}).get("results", [])}
        ours = {(r["class"], r["test"]): r for r in (entry.get("scalargrad") or {}).get("results", [])}
        for key in sorted(set(ref) | set(ours)):
            r, o = ref.get(key), ours.get(key)
            base = r or o
            rows.append({"file": path, "class": key[0], "test": key[1], "group": base["group"],
                         "torch": r["outcome"] if r else "absent", "torch_detail": r["detail"] if r else "",
                         "scalargrad": o["outcome"] if o else "not collected",
                         "detail": o["detail"] if o else (entry.get("scalargrad") or {}).get("crashed", "")})
    return rows


GROUP_TITLE = {"core": "in scope (hooks, custom Functions, Module API, load_state_dict)",
               "ext": "extension files (autograd.functional, lr_scheduler, autograd extras, TestNN's layers and "
                      "losses, packed sequences, nn.init)"}


def markdown(report: dict, rows: list[dict]) -> str:
    lines = ["# PyTorch's own tests on scalargrad", ""]
    lines.append("Sources (" + ", ".join(f"`{p}` {m['repo']}@{m['commit'][:12]} ({m['extent']})"
                                         for p, m in report["sources"].items()) + ")")
    lines.append("")
    counted = [r for r in rows if r["torch"] == "pass"]
    out_of_scope = [r for r in rows if r["torch"] != "pass"]
    for group in ("core", "ext"):
        g = [r for r in counted if r["group"] == group]
        p = sum(r["scalargrad"] == "pass" for r in g)
        pct = f"{100 * p / len(g):.1f}%" if g else "-"
        lines.append(f"- **{GROUP_TITLE[group]}**: {len(g)} tests, {p} pass ({pct})")
    g = counted
    p = sum(r["scalargrad"] == "pass" for r in g)
    lines.append(f"- **together**: {len(g)} tests, {p} pass ({100 * p / max(1, len(g)):.1f}%)")
    lines += ["", "| file | class | group | tests | pass | % | fail | error | unsupported | other |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    by = defaultdict(list)
    for r in counted:
        by[(r["file"], r["class"], r["group"])].append(r)
    for (f, c, grp), rs in sorted(by.items()):
        n = Counter(r["scalargrad"] for r in rs)
        other = len(rs) - n["pass"] - n["fail"] - n["error"] - n["unsupported"]
        lines.append(f"| {f} | {c} | {grp} | {len(rs)} | {n['pass']} | {100 * n['pass'] / len(rs):.0f}% | "
                     f"{n['fail']} | {n['error']} | {n['unsupported']} | {other} |")
    lines += ["", "## Tests that do not pass on scalargrad", ""]
    for r in counted:
        if r["scalargrad"] != "pass":
            detail = r["detail"].strip().splitlines()[0] if r["detail"].strip() else ""
            lines.append(f"- `{r['class']}.{r['test']}` ({r['group']}): **{r['scalargrad']}** {detail[:300]}")
    lines += ["", "## Selected but out of scope: real PyTorch does not pass them under the shim", ""]
    for r in out_of_scope:
        detail = r["torch_detail"].strip().splitlines()[0] if r["torch_detail"].strip() else ""
        lines.append(f"- `{r['file']}` `{r['class']}.{r['test']}`: PyTorch {r['torch']}: {detail[:200]}")
    for path, entry in report["files"].items():
        for backend in ("torch", "scalargrad"):
            e = entry.get(backend) or {}
            for err in e.get("module_errors", []):
                lines.append(f"- top level of `{path}` under {backend}: {err[:200]}")
            if e.get("crashed"):
                lines.append(f"- `{path}` under {backend} crashed: {e['crashed'][:300]}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("list", "run", "extract", "_child"):
        p = sub.add_parser(name)
        p.add_argument("--source", default=DEFAULT_SOURCE)
        if name == "run":
            p.add_argument("--backend", choices=("both", "torch", "scalargrad"), default="both")
            p.add_argument("-k", default=None, help="only tests whose Class.test contains this")
            p.add_argument("--json", default=None)
            p.add_argument("--report", default=None)
            p.add_argument("--file-timeout", type=int, default=3000)
        if name == "extract":
            p.add_argument("--mirror", required=True)
            p.add_argument("--rev", required=True)
        if name == "_child":
            p.add_argument("path")
            p.add_argument("backend")
            p.add_argument("--out", required=True)
            p.add_argument("--only", default=None)
            p.add_argument("--collect", action="store_true")
    args = ap.parse_args(argv)
    if args.cmd == "_child":
        child(args.path, args.backend, args.source, json.loads(args.only) if args.only else None, args.out,
              args.collect)
        return 0
    if args.cmd == "extract":
        extract(args)
        return 0
    if args.cmd == "list":
        args.backend, args.file_timeout, args.k = "torch", 3000, None
        sources = load_sources(args.source)
        for path in [p for p in FILES if p in sources]:
            got = run_child(path, "torch", args, collect=True)
            meta = sources[path]
            print(f"{path}  {meta['repo']}@{meta['commit']}  ({meta['extent']}): {len(got['results'])} selected")
            for r in got["results"]:
                print(f"  {r['group']:4}  {r['class']}.{r['test']}")
            for err in got.get("module_errors", []):
                print(f"  top-level error: {err}")
        return 0
    report = run(args)
    rows = combine(report)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"report": report, "rows": rows}, f, indent=1)
    text = markdown(report, rows)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
