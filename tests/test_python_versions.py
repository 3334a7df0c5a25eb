"""Outputs that depend on the running Python follow it: the catalogue and the corpus hold what
PyTorch prints under each Python (``torch_output_python``, chosen by ``verify.for_this_python``),
captured under Python 3.11 with Python's own reprs printing as the newer Python's
(``reference/python_reprs.py``), which is checked here against the real reprs of Python 3.12
and 3.13 when the suite runs under them.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import pytest

from scalargrad import verify

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "reference"))
try:
    import python_reprs
    import run_with_torch
finally:
    sys.path.remove(str(REPO / "reference"))

CATALOGUES = sorted(REPO.glob("reference/*/examples.json")) + [REPO / "reference/corpus/programs/examples.json"]


def entries():
    for path in CATALOGUES:
        for e in json.loads(path.read_text(encoding="utf-8")):
            yield path.parent, e


class Sub(collections.OrderedDict):
    pass


def ordered_dicts(cls):
    """OrderedDicts whose repr 3.12 changed: plain, nested, reordered, recursive, a subclass."""
    plain = cls([("a", 1), ("b", [2.5, "x"])])
    moved = cls(a=1, b=2, c=3)
    moved.move_to_end("a")
    del moved["b"]
    moved["b"] = 4
    recursive = cls(x=1)
    recursive["self"] = recursive
    sub = type("Sub", (cls,), {})([("k", (1, 2))])
    return [cls(), plain, cls(outer=cls(inner=cls())), moved, recursive, sub, [cls(z=0), {"d": cls(q=None)}]]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="compares with Python 3.12's own OrderedDict repr")
def test_the_emulated_ordered_dict_repr_is_the_running_pythons():
    assert [repr(x) for x in ordered_dicts(python_reprs.OrderedDict312)] == \
        [repr(x) for x in ordered_dicts(collections.OrderedDict)]


def test_the_emulated_ordered_dict_repr_is_pythons_3_12_form():
    # CPython 3.12's odict_repr: "OrderedDict()" when empty, else the type's name around the repr
    # of a dict of the items in order; "..." for a recursive reference
    got = [repr(x) for x in ordered_dicts(python_reprs.OrderedDict312)]
    assert got == ["OrderedDict()", "OrderedDict({'a': 1, 'b': [2.5, 'x']})",
                   "OrderedDict({'outer': OrderedDict({'inner': OrderedDict()})})",
                   "OrderedDict({'c': 3, 'a': 1, 'b': 4})", "OrderedDict({'x': 1, 'self': ...})",
                   "Sub({'k': (1, 2)})", "[OrderedDict({'z': 0}), {'d': OrderedDict({'q': None})}]"]


def test_every_python_variant_is_labelled_and_differs_from_the_base_capture():
    found = 0
    for _, e in entries():
        for v in e.get("torch_output_python", []):
            found += 1
            assert v["python"] == "3.12" and "OrderedDict printing as Python 3.12's" in v["captured"], e["id"]
            assert (v["torch_output"], v["torch_stderr"]) != (e["torch_output"], e["torch_stderr"]), e["id"]
    assert found >= 4  # the three buffer examples of 003 and corpus 033 print a state_dict


def test_every_output_that_prints_a_filled_ordered_dict_has_a_3_12_capture():
    for _, e in entries():
        if "OrderedDict([" in e["torch_output"] + e["torch_stderr"]:
            (v,) = e["torch_output_python"]
            assert "OrderedDict([" not in v["torch_output"] and "OrderedDict({" in v["torch_output"], e["id"]


@pytest.mark.parametrize("version, chosen", [((3, 10), "base"), ((3, 11), "base"), ((3, 12), "3.12"),
                                             ((3, 13), "3.12"), ((4, 0), "3.12")])
def test_verify_reads_the_capture_for_the_running_python(version, chosen):
    entry = {"torch_output": "base", "torch_stderr": "", "torch_output_python": [
        {"python": "3.12", "captured": "...", "torch_output": "3.12", "torch_stderr": ""}]}
    assert verify.for_this_python(entry, version)["torch_output"] == chosen
    (ex,) = [e for e in verify.load_catalogue(str(REPO / "reference")) if e.id == "buffer_code_1"]
    assert ("OrderedDict({" in ex.torch_output) == (sys.version_info >= (3, 12))


@pytest.mark.slow  # runs the program under Python 3.12 with PyTorch in a child interpreter
@pytest.mark.live_torch
@pytest.mark.parametrize("document, example", [("003_abae214ff6de8937", "buffer_code_2"),
                                               ("corpus/programs", "033_best_model_deepcopy")])
def test_the_3_12_capture_is_what_pytorch_prints_with_3_12s_repr(document, example, torch_ref):
    path = REPO / "reference" / document
    entry = next(e for e in json.loads((path / "examples.json").read_text(encoding="utf-8")) if e["id"] == example)
    (variant,) = entry["torch_output_python"]
    out, err, ok = run_with_torch.run(str(path / entry["program"]), python=(3, 12))
    assert ok and (out, err) == (variant["torch_output"], variant["torch_stderr"])
