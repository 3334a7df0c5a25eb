"""The benchmark's workloads, written once over any peer (see peers.py).

W1 chain, W2 dot product and W4 reused-node DAG are single graphs timed forward and
backward; W3 is micrograd's demo, an MLP trained on two moons. Every workload builds the
same computation, op by op, in every peer.
"""

from __future__ import annotations

import math
import random

__all__ = ["Chain", "Dot", "Dag", "GRAPH_WORKLOADS", "make_moons", "mlp_layout", "ScalarMLP",
           "svm_loss", "ops_per_step", "MOONS_SEED", "WEIGHTS_SEED"]

MOONS_SEED = 1337
WEIGHTS_SEED = 1337
F32_MAX = 3.4028234663852886e38


def _close(got, want: float, f32: bool, rel: float) -> bool:
    if got is None:
        return False
    if math.isinf(want) or (f32 and abs(want) > F32_MAX):
        return math.isinf(got)
    return math.isclose(got, want, rel_tol=rel, abs_tol=1e-300)


class Chain:
    """W1: ``y = y*1.0001; y = y + 0.5`` from one leaf; ``nodes`` ops in all."""

    key = "W1"
    title = "W1 chain"

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes

    def inputs(self, peer):
        return peer.leaf(1.0)

    def build(self, peer, x):
        y = x
        for _ in range(self.nodes // 2):
            y = y * 1.0001
            y = y + 0.5
        if self.nodes % 2:
            y = y * 1.0001
        return y

    def check(self, peer, x, y) -> dict:
        # d y / d x = 1.0001 ** (number of multiplications)
        want = 1.0001 ** ((self.nodes + 1) // 2)
        got = peer.grad(x)
        # float32 rounds 1.0001 to 1.00010001659..., a 1.7e-8 relative drift per step
        return {"grad": got, "want": want, "ok": _close(got, want, peer.float_dtype == "float32", 0.05)}


class Dot:
    """W2: ``sum_i a_i * b_i`` over ``n`` pairs of grad-requiring leaves, left to right."""

    key = "W2"
    title = "W2 dot"

    def __init__(self, products: int) -> None:
        self.products = products
        self.nodes = 2 * products - 1

    @staticmethod
    def _a(i: int) -> float:
        return ((i % 97) - 48) / 50.0

    @staticmethod
    def _b(i: int) -> float:
        return ((i % 89) - 44) / 45.0

    def inputs(self, peer):
        leaf = peer.leaf
        return ([leaf(self._a(i)) for i in range(self.products)], [leaf(self._b(i)) for i in range(self.products)])

    def build(self, peer, ab):
        a, b = ab
        s = a[0] * b[0]
        for i in range(1, self.products):
            s = s + a[i] * b[i]
        return s

    def check(self, peer, ab, y) -> dict:
        a, b = ab
        i = self.products - 1
        got = peer.grad(a[i])
        want = peer.value(b[i])  # the leaf as the peer stores it (float32 rounds it)
        return {"grad": got, "want": want, "ok": got == want and peer.grad(b[0]) == peer.value(a[0])}


class Dag:
    """W4: ``y = (y*y + y) * 0.25``, each node used twice; ``nodes`` ops (3 per step).

    It starts at the fixed point y = 3, where every dtype computes 3*3 + 3 = 12, 12*0.25 = 3
    exactly, so the forward values stay finite and equal in all peers. The derivative per
    step is (2y + 1)/4 = 1.75, so gradients overflow to inf after ~158 steps in float32 and
    ~1268 in float64: the backward mostly runs on infs, identically in every peer.
    """

    key = "W4"
    title = "W4 dag"

    def __init__(self, nodes: int) -> None:
        self.steps = nodes // 3
        self.nodes = 3 * self.steps

    def inputs(self, peer):
        return peer.leaf(3.0)

    def build(self, peer, x):
        y = x
        for _ in range(self.steps):
            y = (y * y + y) * 0.25
        return y

    def check(self, peer, x, y) -> dict:
        try:
            want = 1.75 ** self.steps
        except OverflowError:
            want = math.inf
        got = peer.grad(x)
        return {"grad": got, "want": want, "value": peer.value(y),
                "ok": _close(got, want, peer.float_dtype == "float32", 1e-6) and peer.value(y) == 3.0}


GRAPH_WORKLOADS = {"W1": Chain, "W2": Dot, "W4": Dag}


# ---------------------------------------------------------------- W3: micrograd's demo


def make_moons(n: int = 100, noise: float = 0.1, seed: int = MOONS_SEED):
    """scikit-learn's make_moons (shuffled, Gaussian noise), in pure Python with a fixed seed.

    Returns the points as (x0, x1) pairs and the labels as -1.0 / 1.0 (the demo's y*2 - 1).
    """
    rng = random.Random(seed)
    n_out = n // 2
    n_in = n - n_out

    def angles(k: int) -> list:
        return [math.pi * i / (k - 1) if k > 1 else 0.0 for i in range(k)]

    pts = [(math.cos(t), math.sin(t)) for t in angles(n_out)]
    pts += [(1.0 - math.cos(t), 1.0 - math.sin(t) - 0.5) for t in angles(n_in)]
    labels = [-1.0] * n_out + [1.0] * n_in
    order = list(range(n))
    rng.shuffle(order)
    xs = [(pts[i][0] + rng.gauss(0.0, noise), pts[i][1] + rng.gauss(0.0, noise)) for i in order]
    return xs, [labels[i] for i in order]


def mlp_layout(nin: int = 2, nouts=(16, 16, 1), seed: int = WEIGHTS_SEED) -> list:
    """Initial weights in micrograd's layout: per layer, per neuron, (weights, bias).

    Weights are uniform(-1, 1) and biases 0, as micrograd's Neuron draws them, from a fixed seed.
    """
    rng = random.Random(seed)
    sizes = [nin, *nouts]
    return [[([rng.uniform(-1.0, 1.0) for _ in range(sizes[i])], 0.0) for _ in range(sizes[i + 1])]
            for i in range(len(nouts))]


class ScalarMLP:
    """micrograd's nn.MLP over any peer's scalars: ReLU neurons, a linear last layer."""

    def __init__(self, layers: list) -> None:
        self.layers = layers  # per layer, per neuron: (weight list, bias)
        self._params = [p for layer in layers for ws, b in layer for p in (*ws, b)]

    def __call__(self, x):
        last = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            out = []
            for ws, b in layer:
                act = sum((wi * xi for wi, xi in zip(ws, x)), b)
                out.append(act if i == last else act.relu())
            x = out
        return x[0] if len(x) == 1 else x

    def parameters(self) -> list:
        return self._params


def svm_loss(peer, model, xs, ys, alpha: float = 1e-4):
    """The demo's loss: mean of relu(1 - y_i * score_i) plus alpha * sum(p * p), as its notebook writes it."""
    inputs = [[peer.const(a), peer.const(b)] for a, b in xs]
    scores = list(map(model, inputs))
    losses = [(1 + -yi * si).relu() for yi, si in zip(ys, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = alpha * sum(p * p for p in model.parameters())
    return data_loss + reg_loss


def ops_per_step(layout, points: int) -> int:
    """Ops recorded by one demo step in scalargrad or torch (micrograd adds a node per constant)."""
    per_point = 3  # -y*s, 1 + ..., relu
    params = 0
    for i, layer in enumerate(layout):
        nin = len(layer[0][0])
        per_point += len(layer) * (2 * nin + (0 if i == len(layout) - 1 else 1))
        params += len(layer) * (nin + 1)
    # sum of losses (from 0), * 1/n, the L2 products and their sum (from 0), * alpha, the total
    return points * per_point + points + 1 + 2 * params + 1 + 1
