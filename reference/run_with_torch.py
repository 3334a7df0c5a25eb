#!/usr/bin/env python3
"""Run a reference program (written against ``scalargrad``) under real PyTorch.

Usage::

    python3 reference/run_with_torch.py reference/003_abae214ff6de8937/module_code_1.py

prints the program's normalised stdout on stdout and its normalised stderr
(warnings, and the last line of the traceback if it raised) on stderr; the exit
status is 0 if the program ran to the end, 1 if it raised.

How it works
------------
The program is run in a fresh child interpreter (``--child`` mode of this very
file), so every program starts from a clean state (RNG, warning registries,
imported modules).  In the child, an import alias is installed as the first
entry of ``sys.meta_path``: a finder/loader pair that resolves ``scalargrad``
to the already imported ``torch`` module and every ``scalargrad.<a>.<b>`` to
``torch.<a>.<b>`` (imported with ``importlib.import_module``), so
``sys.modules['scalargrad.nn'] is sys.modules['torch.nn']``.  No program text
is rewritten.  The program is then run with ``runpy.run_path(...,
run_name='__main__')`` with the program's directory as working directory and
at the head of ``sys.path``, i.e. as ``python3 program.py`` would run it
(default warning filters included: a ``DeprecationWarning`` attributed to the
program is shown, one attributed to a library module is not).

What goes to stderr
-------------------
* each warning that passes the warning filters, as ONE line
  ``<file>:<lineno>: <Category>: <message>`` (Python's usual format without
  the echoed source line);
* if the program raises, the last line of the traceback
  (``traceback.format_exception_only(...)[-1]``, e.g.
  ``TypeError: hook() takes 2 positional arguments but 3 were given``);
  nothing else (no ``Traceback (most recent call last):`` block).

Normalisation (applied to stdout and stderr, see ``normalise``)
----------------------------------------------------------------
1. Memory addresses: every ``0x`` followed by 6 or more hex digits becomes
   ``0xADDR`` (object reprs such as ``<function f at 0x7f3a...>``).
2. File paths: a path to a file inside the torch package becomes
   ``torch/<path inside the package>`` (e.g.
   ``torch/nn/modules/module.py:1830``); a path to the program itself or any
   other file under the program's directory becomes its base name; any other
   absolute path to a ``.py`` file becomes ``<python>/<base name>``.  Line
   numbers are kept (they are those of torch 2.13.0).
3. Line endings are ``\\n``; trailing white space at the end of the whole
   output is kept as printed (no stripping).
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys

ALIAS = "scalargrad"
TARGET = "torch"


# ---------------------------------------------------------------------------
# child side: the import alias and the run
# ---------------------------------------------------------------------------

class _AliasLoader(importlib.abc.Loader):
    """Loader that hands back the real torch module instead of a new one."""

    def __init__(self, target_name):
        self.target_name = target_name
        self._target_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target_name)
        # importlib will set module.__spec__ = spec (the alias spec) after
        # this returns; remember the real one and put it back in exec_module.
        self._target_spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        # The module is torch.<...>, already executed: only undo the __spec__
        # replacement importlib just did, so torch keeps its own identity.
        if self._target_spec is not None:
            module.__spec__ = self._target_spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``scalargrad`` / ``scalargrad.*`` to ``torch`` / ``torch.*``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        target_name = TARGET + fullname[len(ALIAS):]
        try:
            real_spec = importlib.util.find_spec(target_name)
        except (ImportError, ValueError):
            real_spec = None
        if real_spec is None:
            return None  # let the normal machinery raise ModuleNotFoundError
        is_package = real_spec.submodule_search_locations is not None
        spec = importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(target_name), is_package=is_package)
        if is_package:
            spec.submodule_search_locations = list(
                real_spec.submodule_search_locations)
        return spec


def install_alias():
    for finder in sys.meta_path:
        if isinstance(finder, _AliasFinder):
            return
    sys.meta_path.insert(0, _AliasFinder())


def _child(program, python=None):
    import runpy
    import traceback
    import warnings

    if python is not None:  # Python's own reprs as that Python prints them (python_reprs.py)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import python_reprs
        python_reprs.install(python)
        sys.path.pop(0)
    program = os.path.abspath(program)
    prog_dir = os.path.dirname(program)

    def showwarning(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write("%s:%s: %s: %s\n"
                         % (filename, lineno, category.__name__, message))
        sys.stderr.flush()

    warnings.showwarning = showwarning
    install_alias()
    os.chdir(prog_dir)
    sys.path.insert(0, prog_dir)
    sys.argv = [program]
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as exc:
        sys.stdout.flush()
        code = exc.code
        return 0 if code in (None, 0) else 1
    except BaseException as exc:  # noqa: BLE001 - we report whatever it is
        sys.stdout.flush()
        last = traceback.format_exception_only(type(exc), exc)[-1]
        sys.stderr.write(last if last.endswith("\n") else last + "\n")
        sys.stderr.flush()
        return 1
    sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------------
# parent side: spawn, capture, normalise
# ---------------------------------------------------------------------------

_ADDR = re.compile(r"0x[0-9a-fA-F]{6,}")
_PYFILE = re.compile(r"(?:[A-Za-z]:)?(?:/[^\s:'\"<>()]+)+\.py\b")


def _torch_root():
    spec = importlib.util.find_spec(TARGET)
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.realpath(list(spec.submodule_search_locations)[0])


def normalise(text, program):
    prog_dir = os.path.realpath(os.path.dirname(os.path.abspath(program)))
    torch_root = _torch_root()

    def fix_path(match):
        path = match.group(0)
        real = os.path.realpath(path)
        if torch_root and (real == torch_root or real.startswith(torch_root + os.sep)):
            return TARGET + "/" + os.path.relpath(real, torch_root).replace(os.sep, "/")
        if real.startswith(prog_dir + os.sep):
            return os.path.basename(real)
        return "<python>/" + os.path.basename(real)

    text = text.replace("\r\n", "\n")
    text = _ADDR.sub("0xADDR", text)
    text = _PYFILE.sub(fix_path, text)
    return text


def run(program, timeout=600, extra_env=None, python=None):
    """Run ``program`` under torch; return (stdout, stderr, ok), normalised.
    ``extra_env`` adds variables to the child's environment (e.g.
    ``ATEN_CPU_CAPABILITY``); ``python`` (a version such as ``(3, 12)``)
    makes Python's own reprs print as that Python's (``python_reprs``)."""
    env = dict(os.environ)
    env.update(extra_env or {})
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONWARNINGS", None)
    env.pop("PYTHONSTARTUP", None)
    python_option = [] if python is None else [
        "--python", "%d.%d" % tuple(python)]
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child",
         os.path.abspath(program)] + python_option,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        timeout=timeout)
    out = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    return normalise(out, program), normalise(err, program), proc.returncode == 0


def python_variants(program, base, extra_env=None):
    """What PyTorch prints for ``program`` under each newer Python whose own reprs change it
    (``python_reprs.CHANGES``): a list of ``{"python", "captured", "torch_output",
    "torch_stderr"}``, empty when every Python prints ``base`` (stdout, stderr)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import python_reprs
    sys.path.pop(0)
    variants = []
    for version in python_reprs.CHANGES:
        out, err, _ = run(program, extra_env=extra_env, python=version)
        if (out, err) != tuple(base):
            variants.append({"python": "%d.%d" % version, "captured": python_reprs.label(version),
                             "torch_output": out, "torch_stderr": err})
    return variants


def main(argv):
    if len(argv) == 3 and argv[1] == "--child":
        return _child(argv[2])
    if len(argv) == 5 and argv[1] == "--child" and argv[3] == "--python":
        return _child(argv[2], tuple(int(x) for x in argv[4].split(".")))
    if len(argv) != 2:
        sys.stderr.write("usage: run_with_torch.py PROGRAM.py\n")
        return 2
    out, err, ok = run(argv[1])
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    sys.stderr.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
