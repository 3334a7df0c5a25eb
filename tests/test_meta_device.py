"""The meta device (``device='meta'``, ``_tensor/meta.py``): tensors with a shape and a dtype and
no data, as PyTorch's test_load_state_dict builds modules with them (``with torch.device("meta")``,
then ``load_state_dict(..., assign=True)``). Compared with live PyTorch: what is made where, the
reprs, the version counters and the errors; an op with no meta kernel is refused by name."""

from __future__ import annotations

import copy
import warnings

import pytest

import scalargrad
from scalargrad.errors import Unsupported


def _made(L):
    """(repr, device, is_meta) of what each factory makes, on the meta device by keyword and
    by ``with torch.device``, and what the ``*_like``/``new_*`` forms make there."""
    cpu = L.ones(2, 3)
    m = L.empty(2, 3, device="meta")
    out = [L.empty(2, 3, device="meta"), L.zeros(4, dtype=L.float64, device="meta"),
           L.ones((), device="meta", requires_grad=True), L.full((2,), 3, device="meta"),
           L.tensor([[1.0, 2.0]], device="meta"), L.rand(5, device=L.device("meta")),
           L.randn(1, 2, device="meta", dtype=L.float64), L.empty_like(m), L.zeros_like(m, dtype=L.int64),
           L.ones_like(m), L.full_like(m, 7), L.empty_like(m, device="cpu"), m.new_zeros(3), m.new_ones(2),
           m.new_empty(1), m.new_full((2,), 1.5), m.new_tensor([1, 2]), L.empty(2, dtype=L.bool, device="meta")]
    with L.device("meta"):
        out += [L.empty(3), L.zeros(2, dtype=L.int32), L.ones(1), L.full((1,), 2.0), L.tensor(0),
                L.tensor([True]), L.rand(2), L.randn(2),
                L.empty_like(cpu), L.zeros_like(cpu), cpu.new_zeros(2), cpu.new_tensor([1.0]), L.zeros_like(m)]
        defaults = [repr(L.get_default_device())]
        with L.device("cpu"):
            out.append(L.empty(2))
            defaults.append(repr(L.get_default_device()))
    defaults.append(repr(L.get_default_device()))
    return [(repr(t) if t.is_meta else tuple(t.shape), str(t.device), t.is_meta) for t in out], defaults


def test_factories_make_meta_tensors_where_pytorch_does(torch_ref):
    assert _made(scalargrad) == _made(torch_ref)


def _initialised(L):
    """Version counters and metadata after the in-place initialisers, on a meta tensor."""
    m = L.empty(2, 3, device="meta")
    steps = [m.copy_(L.ones(2, 3)), m.copy_(L.ones(3)), m.uniform_(-1, 1), m.normal_(), m.fill_(2), m.zero_()]
    z = L.zeros((), device="meta")
    z.fill_(3)
    d = m.detach()
    p = L.nn.Parameter(m)
    return ([t is m for t in steps], m._version, z.is_meta, repr(z), repr(d), d._version, repr(p),
            p.requires_grad, str(p.device), repr(m.requires_grad_()))


def test_in_place_initialisers_change_only_the_version(torch_ref):
    assert _initialised(scalargrad) == _initialised(torch_ref)


@pytest.mark.parametrize("lib", ["scalargrad", "torch"])
def test_meta_draws_leave_the_generator_alone(lib, torch_ref):
    # a meta rand/uniform_/normal_ draws nothing: the next CPU draw is the one without them
    L = scalargrad if lib == "scalargrad" else torch_ref
    L.manual_seed(7)
    expected = L.rand(4).tolist()
    L.manual_seed(7)
    L.rand(3, device="meta")
    L.empty(5, device="meta").uniform_()
    L.empty(5, device="meta").normal_()
    with L.device("meta"):
        L.randn(6)
    assert L.rand(4).tolist() == expected


def _errors(L):
    m = L.empty(2, 3, device="meta")
    one = L.empty((), device="meta")
    calls = [lambda: one.item(), lambda: float(one), lambda: m.item(), lambda: m.tolist(), lambda: m.numpy(),
             lambda: L.ones(2, 3).copy_(m), lambda: m.copy_(L.ones(4)),
             lambda: L.nn.Parameter(L.empty(2, device="meta")).uniform_()]
    out = []
    for call in calls:
        try:
            call()
            out.append(None)
        except (RuntimeError, TypeError, NotImplementedError) as ex:
            out.append((type(ex).__name__, str(ex).split("\n")[0]))
    return out


def test_reading_a_meta_tensor_raises_pytorchs_errors(torch_ref):
    assert _errors(scalargrad) == _errors(torch_ref)


def test_ops_without_a_meta_kernel_are_refused_by_name():
    m = scalargrad.empty(2, 3, device="meta")
    z = scalargrad.zeros((), device="meta")
    for call in (lambda: m + 1, lambda: m.sum(), lambda: m.view(6), lambda: m[0], lambda: z * 2,
                 lambda: m.add_(1), lambda: z.exp_(), lambda: m.clone(), lambda: m.to(scalargrad.float64),
                 lambda: scalargrad.arange(3, device="meta"), lambda: scalargrad.ones(2).add_(z)):
        with pytest.raises(Unsupported, match="meta tensors"):
            call()
    with scalargrad.device("meta"):  # a factory without a meta kernel does not make a CPU tensor instead
        for call in (lambda: scalargrad.arange(3), lambda: scalargrad.randint(3, (2,)),
                     lambda: scalargrad.eye(2), lambda: scalargrad.rand_like(m)):
            with pytest.raises(Unsupported, match="meta tensors"):
                call()
    assert m.is_meta and z.is_meta


def _module_flow(L):
    """A module built on the meta device, loaded with assign=True, then run: its outputs equal
    those of the module it was loaded from; a plain load into it warns and changes nothing."""
    class Net(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = L.nn.Linear(3, 5)
            self.bn = L.nn.BatchNorm1d(5)

        def forward(self, x):
            return self.bn(self.fc1(x))

    L.manual_seed(0)
    net = Net()
    with L.device("meta"):
        meta_net = Net()
    shapes = [(n, tuple(p.shape), str(p.device), p.requires_grad) for n, p in meta_net.named_parameters()]
    buffers = [(n, repr(b)) for n, b in meta_net.named_buffers()]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        meta_net.load_state_dict(net.state_dict())
    warned = [str(w.message) for w in caught]
    still_meta = all(p.is_meta for p in meta_net.parameters())
    meta_net.load_state_dict(net.state_dict(), assign=True)
    x = L.randn(4, 3)
    same = L.equal(net(x), meta_net(x))
    loaded = [(n, str(p.device), p.requires_grad, type(p).__name__) for n, p in meta_net.named_parameters()]
    return shapes, buffers, warned, still_meta, same, loaded


def test_a_module_built_on_meta_then_loaded(torch_ref):
    assert _module_flow(scalargrad) == _module_flow(torch_ref)


def _layers(L):
    """What nn's layers make with device=: every parameter and buffer there."""
    nn = L.nn
    layers = [nn.Linear(2, 3, device="meta"), nn.Linear(2, 3, True, "meta"), nn.BatchNorm1d(3, device="meta"),
              nn.Conv2d(1, 2, 3, device=L.device("meta")), nn.LSTM(2, 3, device="meta"),
              nn.Embedding(3, 2, device="meta"), nn.LayerNorm(3, device="meta"),
              nn.MultiheadAttention(4, 2, device="meta"), nn.Linear(2, 3, device="cpu")]
    with L.device("meta"):
        layers.append(nn.Linear(2, 3, device="cpu"))  # the argument wins over the block
    out = [[(n, repr(t) if t.is_meta else str(t.device)) for n, t in (*m.named_parameters(), *m.named_buffers())]
           for m in layers]
    try:
        nn.Linear(2, 3, device="cuda")
    except AssertionError as ex:
        out.append(str(ex))
    return out


def test_layers_make_their_tensors_on_their_device_argument(torch_ref):
    assert _layers(scalargrad) == _layers(torch_ref)


def _to_empty(L):
    with L.device("meta"):
        m = L.nn.Sequential(L.nn.Linear(2, 3), L.nn.BatchNorm1d(3))
    stays = m[0].weight.to("meta") is m[0].weight
    errors = []
    for call in (lambda: m.cpu(), lambda: m[0].weight.to("cpu"), lambda: m[0].weight.cpu()):
        try:
            call()
        except NotImplementedError as ex:
            errors.append(str(ex).split("\n")[0])
    m.to_empty(device="cpu")
    return errors, [(n, str(t.device), tuple(t.shape), str(t.dtype), type(t).__name__) for n, t in
                    (*m.named_parameters(), *m.named_buffers())], stays


def test_to_empty_moves_a_meta_module_and_copies_out_of_meta_are_refused(torch_ref):
    # to_empty's numbers are uninitialised memory in PyTorch (zeros in scalargrad): not compared
    assert _to_empty(scalargrad) == _to_empty(torch_ref)


def _printed_copied_and_graded(L):
    z = L.zeros((), device="meta")
    v = L.empty(2, 3, device="meta", requires_grad=True)
    out = [f"{z}", f"{v}", repr(copy.deepcopy(v)), repr(copy.deepcopy(L.nn.Parameter(v.detach())))]
    for target, grad in ((v, L.ones(2, 3)), (L.ones(2, 3, requires_grad=True), L.ones(2, 3, device="meta"))):
        try:
            target.grad = grad
            out.append(None)
        except RuntimeError as ex:
            out.append(str(ex))
    v.grad = L.zeros(2, 3, device="meta")
    out.append(repr(v.grad))
    return out


def test_formatting_deepcopy_and_grad_assignment(torch_ref):
    # a 0-dim meta tensor formats as its repr (it has no number); .grad must be on the tensor's device
    assert _printed_copied_and_graded(scalargrad) == _printed_copied_and_graded(torch_ref)


def _checks(L):
    """The checks a meta in-place initialiser keeps (normal_'s std) and those it has not (a
    uniform_ range, a value out of the dtype's range: PyTorch's meta kernels check neither)."""
    out = []
    for call in (lambda: L.empty(2, device="meta").uniform_(1, 0), lambda: L.empty(2, device="meta").normal_(0, -1),
                 lambda: L.empty(2, device="meta", dtype=L.int8).fill_(1000)):
        try:
            out.append(repr(call()))
        except RuntimeError as ex:
            out.append(str(ex))
    return out


def test_the_checks_of_the_meta_initialisers(torch_ref):
    assert _checks(scalargrad) == _checks(torch_ref)


def _optimizer_in_a_meta_block(L):
    """Inside ``with torch.device("meta")``, CPU tensors compute as outside and an optimizer's
    own state stays on the CPU (PyTorch's optimizers ignore the block)."""
    L.manual_seed(0)
    lin = L.nn.Linear(4, 2)
    x = L.ones(3, 4)
    with L.device("meta"):
        lin(x).sum().backward()
        for opt in (L.optim.Adam(lin.parameters()), L.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)):
            opt.step()
        state = {k: str(v.device) for k, v in opt.state[lin.weight].items() if hasattr(v, "device")}
        adam = {k: str(v.device) for k, v in L.optim.Adam(lin.parameters()).state.items()}
    return str(lin.weight.device), state, adam, tuple(lin(x).shape)


def test_an_optimizer_inside_a_meta_block(torch_ref):
    assert _optimizer_in_a_meta_block(scalargrad) == _optimizer_in_a_meta_block(torch_ref)
