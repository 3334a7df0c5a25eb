"""The corpus of real-program patterns (reference/corpus/): every program run on scalargrad
against what PyTorch 2.13 printed for it.

Each program is run as ``scalargrad run --check`` runs it (``scalargrad verify --corpus --json``: a
fork of a warm worker per program, every backward proved with SymPy) and judged by ``verify.judge``: stdout
and the warnings/final error must be PyTorch's, or, for a program whose output depends on the
processor (``machine_dependent``), what PyTorch printed on one of the other kernel sets
captured by ``reference/capture_corpus.py``.

A program that does not reproduce yet is listed in ``NOT_YET`` with the precise reason: the
Unsupported message of the missing feature, or the first line that differs. The listing is
strict both ways: a listed program that reproduces fails (remove it from the list), and so does
one that fails for another reason than the one recorded.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from scalargrad import verify

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "reference" / "corpus"
PROGRAMS = CORPUS / "programs"
EXAMPLES = verify.load_catalogue(str(CORPUS))

# id -> the reason it does not reproduce yet: outcome.result, then outcome.detail (its start)
NOT_YET: dict[str, str] = {
    # missing features, named by scalargrad's Unsupported error
    # wrong behaviour or a Python error where PyTorch has the feature
}

# id -> why scalargrad's SymPy check reports a disagreement where autograd is right (strict too)
SYMPY_FALSE_ALARMS: dict[str, str] = {}

SOURCE_KINDS = ("PyTorch tutorial", "PyTorch docs", "PyTorch forums", "blog (en)", "blog (ko)", "blog (zh)",
                "blog (ja)")


@pytest.fixture(scope="module")
def outcomes() -> dict:
    # through the command, as a user runs it: its process has no other thread, so each program
    # runs in a fork of a warm worker (this one may run PyTorch's thread pool: no forks here)
    proc = subprocess.run([sys.executable, "-m", "scalargrad", "verify", "--corpus", "--json", "--jobs", "2",
                           "--reference", str(REPO / "reference")], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode in (0, 1), proc.stderr
    return {e["id"]: SimpleNamespace(**e) for e in json.loads(proc.stdout)["examples"]}


@pytest.mark.slow
@pytest.mark.no_sympy_check
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_program_reproduces_pytorch(example, outcomes):
    o = outcomes[example.id]
    if example.id in SYMPY_FALSE_ALARMS:
        assert o.sympy_ok is False, f"the SymPy check agrees now: remove {example.id} from SYMPY_FALSE_ALARMS"
    else:
        assert o.sympy_ok is not False, f"SymPy disagrees with autograd: {o.sympy}"
    got = f"{o.result}: {o.detail}" if o.detail else o.result
    if example.id in NOT_YET:
        if o.result == "reproduced":
            pytest.fail(f"{example.id} reproduces PyTorch now: remove it from NOT_YET")
        assert got.startswith(NOT_YET[example.id]), "it fails for another reason than the one recorded"
        pytest.xfail(got)
    assert o.result == "reproduced", got
    if example.id in SYMPY_FALSE_ALARMS:
        pytest.xfail(f"reproduced; the SymPy check's false alarm: {SYMPY_FALSE_ALARMS[example.id]}")


def test_catalogue_lists_every_program_with_its_source():
    entries = json.loads((PROGRAMS / "examples.json").read_text(encoding="utf-8"))
    programs = sorted(p.name for p in PROGRAMS.glob("*.py"))
    assert [e["program"] for e in entries] == programs
    assert len(programs) >= 40
    for e in entries:
        assert e["id"] == e["program"][:-3] and re.fullmatch(r"\d{3}_\w+", e["id"])
        first = (PROGRAMS / e["program"]).read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# source: {e['source']}"
        assert e["source"].startswith(SOURCE_KINDS), e["source"]
        assert e["status"] == "corpus"
        assert isinstance(e["machine_dependent"], bool)
        assert e["machine_dependent"] == bool(e.get("torch_other_cpu")), e["id"]
    # the real corpus is multilingual: Korean, Chinese and Japanese sources are among the patterns
    for lang in ("ko", "zh", "ja"):
        assert sum(e["source"].startswith(f"blog ({lang})") for e in entries) >= 3, lang


def test_not_yet_names_only_corpus_programs():
    assert set(NOT_YET) | set(SYMPY_FALSE_ALARMS) <= {e.id for e in EXAMPLES}


def test_a_machine_dependent_program_is_judged_against_every_captured_processor(tmp_path):
    # judge() accepts what PyTorch printed on any captured kernel set, and nothing else
    ex = verify.Example(document="corpus", id="p", program=str(tmp_path / "p.py"), title="p", status="corpus",
                        torch_output="loss 0.961208\n", torch_stderr="",
                        other_cpu=[("loss 0.961209\n", "")])
    rep = {"sympy": {"summary": "no backward", "ok": None}}
    assert verify.judge(ex, "loss 0.961209\n", "", rep, 0.0).result == "reproduced"
    assert verify.judge(ex, "loss 0.961208\n", "", rep, 0.0).result == "reproduced"
    o = verify.judge(ex, "loss 0.961210\n", "", rep, 0.0)
    assert (o.result, o.detail) == ("differs", "line 1: PyTorch prints 'loss 0.961208', scalargrad 'loss 0.961210'")
    # a program that stopped on an error PyTorch did not raise: the error is named
    o = verify.judge(ex, "", "Traceback (most recent call last):\n  File ...\nTypeError: f() takes 1 argument\n",
                     rep, 0.0)
    assert o.detail == "line 1: PyTorch prints 'loss 0.961208', scalargrad '<missing>'; scalargrad raised " \
                       "TypeError: f() takes 1 argument"


def test_cpp_warning_suffix_is_not_compared():
    # PyTorch's C++ warnings end with the path of a file on PyTorch's build machine
    torch_line = ("prog.py:16: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being "
                  "accessed. (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")
    ours = "prog.py:16: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."
    assert verify.normalise_stderr(torch_line) == verify.normalise_stderr(ours) == [ours.split(": ", 1)[1]]
    # a message that merely mentions the words elsewhere is kept whole
    assert verify.normalise_stderr("UserWarning: (Triggered internally at x.) then more") == [
        "UserWarning: (Triggered internally at x.) then more"]


@pytest.mark.slow  # each corpus program run under PyTorch in a child process
@pytest.mark.parametrize("program", ["011_zero_grad_patterns.py", "048_tensor_repr_dtypes.py"])
def test_capture_is_what_live_pytorch_prints(program, torch_ref):
    # the stored capture is PyTorch's, not edited: two programs re-run under the installed torch
    import sys

    sys.path.insert(0, str(REPO / "reference"))
    try:
        import run_with_torch
    finally:
        sys.path.remove(str(REPO / "reference"))
    entry = next(e for e in json.loads((PROGRAMS / "examples.json").read_text(encoding="utf-8"))
                 if e["program"] == program)
    out, err, ok = run_with_torch.run(str(PROGRAMS / program))
    assert ok and (out, err) == (entry["torch_output"], entry["torch_stderr"])


@pytest.mark.slow
def test_verify_corpus_command_prints_the_summary(tmp_path):
    # `scalargrad verify --corpus` over a corpus of three programs: one that reproduces, one
    # stopped by a missing feature its entry lists under "needs" ("not yet supported"), one
    # whose output differs (counted against the exit status)
    import json
    import shutil
    import subprocess
    import sys

    ref = tmp_path / "ref"
    document = next(p for p in sorted((REPO / "reference").iterdir()) if (p / "examples.json").is_file())
    shutil.copytree(document, ref / document.name)
    programs = ref / "corpus" / "programs"
    programs.mkdir(parents=True)
    first = next(e for e in json.loads((PROGRAMS / "examples.json").read_text()) if e["id"] == "001_polyfit_by_hand")
    shutil.copy(PROGRAMS / first["program"], programs / first["program"])
    entries = [first]
    for ident, source, output, needs in (
            ("900_needs_fft", "import torch\nprint(torch.fft.fft(torch.tensor([1.0, 2.0])))\n",
             "tensor([ 3.+0.j, -1.+0.j])\n", ["torch.fft"]),
            ("901_differs", "print(1 + 1)\n", "3\n", [])):
        (programs / f"{ident}.py").write_text(source)
        entries.append({**first, "id": ident, "program": f"{ident}.py", "torch_output": output, "needs": needs,
                        "machine_dependent": False})
    (programs / "examples.json").write_text(json.dumps(entries, indent=1))

    proc = subprocess.run([sys.executable, "-m", "scalargrad", "verify", "--corpus", "--no-check", "--jobs", "1",
                           "--reference", str(ref)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    summary = proc.stdout.strip().splitlines()[-1]
    assert summary == ("3 corpus programs: 1 reproduced exactly, 1 not yet supported, 1 differs or fails; "
                       "SymPy disagreements: 0"), proc.stdout + proc.stderr
    assert proc.returncode == 1, proc.stderr


def test_every_entry_lists_what_stops_it():
    # the catalogue's "needs" names the missing feature of every program NOT_YET lists as
    # unsupported, so that `verify --corpus` reports it as "not yet supported"
    for e in EXAMPLES:
        reason = NOT_YET.get(e.id, "")
        if reason.startswith("not supported: "):
            assert verify.lists_feature(e.needs, reason[len("not supported: "):]), e.id
