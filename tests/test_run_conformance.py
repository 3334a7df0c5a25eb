"""Every reference program, as a user's plain PyTorch tutorial, under ``scalargrad run`` and under
real PyTorch 2.13: the same stdout, the same warnings and error.

For each catalogue example the ``scalargrad`` imports of its program are turned back into the
``torch`` imports of the tutorial (``import scalargrad as torch`` -> ``import torch``,
``from scalargrad.nn.parameter import ...`` -> ``from torch.nn.parameter import ...``) in a
temporary copy. The copy runs twice, from the program's directory: ``python -m scalargrad run
copy.py`` and ``python copy.py`` with real torch. stdout must be identical up to memory addresses
(0x...); stderr is compared as ``verify.normalise_stderr`` reads it (each warning's and the final
error's ``Category: message``). The one accepted shortfall is a feature the catalogue lists under
the example's ``needs`` and scalargrad does not implement yet: then ``scalargrad run`` must exit 3
with one sentence naming that feature.

Some programs print a figure at full precision that comes from a machine-dependent kernel
(Parameter and Hook Code print ``logParam.grad.item()``, PyTorch's ``log(125)``), whose last bit
depends on the processor PyTorch runs on. Each program therefore also runs on scalargrad as
another processor would compute it (``faithfulness.another_processor(-2)`` and ``(+2)``): a line
those runs print the same is compared with PyTorch exactly; in a line they change, PyTorch's
numbers must lie between theirs.

All runs start at the first test, on a small thread pool, so the file takes about as long as the
runs themselves; each test waits for its own example's runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from scalargrad.verify import Example, lists_feature, load_catalogue, normalise_stderr, normalise_stdout

from faithfulness import printed_within

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
EXAMPLES = load_catalogue(str(REPO / "reference"))
WORKERS = 4
TIMEOUT = 300

_IMPORT = re.compile(r"^(\s*)(import|from)(\s+)scalargrad\b")
_STOPPED = re.compile(r"^scalargrad run: (?P<path>.+?), line \d+: stopped: (?P<message>.+)$")
# ``scalargrad run`` with the machine-dependent kernels moved by some ulps (see faithfulness.py)
_ON_ANOTHER_PROCESSOR = ("import sys; sys.path.insert(0, {tests!r}); import faithfulness; "
                         "faithfulness.another_processor({steps}).__enter__(); from scalargrad.cli import main; "
                         "sys.exit(main(['run', {program!r}]))")


def plain_pytorch(source: str) -> str:
    """The program as the tutorial has it: every ``scalargrad`` import made a ``torch`` import
    (line for line, so line numbers in warnings and errors stay the reference program's)."""
    out = []
    for line in source.splitlines(keepends=True):
        line = _IMPORT.sub(r"\1\2\3torch", line)
        out.append(re.sub(r"^(\s*)import torch as torch\b", r"\1import torch", line))
    return "".join(out)


def _ident(ex: Example) -> str:
    return f"{ex.document[:3]}/{ex.id}"


def _run(cmd: list[str], cwd: str, env: dict) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, -1, e.stdout or "", f"timed out after {TIMEOUT} s")


# CI's reruns under other kernel sets (.ci/run sets SCALARGRAD_RUN_CACHE for the main run and
# them) reuse the main run's scalargrad runs: only PyTorch's run depends on the kernel set, as
# scalargrad never imports torch nor reads the settings (test_kernel_record checks its sources)
_CACHE = os.environ.get("SCALARGRAD_RUN_CACHE")


def _cache_path(ex: Example, copy: Path) -> Path:
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()[:16]
    return Path(_CACHE) / f"{ex.document}-{ex.id}-{digest}.json"


def _cached(ex: Example, copy: Path) -> list[Future] | None:
    """The main run's scalargrad runs of this program, its temporary directory made this one's."""
    if not _CACHE or not _cache_path(ex, copy).exists():
        return None
    found = json.loads(_cache_path(ex, copy).read_text(encoding="utf-8"))
    futures = []
    for run in found["runs"]:
        done: Future = Future()
        out, err = (run[k].replace(found["copy"], str(copy.parent)) for k in ("stdout", "stderr"))
        done.set_result(subprocess.CompletedProcess(run["args"], run["returncode"], out, err))
        futures.append(done)
    return futures


def _store(ex: Example, copy: Path, runs: tuple[Future, ...]) -> None:
    if not _CACHE:
        return

    def write(_):
        if all(f.done() and f.exception() is None for f in runs):
            found = [{"args": f.result().args, "returncode": f.result().returncode, "stdout": f.result().stdout,
                      "stderr": f.result().stderr} for f in runs]
            os.makedirs(_CACHE, exist_ok=True)
            _cache_path(ex, copy).write_text(json.dumps({"copy": str(copy.parent), "runs": found}), encoding="utf-8")

    for f in runs:
        f.add_done_callback(write)


class Runs:
    """The scalargrad and torch runs of the examples, started at once on a thread pool."""

    def __init__(self, examples: list[Example], tmp: Path, pool: ThreadPoolExecutor) -> None:
        base = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONHASHSEED="0")
        base.pop("PYTHONWARNINGS", None)
        base.pop("PYTHONPATH", None)
        torch_env = dict(base, OMP_NUM_THREADS="1")  # one-element tensors: threads only slow the start
        sg_env = dict(base, PYTHONPATH=str(REPO))  # the programs' directories are not the repository
        self.futures: dict[str, tuple[Future, ...]] = {}
        self.copies: dict[str, Path] = {}
        for ex in examples:
            copy = tmp / ex.document / os.path.basename(ex.program)
            copy.parent.mkdir(exist_ok=True)
            copy.write_text(plain_pytorch(Path(ex.program).read_text(encoding="utf-8")), encoding="utf-8")
            cwd = os.path.dirname(ex.program)
            self.copies[ex.id] = copy
            elsewhere = [[sys.executable, "-c", _ON_ANOTHER_PROCESSOR.format(tests=str(TESTS), steps=steps,
                                                                             program=str(copy))] for steps in (-2, 2)]
            ours = [[sys.executable, "-m", "scalargrad", "run", str(copy)], *elsewhere]
            cached = _cached(ex, copy)
            sg, low, high = cached or [pool.submit(_run, cmd, cwd, sg_env) for cmd in ours]
            self.futures[_ident(ex)] = (sg, pool.submit(_run, [sys.executable, str(copy)], cwd, torch_env), low, high)
            if cached is None:
                _store(ex, copy, (sg, low, high))

    def result(self, ex: Example) -> tuple[subprocess.CompletedProcess, ...]:
        """scalargrad's run, PyTorch's, and scalargrad's as two other processors would compute."""
        return tuple(f.result() for f in self.futures[_ident(ex)])


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    pytest.importorskip("torch")
    # only the examples this session selected (-k, a single id) are run
    wanted = {item.callspec.params["example"].id for item in request.session.items
              if item.module is sys.modules[__name__] and hasattr(item, "callspec")
              and "example" in item.callspec.params}
    pool = ThreadPoolExecutor(max_workers=WORKERS)
    try:
        yield Runs([ex for ex in EXAMPLES if ex.id in wanted], tmp_path_factory.mktemp("plain"), pool)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def stopped_feature(stderr: str) -> str:
    """The feature named by ``scalargrad run``'s one-sentence stop message."""
    lines = stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, f"not one sentence:\n{stderr}"
    m = _STOPPED.match(lines[0])
    assert m, lines[0]
    message = m.group("message")
    if " is not supported" in message:
        return message.split(" is not supported")[0]
    assert "Multi-element tensors are not supported" in message, message
    return "multi-element tensors"


@pytest.mark.quick_sample  # no child process: the quick run's share of this file
def test_plain_versions_import_torch_only():
    for ex in EXAMPLES:
        source = plain_pytorch(Path(ex.program).read_text(encoding="utf-8"))
        code = [line.split("#")[0] for line in source.splitlines()]
        assert not any(re.search(r"\bscalargrad\b", c) for c in code), ex.program
        assert source.count("\n") == Path(ex.program).read_text(encoding="utf-8").count("\n")
        assert source.splitlines()[0] == "import torch", ex.program


@pytest.mark.parametrize("example", [pytest.param(ex, id=_ident(ex)) for ex in EXAMPLES])
def test_scalargrad_run_prints_what_pytorch_prints(example, runs, torch_ref):
    sg, pt, low, high = runs.result(example)
    assert pt.returncode in (0, 1), f"PyTorch run failed to start:\n{pt.stderr}"
    if sg.returncode == 3:
        feature = stopped_feature(sg.stderr)
        assert lists_feature(example.needs, feature), (
            f"scalargrad stopped on {feature!r}, which the catalogue does not list for {example.id} "
            f"(needs: {example.needs})")
        # what it printed before stopping, PyTorch printed too
        assert normalise_stdout(pt.stdout).startswith(normalise_stdout(sg.stdout))
        return
    context = f"\n--- scalargrad stderr ---\n{sg.stderr}\n--- PyTorch stderr ---\n{pt.stderr}"
    difference = printed_within(*(normalise_stdout(r.stdout) for r in (pt, sg, low, high)))
    assert difference is None, difference + context
    assert normalise_stderr(sg.stderr) == normalise_stderr(pt.stderr), context
    assert sg.returncode == pt.returncode, context
