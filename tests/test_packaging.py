"""scalargrad as a user installs it: ``pip install .`` (a wheel, not editable) carries the reference
catalogue, and ``scalargrad verify`` runs from any directory.

The wheel is built from a copy of the repository and installed into a fresh virtual environment
that sees nothing of the repository: scalargrad comes from the wheel alone (``--no-deps``), SymPy
and mpmath from this environment's site-packages through a ``.pth`` line (which adds the
directory only, so this environment's editable install of scalargrad stays out).
"""

from __future__ import annotations

import configparser
import email
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import sympy

REPO = Path(__file__).resolve().parents[1]
# what a clean checkout does not have
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                     ".hypothesis", ".ruff_cache")


def test_setup_cfg_lists_every_package():
    # packages are listed by name, since scalargrad._reference lives outside scalargrad/ (in
    # reference/, the catalogue's source of truth): a new subpackage must be added to the list
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    listed = cfg["options"]["packages"].split()
    found = [".".join(("scalargrad",) + p.parent.relative_to(REPO / "scalargrad").parts)
             for p in (REPO / "scalargrad").rglob("__init__.py")]
    assert sorted(listed) == sorted(found + ["scalargrad._reference"])
    assert cfg["options"]["package_dir"].split() == ["scalargrad._reference", "=", "reference"]


def _builds_without_isolation() -> bool:
    """Can this environment's setuptools build the wheel itself (no download of a build backend)?"""
    try:
        import setuptools
    except ImportError:
        return False
    version = tuple(int(x) for x in setuptools.__version__.split(".")[:2])
    return version >= (70, 1) or (version >= (61, 0) and importlib.util.find_spec("wheel") is not None)


def _run(cmd: list, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONWARNINGS", "PYTHONHOME")}
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, timeout=300, **kw)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``pip wheel`` builds from a clean copy of the repository."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(REPO, src, ignore=_NOT_SOURCE)
    dist = tmp / "dist"
    offline = ["--no-build-isolation"] if _builds_without_isolation() else []  # else pip fetches setuptools
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, *offline, src])
    assert build.returncode == 0, build.stdout + build.stderr
    (built,) = dist.glob("scalargrad-*.whl")
    return built


@pytest.mark.slow
def test_the_wheel_carries_the_license_the_corpus_readme_and_the_classifiers(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (dist_info,) = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
        metadata = email.message_from_bytes(z.read(f"{dist_info}/METADATA"))
        license_text = [z.read(n).decode() for n in names if n.startswith(dist_info) and "LICENSE" in n]
    assert license_text == [(REPO / "LICENSE").read_text(encoding="utf-8")]
    assert license_text[0].startswith("MIT License") and metadata["License"] == "MIT"
    for readme in ("README.md", "corpus/README.md"):
        assert f"scalargrad/_reference/{readme}" in names
    assert "scalargrad/_reference/corpus/programs/examples.json" in names
    classifiers = metadata.get_all("Classifier")
    assert "License :: OSI Approved :: MIT License" in classifiers
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    # every minor version from python_requires' floor to the newest .ci/run tests, and no other
    floor = metadata["Requires-Python"]
    assert floor == ">=3.10"
    minors = [c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert sorted(minors) == ["3.10", "3.11", "3.12", "3.13"]
    # the optional rendering dependency is a range, not one exact release
    viz = [r for r in metadata.get_all("Requires-Dist") if r.startswith("graphviz") and 'extra == "viz"' in r]
    assert len(viz) == 1 and "==" not in viz[0].split(";")[0] and ">=" in viz[0], viz


@pytest.mark.slow
def test_verify_runs_from_an_installed_wheel(wheel, tmp_path):
    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", venv])
    assert made.returncode == 0, made.stderr
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "dependencies.pth").write_text(str(Path(sympy.__file__).resolve().parents[1]) + "\n", encoding="utf-8")
    install = _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel])
    assert install.returncode == 0, install.stdout + install.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([python, "-c", "import importlib.resources as r, scalargrad; print(scalargrad.__file__); "
                  "print(r.files('scalargrad._reference'))"], cwd=elsewhere)
    package, catalogue = map(Path, where.stdout.split())
    assert package.is_relative_to(site) and catalogue == site / "scalargrad" / "_reference", where.stdout
    assert sorted(p.name for p in catalogue.glob("*/examples.json")) == ["examples.json"] * 5

    scalargrad = python.parent / "scalargrad"  # the console script pip installed
    proc = _run([scalargrad, "verify", "-k", "module_code_1"], cwd=elsewhere)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 example from 1 document: 1 reproduced exactly, 0 not yet supported, 0 regressed" in proc.stdout
    assert "1 backward: 2 grads agree" in proc.stdout  # the SymPy check ran in the worker too
