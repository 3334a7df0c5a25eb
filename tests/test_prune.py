"""torch.nn.utils.prune: masks, reparametrization, hooks, containers and errors, against PyTorch 2.13.

Each scenario runs on scalargrad and on live PyTorch from the same seed and returns plain Python
(names, shapes, lists of floats, error messages); the two must be equal. Masks come from
``topk``/``kthvalue`` of the same draws or magnitudes, and ``mask * orig`` is one IEEE product per
element, so values compare bit for bit; no scenario compares a matrix product or a conv output
(machine-dependent kernels), and the one gradient compared is of small integers (exact sums).
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import scalargrad
import scalargrad.nn.utils.prune


def _libs(torch_ref):
    importlib.import_module("torch.nn.utils.prune")  # a submodule, not imported by torch.nn.utils
    return scalargrad, torch_ref


def _state(module):
    return {"params": [(n, p.tolist()) for n, p in module.named_parameters()],
            "buffers": [(n, b.tolist()) for n, b in module.named_buffers()],
            "hooks": [type(h).__name__ for h in module._forward_pre_hooks.values()],
            "state_dict": list(module.state_dict().keys())}


def _conv_lenet_steps(L):
    """The pruning tutorial's sequence on one conv layer: random, l1 on the bias, ln_structured, remove."""
    prune = L.nn.utils.prune
    L.manual_seed(0)
    module = L.nn.Conv2d(1, 6, 3)
    out = [_state(module)]
    prune.random_unstructured(module, name="weight", amount=0.3)
    out += [_state(module), module.weight.tolist(), type(module.weight.grad_fn).__name__]
    prune.l1_unstructured(module, name="bias", amount=3)
    out += [_state(module), module.bias.tolist()]
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    hook = next(h for h in module._forward_pre_hooks.values() if h._tensor_name == "weight")
    out += [_state(module), module.weight.tolist(), [type(m).__name__ for m in hook], len(hook)]
    out.append(prune.is_pruned(module))
    prune.remove(module, "weight")
    out += [_state(module), type(module.weight).__name__, module.weight.requires_grad]
    prune.remove(module, "bias")
    out += [_state(module), prune.is_pruned(module)]
    return out


def test_tutorial_sequence_matches_pytorch(torch_ref):
    s, t = (_conv_lenet_steps(L) for L in _libs(torch_ref))
    assert s == t


def _global(L):
    prune = L.nn.utils.prune
    L.manual_seed(1)
    model = L.nn.Sequential(L.nn.Conv2d(2, 4, 3), L.nn.Linear(10, 7), L.nn.Linear(7, 3))
    prune.l1_unstructured(model[1], "weight", amount=0.5)  # an earlier mask the global one respects
    params = ((model[0], "weight"), (model[1], "weight"), (model[2], "weight"), (model[2], "bias"))
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.3)
    zeros = [int(L.sum(getattr(m, n) == 0)) for m, n in params]
    hooks = [[type(x).__name__ for x in h] if isinstance(h, prune.PruningContainer) else type(h).__name__
             for m in model for h in m._forward_pre_hooks.values()]
    L.manual_seed(2)
    prune.global_unstructured([(model[2], "weight")], pruning_method=prune.RandomUnstructured, amount=4)
    return [zeros, hooks, list(dict(model.named_buffers()).keys()), _state(model[2]), _state(model[1])]


def test_global_unstructured_matches_pytorch(torch_ref):
    s, t = (_global(L) for L in _libs(torch_ref))
    assert s == t


def _structured_and_custom(L):
    prune = L.nn.utils.prune
    L.manual_seed(3)
    lin = L.nn.Linear(5, 6)
    prune.random_structured(lin, "weight", amount=2, dim=0)
    prune.random_structured(lin, "weight", amount=0.4, dim=1)
    prune.ln_structured(lin, "weight", amount=1, n=1, dim=-1)
    out = [_state(lin)]
    lin2 = L.nn.Linear(3, 4)
    prune.identity(lin2, "bias")
    mask = L.tensor([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 0]])
    prune.custom_from_mask(lin2, "weight", mask=mask)
    scores = L.arange(12.0).reshape(4, 3).flip(0)
    prune.l1_unstructured(lin2, "weight", amount=2, importance_scores=scores)
    prune.ln_structured(lin2, "weight", amount=1, n=float("inf"), dim=0, importance_scores=scores)
    out += [_state(lin2), lin2.weight_mask.dtype == L.int64, lin2.weight.dtype == L.float32]
    # the pruning method on its own, and a custom subclass as in the tutorial
    t = L.tensor([[0.5, -2.0, 1.0], [3.0, -0.1, 0.2]])
    out.append(prune.L1Unstructured(amount=0.5).prune(t).tolist())
    out.append(prune.LnStructured(amount=1, n=2, dim=0).prune(t, importance_scores=t.flip(0)).tolist())

    class FooBar(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    lin3 = L.nn.Linear(3, 5)
    prune.l1_unstructured(lin3, "bias", amount=1)
    FooBar.apply(lin3, "bias")
    out += [lin3.bias_mask.tolist(), _state(lin3)]
    return out


def test_structured_custom_and_importance_scores_match_pytorch(torch_ref):
    s, t = (_structured_and_custom(L) for L in _libs(torch_ref))
    assert s == t


def _forward_hook_and_grad(L):
    prune = L.nn.utils.prune
    lin = L.nn.Linear(3, 2)
    with L.no_grad():
        lin.weight.copy_(L.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]))
        lin.bias.copy_(L.tensor([1.0, 2.0]))
    prune.l1_unstructured(lin, "weight", amount=2)
    with L.no_grad():
        lin.weight_orig.mul_(2)  # the hook recomputes weight from the changed original at the next call
    before = lin.weight.tolist()
    y = lin(L.tensor([[1.0, 2.0, 3.0]]))
    y.sum().backward()
    return [before, lin.weight.tolist(), y.tolist(), lin.weight_orig.grad.tolist(), lin.bias.grad.tolist()]


def test_forward_pre_hook_and_gradient_match_pytorch(torch_ref):
    s, t = (_forward_hook_and_grad(L) for L in _libs(torch_ref))
    assert s == t


def _errors(L):
    prune = L.nn.utils.prune
    lin = L.nn.Linear(3, 2)
    out = []
    for call in (lambda: prune.l1_unstructured(lin, "weight", amount=1.5),
                 lambda: prune.l1_unstructured(lin, "weight", amount=-1),
                 lambda: prune.l1_unstructured(lin, "weight", amount="a"),
                 lambda: prune.l1_unstructured(lin, "weight", amount=7),
                 lambda: prune.ln_structured(lin, "bias", amount=1, n=2, dim=0),
                 lambda: prune.ln_structured(lin, "weight", amount=1, n=2, dim=2),
                 lambda: prune.l1_unstructured(lin, "weight", amount=1, importance_scores=L.ones(2)),
                 lambda: prune.remove(lin, "weight"),
                 lambda: prune.global_unstructured(3, pruning_method=prune.L1Unstructured, amount=1),
                 lambda: prune.global_unstructured([(lin, "weight")], pruning_method=prune.RandomStructured,
                                                   amount=1)):
        try:
            call()
            out.append("no error")
        except Exception as e:  # the type and message are what is compared
            out.append((type(e).__name__, str(e).split(" of module ")[0].split("PruningContainer")[0]))
        out.append(_state(lin))  # a failed pruning leaves the module as it was
    return out


def test_errors_match_pytorch(torch_ref):
    s, t = (_errors(L) for L in _libs(torch_ref))
    assert s == t


def test_container_refuses_another_tensor_and_reprs():
    prune = scalargrad.nn.utils.prune
    a, b = prune.L1Unstructured(0.1), prune.L1Unstructured(0.1)
    a._tensor_name, b._tensor_name = "weight", "bias"
    container = prune.PruningContainer(a)
    with pytest.raises(ValueError, match="Can only add pruning methods acting on the parameter named 'weight'"):
        container.add_pruning_method(b)
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        container.add_pruning_method(3)
    assert repr(a).startswith("<torch.nn.utils.prune.L1Unstructured object at 0x")


def test_prune_is_a_submodule_imported_by_name():
    # as in PyTorch, torch.nn.utils does not import prune: the attribute exists once it is imported
    code = ("import scalargrad\ntry:\n    scalargrad.nn.utils.prune\nexcept AttributeError as e:\n    print(e)\n"
            "import scalargrad.nn.utils.prune as p\nprint(p is scalargrad.nn.utils.prune, p.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "module 'torch.nn.utils' has no attribute 'prune'\nTrue scalargrad.nn.utils.prune\n"
