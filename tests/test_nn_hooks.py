"""Module hooks, tested as PyTorch tests them: a list of fired events against the exact order.

Each scenario records what fires (with the tensors each hook sees, as text) while a module runs
forward and backward. The expected lists were printed by PyTorch 2.13.0 (CPU) running the same
scenario; the ``lib`` fixture runs every test on scalargrad and then on real PyTorch (skipped
when it is not installed), so the figures are checked against both.
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad

from faithfulness import ulps


@pytest.fixture(params=["scalargrad", "torch"])
def lib(request):
    """scalargrad, then real PyTorch; global module hooks are cleared afterwards."""
    torch = scalargrad if request.param == "scalargrad" else request.getfixturevalue("torch_ref")
    yield torch
    g = torch.nn.modules.module
    # a global full (or legacy) backward hook pins the global kind for good; tests start afresh
    g._global_is_full_backward_hook = None
    for d in (g._global_forward_pre_hooks, g._global_forward_hooks, g._global_backward_pre_hooks,
              g._global_backward_hooks):
        assert not d, "a test left a global hook behind"


def _record(ev: list):
    """A warnings context whose warnings are appended to ``ev`` when it exits."""

    class Recorder(warnings.catch_warnings):
        def __enter__(self):
            self.log = super().__enter__()
            warnings.simplefilter("always")
            return self

        def __exit__(self, *exc):
            ev.extend(f"warn {w.category.__name__}: {w.message}" for w in self.log)
            return super().__exit__(*exc)

    return Recorder(record=True)


def _double(torch):
    class Double(torch.nn.Module):
        def forward(self, x, y=None):
            return x * 2

    return Double()


# ---------------------------------------------------------------- forward and backward order


def test_full_order_of_global_and_module_hooks(lib):
    ev = []
    m = _double(lib)
    glob = lib.nn.modules.module
    handles = [
        glob.register_module_forward_pre_hook(lambda mod, args: ev.append("GLOBAL fwd pre")),
        glob.register_module_forward_hook(lambda mod, args, out: ev.append("GLOBAL fwd")),
        glob.register_module_full_backward_pre_hook(lambda mod, go: ev.append(f"GLOBAL bwd pre {go}")),
        glob.register_module_full_backward_hook(lambda mod, gi, go: ev.append(f"GLOBAL bwd {gi} {go}")),
    ]
    try:
        m.register_forward_pre_hook(lambda mod, args: ev.append("fwd pre 1"))
        m.register_forward_pre_hook(lambda mod, args: ev.append("fwd pre PREPEND"), prepend=True)
        m.register_forward_pre_hook(lambda mod, args, kw: ev.append(f"fwd pre kw {kw}"), with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: ev.append(f"fwd hook {out!r}"))
        m.register_forward_hook(lambda mod, args, kw, out: ev.append(f"fwd hook kw {kw}"), with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: ev.append("fwd hook PREPEND"), prepend=True)
        m.register_full_backward_pre_hook(lambda mod, go: ev.append(f"bwd pre {go}"))
        m.register_full_backward_pre_hook(lambda mod, go: ev.append("bwd pre PREPEND"), prepend=True)
        m.register_full_backward_hook(lambda mod, gi, go: ev.append(f"bwd {gi} {go}"))
        m.register_full_backward_hook(lambda mod, gi, go: ev.append("bwd PREPEND"), prepend=True)
        x = lib.tensor(3.0, requires_grad=True)
        x.register_hook(lambda g: ev.append(f"tensor hook on the input {g!r}"))
        y = m(x, y=5)
        ev.append(f"result {y!r}")
        y.backward()
    finally:
        for h in handles:
            h.remove()
    assert ev == [
        "GLOBAL fwd pre",
        "fwd pre PREPEND",
        "fwd pre 1",
        "fwd pre kw {'y': 5}",
        "GLOBAL fwd",
        "fwd hook PREPEND",
        "fwd hook tensor(6., grad_fn=<MulBackward0>)",
        "fwd hook kw {'y': 5}",
        "result tensor(6., grad_fn=<BackwardHookFunctionBackward>)",
        "GLOBAL bwd pre (tensor(1.),)",
        "bwd pre PREPEND",
        "bwd pre (tensor(1.),)",
        "GLOBAL bwd (tensor(2.),) (tensor(1.),)",
        "bwd PREPEND",
        "bwd (tensor(2.),) (tensor(1.),)",
        "tensor hook on the input tensor(2.)",
    ]


def test_nested_modules_fire_outer_pre_hooks_first_and_inner_backward_hooks_first(lib):
    ev = []

    class Inner(lib.nn.Module):
        def forward(self, x):
            ev.append("inner forward")
            return x * 2

    class Outer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            ev.append("outer forward")
            return self.inner(x) + 1

    o = Outer()
    for name, mod in (("outer", o), ("inner", o.inner)):
        mod.register_forward_pre_hook(lambda m, a, name=name: ev.append(f"{name} pre"))
        mod.register_forward_hook(lambda m, a, out, name=name: ev.append(f"{name} fwd {out!r}"))
        mod.register_full_backward_pre_hook(lambda m, go, name=name: ev.append(f"{name} bwd pre {go}"))
        mod.register_full_backward_hook(lambda m, gi, go, name=name: ev.append(f"{name} bwd {gi} {go}"))
    o(lib.tensor(1.5, requires_grad=True)).backward()
    assert ev == [
        "outer pre",
        "outer forward",
        "inner pre",
        "inner forward",
        "inner fwd tensor(3., grad_fn=<MulBackward0>)",
        "outer fwd tensor(4., grad_fn=<AddBackward0>)",
        "outer bwd pre (tensor(1.),)",
        "inner bwd pre (tensor(1.),)",
        "inner bwd (tensor(2.),) (tensor(1.),)",
        "outer bwd (tensor(2.),) (tensor(1.),)",
    ]


def test_a_module_called_twice_fires_its_hooks_once_per_call(lib):
    ev = []

    class Square(lib.nn.Module):
        def forward(self, x):
            return x * x

    m = Square()
    m.register_forward_hook(lambda mod, a, out: ev.append(f"fwd {a} -> {out!r}"))
    m.register_full_backward_pre_hook(lambda mod, go: ev.append(f"bwd pre {go}"))
    m.register_full_backward_hook(lambda mod, gi, go: ev.append(f"bwd gi={gi} go={go}"))
    x = lib.tensor(3.0, requires_grad=True)
    m(m(x)).backward()
    assert ev == [
        # forward hooks see the arguments forward saw: already passed through the identity node
        "fwd (tensor(3., grad_fn=<BackwardHookFunctionBackward>),) -> tensor(9., grad_fn=<MulBackward0>)",
        "fwd (tensor(9., grad_fn=<BackwardHookFunctionBackward>),) -> tensor(81., grad_fn=<MulBackward0>)",
        "bwd pre (tensor(1.),)",
        "bwd gi=(tensor(18.),) go=(tensor(1.),)",
        "bwd pre (tensor(18.),)",
        "bwd gi=(tensor(108.),) go=(tensor(18.),)",
    ]
    assert x.grad.item() == 108.0


def test_removed_hooks_do_not_fire_and_removing_twice_is_harmless(lib):
    ev = []
    m = _double(lib)
    h1 = m.register_forward_pre_hook(lambda mod, a, kw: ev.append("pre kw"), with_kwargs=True)
    h2 = m.register_forward_hook(lambda mod, a, out: ev.append("fwd always"), always_call=True)
    h3 = m.register_full_backward_hook(lambda mod, gi, go: ev.append("bwd"))
    with m.register_forward_hook(lambda mod, a, out: ev.append("fwd in with")):
        m(lib.tensor(1.0))
    ev.append("--")
    h1.remove()
    h2.remove()
    h2.remove()
    h3.remove()
    m(lib.tensor(1.0, requires_grad=True)).backward()
    assert ev == ["pre kw", "fwd always", "fwd in with", "--"]
    # the flag dicts forget the removed ids too (PyTorch's extra_dict)
    assert not m._forward_pre_hooks_with_kwargs and not m._forward_hooks_always_called
    assert not m._forward_pre_hooks and not m._forward_hooks and not m._backward_hooks


def test_hook_ids_follow_one_global_counter(lib):
    m = _double(lib)
    a = m.register_forward_hook(lambda *args: None)
    b = m.register_forward_pre_hook(lambda *args: None)
    c = lib.nn.ReLU().register_full_backward_hook(lambda *args: None)
    assert b.id == a.id + 1 and c.id == b.id + 1


# ---------------------------------------------------------------- forward hooks


def test_forward_pre_hook_results_replace_the_arguments(lib):
    class Mul(lib.nn.Module):
        def forward(self, x, y=1.0):
            return x * y

    m = Mul()
    h = m.register_forward_pre_hook(lambda mod, args: args[0] * 10)  # a bare tensor is wrapped in a tuple
    assert m(lib.tensor(2.0)).item() == 20.0
    h.remove()
    h = m.register_forward_pre_hook(lambda mod, args, kw: ((args[0] + 1,), {"y": 3.0}), with_kwargs=True)
    assert m(lib.tensor(2.0)).item() == 9.0
    h.remove()
    m.register_forward_pre_hook(lambda mod, args, kw: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"^forward pre-hook must return None or a tuple of \(new_args, "
                                           r"new_kwargs\), but got 5\.$"):
        m(lib.tensor(2.0))


def test_forward_hook_result_replaces_the_output(lib):
    m = _double(lib)
    m.register_forward_hook(lambda mod, args, out: out + 100)
    m.register_forward_hook(lambda mod, args, out: None)
    assert repr(m(lib.tensor(1.0))) == "tensor(102.)"


def test_a_forward_hook_with_the_wrong_signature_is_a_type_error_naming_the_hook(lib):
    # document 004: a forward hook declared hook(module, output); PyTorch raises Python's own error
    def hook(module, output):
        output += 5

    m = _double(lib)
    m.register_forward_hook(hook)
    with pytest.raises(TypeError, match=r"\bhook\(\) takes 2 positional arguments but 3 were given$"):
        m(lib.tensor(1.0))


def test_always_call_hooks_run_when_forward_raises(lib):
    ev = []

    class Boom(lib.nn.Module):
        def forward(self, x):
            ev.append("forward")
            raise ValueError("boom")

    m = Boom()

    def broken(mod, args, out):
        raise KeyError("inner")

    m.register_forward_hook(lambda mod, args, out: ev.append(f"always {args} {out}"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: ev.append("not always"))
    m.register_forward_hook(lambda mod, args, kw, out: ev.append(f"always kw {kw}"), always_call=True,
                            with_kwargs=True)
    m.register_forward_hook(broken, always_call=True)
    h = lib.nn.modules.module.register_module_forward_hook(lambda mod, a, o: ev.append("GLOBAL always"),
                                                           always_call=True)
    try:
        with _record(ev), pytest.raises(ValueError, match="^boom$"):
            m(lib.tensor(1.0))
    finally:
        h.remove()
    assert ev == [
        "forward",
        "GLOBAL always",
        "always (tensor(1.),) None",
        "always kw {}",
        "warn UserWarning: module forward hook with ``always_call=True`` raised an exception that was silenced "
        "as another error was raised in forward: 'inner'",
    ]


def test_always_call_hooks_that_already_ran_are_not_run_again(lib):
    ev = []

    class AddOne(lib.nn.Module):
        def forward(self, x):
            return x + 1

    def failing(mod, args, out):
        raise RuntimeError("hook failed")

    m = AddOne()
    m.register_forward_hook(lambda mod, args, out: ev.append(f"A {out!r}"), always_call=True)
    m.register_forward_hook(failing)
    m.register_forward_hook(lambda mod, args, out: ev.append(f"C {out!r}"), always_call=True)
    with pytest.raises(RuntimeError, match="^hook failed$"):
        m(lib.tensor(1.0))
    assert ev == ["A tensor(2.)", "C tensor(2.)"]


# ---------------------------------------------------------------- full backward hooks


def _mul(torch):
    class Mul(torch.nn.Module):
        def forward(self, a, b):
            return a * b

    return Mul()


def test_grad_input_of_a_tensor_that_does_not_require_grad_is_zero_and_of_a_number_none(lib):
    ev = []
    a = lib.tensor(2.0, requires_grad=True)
    m = _mul(lib)
    m.register_full_backward_hook(lambda mod, gi, go: ev.append(f"{gi} {go}"))
    m(a, lib.tensor(5.0)).backward()
    m(a, 3.0).backward()

    class KW(lib.nn.Module):
        def forward(self, a, b=None):
            return a * b

    k = KW()
    k.register_full_backward_hook(lambda mod, gi, go: ev.append(f"kwargs: {gi} {go}"))
    k(a, b=lib.tensor(3.0, requires_grad=True)).backward()

    class Two(lib.nn.Module):
        def forward(self, a):
            return a * 2, a * 3

    t = Two()
    t.register_full_backward_hook(lambda mod, gi, go: ev.append(f"unused output: {gi} {go}"))
    t(a)[0].backward()
    assert ev == [
        "(tensor(5.), tensor(0.)) (tensor(1.),)",
        "(tensor(3.), None) (tensor(1.),)",
        "kwargs: (tensor(3.),) (tensor(1.),)",
        "unused output: (tensor(2.),) (tensor(1.), None)",
    ]


def test_inputs_and_outputs_pass_through_backward_hook_function_nodes(lib):
    seen = []

    class Probe(lib.nn.Module):
        def forward(self, a, b):
            seen.append((a.grad_fn and a.grad_fn.name(), b.grad_fn, b.requires_grad))
            return a * b

    m = Probe()
    m.register_full_backward_hook(lambda *args: None)
    a = lib.tensor(2.0, requires_grad=True)
    out = m(a, lib.tensor(3.0))
    assert seen == [("BackwardHookFunctionBackward", None, False)]
    assert out.grad_fn.name() == "BackwardHookFunctionBackward"
    assert repr(out) == "tensor(6., grad_fn=<BackwardHookFunctionBackward>)"
    mul = out.grad_fn.next_functions[0][0]
    assert mul.name() == "MulBackward0"
    # b does not require grad: it passed through as a non-differentiable output
    assert [n and n.name() for n, _ in mul.next_functions] == ["BackwardHookFunctionBackward", None]
    assert not out.is_leaf
    with lib.no_grad():
        assert m(a, lib.tensor(3.0)).grad_fn is None  # nothing is wrapped without grad mode
    assert seen[1] == (None, None, False)


def test_returned_grad_input_and_grad_output_replace_the_gradients(lib):
    ev = []
    m = _mul(lib)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
    m.register_full_backward_hook(lambda mod, gi, go: ev.append(f"sees {gi} {go}"))
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10, None))
    a = lib.tensor(2.0, requires_grad=True)
    b = lib.tensor(5.0, requires_grad=True)
    m(a, b).backward()
    assert ev == ["sees (tensor(10.), tensor(4.)) (tensor(2.),)"]
    assert (a.grad.item(), b.grad) == (100.0, None)


def test_wrong_number_of_returned_gradients_is_an_error(lib):
    a = lib.tensor(2.0, requires_grad=True)
    b = lib.tensor(5.0, requires_grad=True)
    m = _mul(lib)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0],))
    with pytest.raises(RuntimeError, match=r"^Backward hook returned an invalid number of grad_input, got 1, "
                                           r"but expected 2$"):
        m(a, b).backward()
    m = _mul(lib)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match=r"^Backward pre hook returned an invalid number of grad_output, "
                                           r"got 2, but expected 1$"):
        m(a, b).backward()


def test_without_inputs_requiring_grad_the_hook_fires_at_the_outputs_with_a_warning(lib):
    ev = []

    class Scaled(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor(4.0))

        def forward(self, a):
            return a * self.w

    m = Scaled()
    m.register_full_backward_hook(lambda mod, gi, go: ev.append(f"{gi} {go} w.grad={mod.w.grad!r}"))
    with _record(ev):
        m(lib.tensor(2.0)).backward()
    assert ev == [
        "(None,) (tensor(1.),) w.grad=None",
        "warn UserWarning: Full backward hook is firing when gradients are computed with respect to module "
        "outputs since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
        "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
    ]
    m2 = Scaled()
    m2.register_full_backward_hook(lambda mod, gi, go: (lib.tensor(1.0),))
    with warnings.catch_warnings(), pytest.raises(RuntimeError, match=r"^Backward hook for Modules where no input "
                                                  r"requires gradient should always return None or None for all "
                                                  r"gradients\.$"):
        warnings.simplefilter("ignore")
        m2(lib.tensor(2.0)).backward()


def test_without_outputs_requiring_grad_the_hook_never_fires(lib):
    ev = []

    class Const(lib.nn.Module):
        def forward(self, a):
            return lib.tensor(1.0)

    m = Const()
    m.register_full_backward_hook(lambda *args: ev.append("fired"))
    out = m(lib.tensor(2.0, requires_grad=True))
    assert (repr(out), ev) == ("tensor(1.)", [])


def test_a_non_tensor_result_gets_pytorchs_warning(lib):
    ev = []

    class Dict(lib.nn.Module):
        def forward(self, a):
            return {"k": a * 2}

    m = Dict()
    m.register_full_backward_hook(lambda mod, gi, go: ev.append(f"fired {gi} {go}"))
    with _record(ev):
        m(lib.tensor(2.0, requires_grad=True))["k"].backward()
    assert ev == ["warn UserWarning: For backward hooks to be called, module output should be a Tensor or a tuple "
                  "of Tensors but received <class 'dict'>"]


def test_double_backward_through_a_hooked_module(lib):
    ev = []

    class Square(lib.nn.Module):
        def forward(self, a):
            return a * a

    m = Square()
    m.register_full_backward_hook(lambda mod, gi, go: ev.append(f"{gi} {go}"))
    a = lib.tensor(2.0, requires_grad=True)
    (g,) = lib.autograd.grad(m(a), a, create_graph=True)
    g.backward()
    # the second pass reaches the inputs without passing through the outputs: no second call
    assert ev == ["(tensor(4., grad_fn=<AddBackward0>),) (tensor(1.),)"]
    assert a.grad.item() == 2.0


def test_parameters_grads_are_accumulated_before_the_module_hook_runs(lib):
    ev = []

    class Scaled(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor(5.0))

        def forward(self, x):
            return x * self.w

    m = Scaled()
    m.register_full_backward_hook(lambda mod, gi, go: ev.append(f"{gi} w.grad={mod.w.grad!r}"))
    m(lib.tensor(2.0, requires_grad=True)).backward()
    assert ev == ["(tensor(5.),) w.grad=tensor(2.)"]


def test_modifying_a_hooked_modules_input_or_output_in_place_is_refused(lib):
    class AddOne(lib.nn.Module):
        def forward(self, a, b):
            a += 1
            return a * b

    m = AddOne()
    m.register_full_backward_hook(lambda *args: None)
    a = lib.tensor(2.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Output 0 of BackwardHookFunction is a view and is being modified "
                                           r"inplace\. This view was created inside a custom Function"):
        m(a * 1, lib.tensor(3.0))
    with pytest.raises(RuntimeError, match=r"^Output 0 of BackwardHookFunction is a view and is being modified "
                                           r"inplace\. This view is the output of a function that returns multiple "
                                           r"views\."):
        m(a * 1, lib.tensor(3.0, requires_grad=True))
    out = _double(lib)
    out.register_full_backward_pre_hook(lambda *args: None)
    y = out(a)
    with pytest.raises(RuntimeError, match=r"^Output 0 of BackwardHookFunction is a view"):
        y += 1

    class BumpB(lib.nn.Module):
        def forward(self, a, b):
            b += 1  # b does not require grad: allowed, and the caller's tensor changes
            return a * b

    m = BumpB()
    m.register_full_backward_hook(lambda *args: None)
    b = lib.tensor(3.0)
    assert m(a, b).item() == 8.0 and b.item() == 4.0


# ---------------------------------------------------------------- legacy backward hooks


def test_legacy_backward_hook_sees_the_last_operation_of_the_module(lib):
    ev = []

    class Chain(lib.nn.Module):
        def forward(self, a, w, b):
            return a * w * b * 3

    m = Chain()
    m.register_backward_hook(lambda mod, gi, go: ev.append(f"{type(mod).__name__} {gi} {go}"))
    a = lib.tensor(2.0, requires_grad=True)
    w = lib.tensor(3.0, requires_grad=True)
    with _record(ev):
        m(a, w, lib.tensor(4.0)).backward()
    # grad_input is (d/d(a*w*b), None for the Python number 3) of the last multiplication
    assert ev == [
        "Chain (tensor(3.), None) (tensor(1.),)",
        "warn FutureWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is "
        "deprecated and will be removed in future versions. This hook will be missing some grad_input. Please use "
        "register_full_backward_hook to get the documented behavior.",
    ]
    assert (a.grad.item(), w.grad.item()) == (36.0, 24.0)


def test_legacy_backward_hook_warnings(lib):
    ev = []
    hook = lambda mod, gi, go: ev.append(f"{type(mod).__name__} {gi} {go}")
    a = lib.tensor(0.5, requires_grad=True)
    sig = lib.nn.Sigmoid()
    sig.register_backward_hook(hook)
    with _record(ev):
        sig(a).backward()  # on a leaf: next_functions holds its AccumulateGrad, so PyTorch warns
    with _record(ev):
        sig(a * 1).backward()  # on a computed input: no warning

    class Pair(lib.nn.Module):
        def forward(self, a):
            return a * 2, a * 3

    class WithNumber(lib.nn.Module):
        def forward(self, a, k):
            return a * k

    class Nested(lib.nn.Module):
        def forward(self, a):
            return {"k": a * 2}

    for m, run in ((Pair(), lambda m: sum(m(a), lib.tensor(0.0))), (WithNumber(), lambda m: m(a, 2.0)),
                   (Nested(), lambda m: m(a)["k"])):
        m.register_backward_hook(hook)
        with _record(ev):
            run(m).backward()
    assert ev == [
        "Sigmoid (tensor(0.2350),) (tensor(1.),)",
        "warn FutureWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is "
        "deprecated and will be removed in future versions. This hook will be missing some grad_input. Please use "
        "register_full_backward_hook to get the documented behavior.",
        "Sigmoid (tensor(0.2350),) (tensor(1.),)",
        "Pair (tensor(2.), None) (tensor(1.),)",
        "warn FutureWarning: Using a non-full backward hook when outputs are generated by different autograd Nodes "
        "is deprecated and will be removed in future versions. This hook will be missing some grad_output. Please "
        "use register_full_backward_hook to get the documented behavior.",
        "WithNumber (tensor(2.), None) (tensor(1.),)",
        "warn FutureWarning: Using non-full backward hooks on a Module that does not take as input a single Tensor "
        "or a tuple of Tensors is deprecated and will be removed in future versions. This hook will be missing some "
        "of the grad_input. Please use register_full_backward_hook to get the documented behavior.",
        "Nested (tensor(2.), None) (tensor(1.),)",
        "warn FutureWarning: Using non-full backward hooks on a Module that does not return a single Tensor or a "
        "tuple of Tensors is deprecated and will be removed in future versions. This hook will be missing some of "
        "the grad_output. Please use register_full_backward_hook to get the documented behavior.",
    ]


def test_legacy_hook_returning_grad_input_changes_the_gradients(lib):
    class PowModel(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.powParam = lib.nn.Parameter(lib.tensor(1.0))

        def forward(self, x, q):
            return x ** q * self.powParam

    m = PowModel()
    m.register_backward_hook(lambda mod, gi, go: (gi[0] * 2, gi[1]))
    x = lib.tensor(5.0, requires_grad=True)
    q = lib.tensor(3.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.log(m(x, q)).backward()
    assert (x.grad.item(), m.powParam.grad.item()) == (1.2000000476837158, 1.0)
    # 2 log(5), correctly rounded in scalargrad; PyTorch's log (MKL) depends on the processor:
    # within 2 ulp (1 ulp of log, then the products with 125 and 1/125 round)
    want = 3.2188761234283447
    assert q.grad.item() == want if lib is scalargrad else ulps(q.grad.item(), want) <= 2


def test_legacy_and_full_backward_hooks_do_not_mix(lib):
    message = (r"^Cannot use both regular backward hooks and full backward hooks on a single Module\. Please use "
               r"only one of them\.$")
    m = lib.nn.ReLU()
    m.register_full_backward_hook(lambda *args: None)
    with pytest.raises(RuntimeError, match=message):
        m.register_backward_hook(lambda *args: None)
    m = lib.nn.ReLU()
    m.register_backward_hook(lambda *args: None)
    with pytest.raises(RuntimeError, match=message):
        m.register_full_backward_hook(lambda *args: None)
    glob = lib.nn.modules.module
    h = glob.register_module_backward_hook(lambda *args: None)
    try:
        with pytest.raises(RuntimeError, match=r"^Cannot use both regular backward hooks and full backward hooks "
                                               r"as a global Module hook\. Please use only one of them\.$"):
            glob.register_module_full_backward_hook(lambda *args: None)
    finally:
        h.remove()


def test_global_legacy_backward_hook(lib):
    ev = []
    glob = lib.nn.modules.module
    h = glob.register_module_backward_hook(lambda mod, gi, go: ev.append(f"{type(mod).__name__} {gi} {go}"))
    try:
        sig = lib.nn.Sigmoid()  # the hook holds the module weakly: it must outlive the backward
        sig(lib.tensor(0.5, requires_grad=True) * 1).backward()
    finally:
        h.remove()
    assert ev == ["Sigmoid (tensor(0.2350),) (tensor(1.),)"]
