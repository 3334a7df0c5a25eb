"""The engines the benchmark compares, behind one small adapter each.

Every workload is written once with Python operators and ``.relu()``, which all peers
support; an adapter only says how to make a leaf or a constant, run backward, read a grad
and take an SGD step the way that engine's users do. Engines load lazily, so a child
process measuring one peer's memory imports nothing else.
"""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["Peer", "PeerUnavailable", "ALL_PEERS", "make_peer"]

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class PeerUnavailable(Exception):
    """The peer's engine is not installed."""


class Peer:
    """One engine. ``name`` is the table label; ``float_dtype`` what its numbers are."""

    name = ""
    float_dtype = "float64"
    # True when the engine, as shipped, backpropagates through graphs of any depth
    any_depth = True

    def load(self) -> None:
        """Import the engine (raise PeerUnavailable if it is missing)."""

    def leaf(self, x: float):
        """A leaf that requires grad."""
        raise NotImplementedError

    def const(self, x: float):
        """An input that needs no grad (the moons coordinates)."""
        raise NotImplementedError

    def backward(self, y) -> None:
        y.backward()

    def value(self, v) -> float:
        return float(v.data)

    def grad(self, p) -> float | None:
        g = p.grad
        return None if g is None else float(g)

    def zero_grad(self, params) -> None:
        for p in params:
            p.grad = None

    def sgd(self, params, lr: float) -> None:
        for p in params:
            p.data -= lr * p.grad

    def no_grad(self):
        return contextlib.nullcontext()

    def sgd_optimizer(self, params):
        """The engine's own ``torch.optim.SGD`` over ``params``, or None if it has none."""
        return None

    def mlp(self, layout):
        """micrograd's MLP with the given weights (see workloads.mlp_layout)."""
        from workloads import ScalarMLP

        return ScalarMLP([[([self.leaf(w) for w in ws], self.leaf(b)) for ws, b in layer] for layer in layout])


class ScalargradPeer(Peer):
    """scalargrad, in float32 (its default, PyTorch's) or float64."""

    def __init__(self, dtype_name: str) -> None:
        self.float_dtype = dtype_name
        self.name = "scalargrad-f32" if dtype_name == "float32" else "scalargrad-f64"

    def load(self) -> None:
        try:
            import scalargrad
        except ImportError:
            # run from a source tree without `pip install -e .`
            sys.path.insert(0, _REPO)
            try:
                import scalargrad
            except ImportError as e:
                raise PeerUnavailable(str(e)) from e
        self.sg = scalargrad
        self.dtype = getattr(scalargrad, self.float_dtype)

    def leaf(self, x: float):
        return self.sg.tensor(x, dtype=self.dtype, requires_grad=True)

    def const(self, x: float):
        return self.sg.tensor(x, dtype=self.dtype)

    def value(self, v) -> float:
        return v.item()

    def no_grad(self):
        return self.sg.no_grad()

    def sgd(self, params, lr: float) -> None:
        # PyTorch's idiom for a hand-written SGD step
        with self.sg.no_grad():
            for p in params:
                p -= lr * p.grad

    def sgd_optimizer(self, params):
        return self.sg.optim.SGD(params, lr=1.0)


class TorchPeer(Peer):
    """PyTorch on 0-dim float32 tensors (its default dtype), one thread."""

    name = "torch"
    float_dtype = "float32"

    def load(self) -> None:
        try:
            import torch
        except ImportError as e:
            raise PeerUnavailable(str(e)) from e
        torch.set_num_threads(1)
        self.torch = torch

    def leaf(self, x: float):
        return self.torch.tensor(x, requires_grad=True)

    def const(self, x: float):
        return self.torch.tensor(x)

    def value(self, v) -> float:
        return v.item()

    def no_grad(self):
        return self.torch.no_grad()

    def sgd(self, params, lr: float) -> None:
        with self.torch.no_grad():
            for p in params:
                p -= lr * p.grad

    def sgd_optimizer(self, params):
        return self.torch.optim.SGD(params, lr=1.0)


class MicrogradPeer(Peer):
    """Karpathy's micrograd 0.1.0, from PyPI (``pip install micrograd==0.1.0``).

    Its backward is a recursive topological sort, so as shipped it raises RecursionError on
    graphs deeper than about Python's recursion limit (1000). ``recursion_limit``, when set,
    is installed around backward so the timing workloads can run at all; the depth probe
    leaves it unset.
    """

    name = "micrograd"
    any_depth = False
    recursion_limit: int | None = None

    def load(self) -> None:
        try:
            from micrograd import engine, nn
        except ImportError as e:
            raise PeerUnavailable(str(e)) from e
        self.Value = engine.Value
        self.nn = nn

    def leaf(self, x: float):
        return self.Value(x)

    const = leaf

    def grad(self, p) -> float | None:
        return float(p.grad)

    def zero_grad(self, params) -> None:
        for p in params:
            p.grad = 0

    def backward(self, y) -> None:
        if self.recursion_limit is None:
            y.backward()
            return
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, self.recursion_limit))
        try:
            y.backward()
        finally:
            sys.setrecursionlimit(old)

    def mlp(self, layout):
        # micrograd's own nn.MLP, its random initial weights overwritten with the layout's
        nin = len(layout[0][0][0])
        model = self.nn.MLP(nin, [len(layer) for layer in layout])
        for layer, ours in zip(model.layers, layout):
            for neuron, (ws, b) in zip(layer.neurons, ours):
                for p, w in zip(neuron.w, ws):
                    p.data = w
                neuron.b.data = b
        return model


class LeanPeer(Peer):
    """bench/lean_reference.py: the lean pure-Python yardstick (float64)."""

    name = "lean-ref"

    def load(self) -> None:
        from lean_reference import Node

        self.Node = Node

    def leaf(self, x: float):
        return self.Node(x)

    const = leaf

    def grad(self, p) -> float | None:
        return p.grad

    def zero_grad(self, params) -> None:
        for p in params:
            p.grad = 0.0


ALL_PEERS = ("scalargrad-f32", "scalargrad-f64", "micrograd", "torch", "lean-ref")


def make_peer(name: str) -> Peer:
    """A loaded peer by table name (PeerUnavailable if its engine is missing)."""
    makers = {
        "scalargrad-f32": lambda: ScalargradPeer("float32"),
        "scalargrad-f64": lambda: ScalargradPeer("float64"),
        "micrograd": MicrogradPeer,
        "torch": TorchPeer,
        "lean-ref": LeanPeer,
    }
    if name not in makers:
        raise SystemExit(f"unknown peer {name!r}; choose from {', '.join(ALL_PEERS)}")
    peer = makers[name]()
    peer.load()
    return peer
