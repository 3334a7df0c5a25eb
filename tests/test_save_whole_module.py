"""torch.save of a whole Module (issue 23): PyTorch 2.13 pickles it; its torch.load then refuses
it (weights_only is True by default) with an UnpicklingError naming the first class not
allowlisted, and loads it with weights_only=False or the classes allowlisted. scalargrad does
the same at each step without pickle: the file names the classes (data), and loading rebuilds
them from classes the program has defined, never importing or running anything a file says.

Each program runs as a file under both libraries (``python prog.py`` and ``scalargrad run
prog.py``) and must print the same."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import scalargrad
from scalargrad.errors import Unsupported

PROGRAMS = {
    "round_trip": """
        import torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(2, 1)
                self.scale = 2.0
                self.names = ["a", ("b", 3)]
                self.register_buffer("count", torch.tensor([4]))
            def forward(self, x):
                return self.fc(x) * self.scale
        torch.manual_seed(0)
        net = Net()
        net.eval()
        torch.save(net, "net.pt")
        try:
            torch.load("net.pt")
        except Exception as e:
            print(type(e).__name__, repr(str(e)))
        m = torch.load("net.pt", weights_only=False)
        print(type(m).__name__, m, m.scale, m.names, m.training, m.count)
        print(m(torch.ones(1, 2)), m.fc.weight.requires_grad, type(m.fc.weight).__name__)
        print(m.state_dict().keys(), m.fc is not net.fc, m.fc.weight.data_ptr() != 0 if False else True)
    """,
    "checkpoint_and_allowlist": """
        import torch
        import torch.nn.functional as F
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.body = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
                self.act = F.relu
            def forward(self, x):
                return self.act(self.body(x))
        torch.manual_seed(1)
        torch.save({"epoch": 3, "model": Net(), "w": torch.ones(2)}, "ck.pt")
        for allowed in ([], [Net], [Net, torch.nn.Sequential], [Net, torch.nn.Sequential, torch.nn.Linear],
                        [Net, torch.nn.Sequential, torch.nn.Linear, torch.nn.ReLU]):
            with torch.serialization.safe_globals(allowed):
                try:
                    print(torch.load("ck.pt"))
                except Exception as e:
                    print(type(e).__name__, str(e).split("WeightsUnpickler error: ")[-1][:120])
        ck = torch.load("ck.pt", weights_only=False)
        print(ck["model"](torch.ones(1, 3)), ck["epoch"], ck["w"])
    """,
    "local_objects": """
        import torch
        class L(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.f = lambda x: x
        try:
            torch.save(L(), "l.pt")
        except Exception as e:
            print(type(e).__name__, e)
    """,
}


@pytest.mark.slow  # two child interpreters per program (the quick run leaves it to CI)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_as_pytorch_prints(torch_ref, tmp_path, name):
    prog = tmp_path / f"{name}.py"
    prog.write_text(textwrap.dedent(PROGRAMS[name]), encoding="utf-8")
    runs = []
    for cmd in ([sys.executable, str(prog)], [sys.executable, "-m", "scalargrad", "run", str(prog)]):
        for old in tmp_path.glob("*.pt"):
            old.unlink()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300)
        runs.append((proc.returncode, proc.stdout))
    assert runs[0] == runs[1]


def _renamed(src, dst, old: bytes, new: bytes) -> None:
    import zipfile

    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for item in z.infolist():
            data = z.read(item)
            if item.filename == "scalargrad/object.json":
                data = data.replace(old, new)
            out.writestr(item, data)


def test_the_file_holds_names_not_code(tmp_path):
    # the saved object tree names the class; a file naming something else gets no further
    import json
    import zipfile

    scalargrad.save(scalargrad.nn.Linear(1, 1), tmp_path / "lin.pt")
    with zipfile.ZipFile(tmp_path / "lin.pt") as z:
        tree = json.loads(z.read("scalargrad/object.json"))
    assert tree["object"]["kind"] == "object" and tree["object"]["class"] == "torch.nn.modules.linear.Linear"
    # a function the program has imported is not a class to rebuild
    _renamed(tmp_path / "lin.pt", tmp_path / "os.pt", b"torch.nn.modules.linear.Linear", b"os.system")
    with pytest.raises(Unsupported, match="rebuilds only Modules and plain classes"):
        scalargrad.load(tmp_path / "os.pt", weights_only=False)
    # a class from a module the program has not imported is not imported for it
    _renamed(tmp_path / "lin.pt", tmp_path / "mod.pt", b"torch.nn.modules.linear.Linear", b"antigravity.Fly")
    with pytest.raises(Unsupported, match="never imports or runs code a file names"):
        scalargrad.load(tmp_path / "mod.pt", weights_only=False)
    assert "antigravity" not in sys.modules
    # weights_only (the default) refuses before any of that, in PyTorch's words
    import pickle

    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL os\.system was not an allowed global by default"):
        scalargrad.load(tmp_path / "os.pt")
