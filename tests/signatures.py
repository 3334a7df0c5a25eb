"""Parameter names: what PyTorch 2.13 accepts for each function, method and class scalargrad
provides, and where scalargrad's own signature would refuse a call PyTorch takes.

PyTorch's signatures come from its generated type stubs (``torch/_C/_VariableFunctions.pyi``
for ``torch.*``, ``torch/_C/__init__.pyi``'s ``TensorBase`` for Tensor methods,
``torch/nn/functional.pyi``: the Python argument parser's names, every overload) and, for
what PyTorch writes in Python (``nn`` modules, optimizers, schedulers, ``torch.functional``...),
from ``inspect.signature``. scalargrad's come from ``inspect.signature``.

A difference is a keyword PyTorch accepts in some overload that scalargrad's signature does not
(``torch.matmul(input=..., other=...)`` where scalargrad names them ``a, b``), or fewer
positional places. A ``**kwargs`` of scalargrad's accepts every keyword (checked by the
function itself). ``python tests/signatures.py`` prints the table, split by where scalargrad
defines the function: the core layers (``_ops``, ``_tensor``, ``_autograd``, symbolic) or not.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import sys
from pathlib import Path

CORE = ("_ops", "_tensor", "_autograd", "symbolic", "symbolic_elements")

# the namespaces walked, and where their generated stubs are (relative to the torch package)
NAMESPACES = {
    "torch": "_C/_VariableFunctions.pyi", "torch.Tensor": "_C/__init__.pyi", "torch.nn.functional":
        "nn/functional.pyi", "torch.nn": None, "torch.nn.init": None, "torch.nn.utils": None, "torch.optim": None,
    "torch.optim.lr_scheduler": None, "torch.utils.data": None, "torch.autograd": None,
    "torch.autograd.functional": None, "torch.linalg": None, "torch.testing": None, "torch.nn.Module": None,
}
KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)

# What PyTorch's type stubs list and its CPU build refuses when called (``test_signatures.py``
# calls each one on live PyTorch): not differences. ``self=``/``mode=``/``from_=`` and Tensor
# methods' ``out=`` are names its argument parser does not take; ``out_dtype`` (and the
# positional dtype of mm/bmm) is CUDA-only, NotImplementedError on the CPU.
NOT_TAKEN = {
    "torch.Tensor.add": ["out"], "torch.Tensor.sub": ["out"], "torch.Tensor.mul": ["out"],
    "torch.Tensor.true_divide": ["out"], "torch.Tensor.floor_divide": ["out"], "torch.Tensor.requires_grad_": ["mode"],
    "torch.Tensor.uniform_": ["from_"], "torch.addmm": ["out_dtype", "self"], "torch.baddbmm": ["out_dtype", "self"],
    "torch.bmm": ["out_dtype", "<3 positional>"], "torch.mm": ["out_dtype", "<3 positional>"], "torch.addr": ["self"],
    "torch.addmv": ["self"], "torch.addbmm": ["self"],
    "torch.where": ["self"],
}
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def stub_overloads(torch_dir: Path, relpath: str, owner: str | None) -> dict:
    """{name: [[(param, kind), ...] per overload]} from a stub file (module functions, or the
    methods of class ``owner``)."""
    tree = ast.parse((torch_dir / relpath).read_text(encoding="utf-8"))
    body = tree.body
    if owner:
        body = next(n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner)
    out: dict = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = [(p.arg, inspect.Parameter.POSITIONAL_ONLY) for p in a.posonlyargs]
            params += [(p.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in a.args]
            if a.vararg:
                params.append((a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
            params += [(p.arg, inspect.Parameter.KEYWORD_ONLY) for p in a.kwonlyargs]
            if a.kwarg:
                params.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
            if owner:
                params = [p for p in params if p[0] != "self"]
            elif params and params[0][0] == "self":
                continue  # a deprecated overload (add(Tensor input, Number alpha, Tensor other)): no keywords
            out.setdefault(node.name, []).append(params)
    return out


def live_params(obj) -> list | None:
    """``[(name, kind)]`` of ``obj`` (a class: its ``__init__``), or None when Python cannot say."""
    target = obj.__init__ if isinstance(obj, type) else obj
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    params = [(p.name, p.kind) for p in sig.parameters.values()]
    if isinstance(obj, type) and params and params[0][0] == "self":
        params = params[1:]
    return params


def differences(theirs: list, ours: list) -> list:
    """What a call PyTorch takes would find missing in ``ours``: keywords, positional places."""
    if any(k is inspect.Parameter.VAR_KEYWORD for _, k in ours):
        keywords = None
    else:
        keywords = {n for n, k in ours if k in KEYWORD}
    our_positional = [n for n, k in ours if k in POSITIONAL]
    our_varargs = any(k is inspect.Parameter.VAR_POSITIONAL for _, k in ours)
    missing = set()
    fewer = 0
    for overload in theirs:
        for name, kind in overload:
            if kind in KEYWORD and keywords is not None and name not in keywords:
                missing.add(name)
        positional = [n for n, k in overload if k in POSITIONAL]
        if not our_varargs and len(positional) > len(our_positional):
            fewer = max(fewer, len(positional))
    out = sorted(missing)
    if fewer:
        out.append(f"<{fewer} positional>")
    return out


def _where(obj) -> str:
    """'core' or 'outside': the layer of the file defining ``obj`` (scalargrad's)."""
    target = obj.__init__ if isinstance(obj, type) else obj
    target = inspect.unwrap(target)
    try:
        path = Path(inspect.getfile(target))
    except TypeError:
        return "outside"
    parts = path.parts
    if "scalargrad" in parts:
        rest = parts[parts.index("scalargrad") + 1:]
        if rest and rest[0].removesuffix(".py") in CORE:
            return "core"
    return "outside"


def _live_module(torch, ns: str):
    obj = torch
    for part in ns.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def table(torch) -> dict:
    """{PyTorch name: (where, [differences])} for every name scalargrad implements whose
    signature differs from PyTorch's."""
    from scalargrad._base.pytorch_api import BY_KIND
    from scalargrad.errors import Unsupported
    from scalargrad.runner import torch_alias

    torch_dir = Path(torch.__file__).parent
    stubs = {ns: stub_overloads(torch_dir, rel, "TensorBase" if ns == "torch.Tensor" else None)
             for ns, rel in NAMESPACES.items() if rel}
    # nn.functional's builtins (linear, gelu, softplus...) are torch._C._nn's
    for name, overloads in stub_overloads(torch_dir, "_C/_nn.pyi", None).items():
        stubs["torch.nn.functional"].setdefault(name, overloads)
    result = {}
    with torch_alias():
        sg = importlib.import_module("torch")
        for ns in NAMESPACES:
            kinds = BY_KIND.get(ns, {})
            names = sorted(set(kinds.get("function", ())) | set(kinds.get("class", ())))
            if ns == "torch.Tensor":
                live_owner, our_owner = torch.Tensor, sg.Tensor
            elif ns == "torch.nn.Module":
                live_owner, our_owner = torch.nn.Module, sg.nn.Module
            else:
                live_owner = _live_module(torch, ns)
                our_owner = sys.modules.get(ns) or importlib.import_module(ns)
            for name in names:
                if name.startswith("_"):
                    continue
                try:
                    ours = getattr(our_owner, name)
                except (Unsupported, AttributeError):
                    continue
                doc = getattr(ours, "__doc__", "") or ""
                if "not implemented by scalargrad" in doc or not callable(ours):
                    continue
                if isinstance(ours, type) and ns in ("torch", "torch.Tensor"):
                    continue  # dtypes, Size, Generator...: classes of their own kind
                our_params = live_params(ours)
                if our_params is None:
                    continue
                theirs = stubs.get(ns, {}).get(name)
                if theirs is None:
                    live = getattr(live_owner, name, None)
                    lp = live_params(live) if live is not None else None
                    if lp is None:
                        continue
                    theirs = [lp]
                diff = [d for d in differences(theirs, our_params) if d not in NOT_TAKEN.get(f"{ns}.{name}", ())]
                if diff:
                    result[f"{ns}.{name}"] = (_where(ours), diff)
    return result


RECORDED = Path(__file__).resolve().parent / "signature_differences.json"


def recorded() -> dict:
    """The core layers' differences as last written (``python tests/signatures.py --write``):
    listed for the engineer who reworks those layers, checked by ``test_signatures.py``."""
    return json.loads(RECORDED.read_text(encoding="utf-8"))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import torch as _torch

    rows = table(_torch)
    for where in ("outside", "core"):
        mine = {k: v for k, v in rows.items() if v[0] == where}
        print(f"== {where} the core layers: {len(mine)}")
        for name, (_, diff) in sorted(mine.items()):
            print(f"{name}: {', '.join(diff)}")
    if "--write" in sys.argv:
        core = {k: v[1] for k, v in sorted(rows.items()) if v[0] == "core"}
        RECORDED.write_text(json.dumps(core, indent=1) + "\n", encoding="utf-8")
