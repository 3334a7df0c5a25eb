"""inference_mode: is_inference_mode_enabled, Tensor.is_inference, and PyTorch's refusals of
inference tensors in autograd (saved for backward, changed in place, made to require grad)."""

from __future__ import annotations

import pytest

import scalargrad as torch

SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
         "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and "
         "use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
           "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")
REQUIRES = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."


def test_mode_flags_and_marks():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
        x = torch.tensor([3.0, 4.0])
        y = w * 2
        s = torch.tensor(2.0) * 3
        assert x.is_inference() and y.is_inference() and s.is_inference() and not y.requires_grad
        with torch.inference_mode(False):
            assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
            assert not (w * 2).is_inference()
        assert torch.is_inference_mode_enabled()
    assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
    assert not w.is_inference() and torch.is_inference(x)
    # what is computed from inference tensors outside the mode is normal; views and detach are not
    assert not (x * 2).is_inference() and not x.clone().is_inference()
    assert x.view(2).is_inference() and x[0].is_inference() and x.detach().is_inference()


def test_decorators():
    @torch.inference_mode()
    def called(a):
        return a * 2, torch.is_inference_mode_enabled()

    @torch.inference_mode
    def bare(a):
        return a * 2

    w = torch.tensor([1.0], requires_grad=True)
    out, flag = called(w)
    assert flag and out.is_inference() and not out.requires_grad
    assert bare(w).is_inference() and not torch.is_inference_mode_enabled()


def test_refusals():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    a = torch.tensor(1.0, requires_grad=True)
    with torch.inference_mode():
        x = torch.tensor([3.0, 4.0])
        s = torch.tensor(2.0)
        x.add_(1)  # allowed inside
    assert x.tolist() == [4.0, 5.0]
    with pytest.raises(RuntimeError) as err:
        x * w  # mul saves x for w's gradient
    assert str(err.value) == SAVED
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved"):
        s * a  # the 0-dim fast path too
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved"):
        w.sin() * x
    assert (x + w).tolist() == [5.0, 7.0]  # add saves nothing
    assert x.sin().tolist() == pytest.approx([-0.7568025, -0.9589243], abs=1e-6)  # no graph: allowed
    with pytest.raises(RuntimeError) as err:
        x.add_(1)
    assert str(err.value) == INPLACE
    # PyTorch 2.13 performs the add, then refuses (the version counter it lacks is bumped after
    # the kernel ran): the values have changed
    assert x.tolist() == [5.0, 6.0]
    with pytest.raises(RuntimeError) as err:
        x[0] = 0.0  # so does an assignment to its elements
    assert str(err.value) == INPLACE and x.tolist() == [0.0, 6.0]
    with pytest.raises(RuntimeError) as err:
        x.requires_grad_()
    assert str(err.value) == REQUIRES
    with pytest.raises(RuntimeError, match="^Setting requires_grad=True on inference tensor"):
        torch.nn.Parameter(x)
    with pytest.raises(RuntimeError, match="^Inference tensors do not track version counter.$"):
        _ = x._version
    # a clone is a normal tensor, usable in autograd
    (x.clone() * w).sum().backward()
    assert w.grad.tolist() == [0.0, 6.0]


def test_matches_pytorch(torch_ref):
    def run(lib):
        out = []
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.inference_mode():
            x = lib.tensor([3.0, 4.0])
            y = w * 2
            out.append((lib.is_inference_mode_enabled(), lib.is_grad_enabled(), x.is_inference(),
                        y.is_inference(), y.requires_grad))
        for f in (lambda: x * w, lambda: x + w, lambda: w.mul(x), lambda: x.requires_grad_(), lambda: x.add_(1),
                  lambda: x.tolist(), lambda: x.__setitem__(1, 9.0), lambda: x.tolist(),
                  lambda: x._version, lambda: (x * 2).is_inference(), lambda: x.view(2).is_inference(),
                  lambda: x.detach().is_inference(), lambda: x.clone().is_inference()):
            try:
                out.append(repr(f()))
            except RuntimeError as exc:
                out.append(str(exc))
        with lib.no_grad():
            with lib.inference_mode(False):
                out.append((lib.is_inference_mode_enabled(), lib.is_grad_enabled()))
        return out

    assert run(torch) == run(torch_ref)


def test_inference_mode_is_per_thread():
    # entered in another thread and never left: this thread's tensors stay normal (PyTorch's
    # InferenceMode is thread-local); the fuzzer's thread programs do exactly this
    import threading

    import scalargrad as torch

    t = threading.Thread(target=lambda: torch.inference_mode().__enter__())
    t.start()
    t.join()
    x = torch.tensor(2.0, requires_grad=True)
    assert not torch.is_inference_mode_enabled()
    assert not torch.tensor(1.0).is_inference() and not (x * 2).is_inference()
    y = torch.tensor(2.0)
    y.add_(1)
    (x / torch.tensor(3.0)).backward()
    assert y.item() == 3.0 and x.grad.item() == torch.tensor(1 / 3).item()
    with torch.inference_mode():
        inside = torch.tensor(1.0)
        other = []
        t = threading.Thread(target=lambda: other.append(torch.tensor(1.0).is_inference()))
        t.start()
        t.join()
    assert inside.is_inference() and other == [False]


def _views_of_normal_tensors(lib) -> list:
    """Views, detach and .data made inside inference mode of normal tensors (a non-leaf and a
    leaf that require grad), then used outside it."""
    out = []
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    with lib.inference_mode():
        views = {"b[:1]": b[:1], "a[1:]": a[1:], "b.view(2, 1)": b.view(2, 1)}
        others = {"b.detach()": b.detach(), "b.data": b.data}
    for name, t in {**views, **others}.items():
        out.append((name, t.is_inference(), t.requires_grad, t.grad_fn is None, t.is_leaf))
    heard = []
    v = views["b[:1]"]
    v.register_hook(lambda g: heard.append(g.tolist()))
    (v * 3).sum().backward()  # the edge to the view leads nowhere: nothing reaches v or a
    out.append(("backward", a.grad, v.grad, heard))
    try:
        lib.autograd.grad((v * 3).sum(), v)
    except RuntimeError as e:
        out.append(("grad", str(e)))
    try:
        v.add_(1)
    except RuntimeError as e:
        out.append(("add_", str(e)))
    with lib.inference_mode():
        v.add_(1)  # allowed inside the mode, written through to b
    out.append(("in the mode", b.tolist()))
    return out


@pytest.mark.no_sympy_check  # the backward reaches no leaf, as in PyTorch
def test_views_of_normal_tensors_in_the_mode():
    got = _views_of_normal_tensors(torch)
    assert got[:5] == [("b[:1]", False, True, True, True), ("a[1:]", False, True, True, True),
                       ("b.view(2, 1)", False, True, True, True), ("b.detach()", False, False, True, True),
                       ("b.data", False, False, True, True)]
    assert got[5] == ("backward", None, None, [])
    assert got[6][1].startswith("The differentiated Tensor at index 0 appears to not have been used in the graph")
    assert got[7][1].startswith("A view was created in inference mode and is being modified inplace in normal mode")
    assert got[8] == ("in the mode", [2.0, 2.0])


@pytest.mark.no_sympy_check
def test_views_of_normal_tensors_match_pytorch(torch_ref):
    assert _views_of_normal_tensors(torch) == _views_of_normal_tensors(torch_ref)


def test_in_place_change_of_an_inference_tensor_recorded_outside_the_mode_as_pytorch(torch_ref):
    """``x.mul_(w)`` with ``x`` an inference tensor and ``w`` requiring grad, outside the mode:
    PyTorch saves an in-place op's ``self`` after the kernel, whose version bump refuses the
    inference tensor first (scalargrad gave the saving error); an inference ``other`` is saved
    before the kernel, and its saving error comes first in both."""

    def run(L):
        out = []
        for src in ("x.mul_(w)", "x.add_(w * 2)", "x.div_(w)", "w2 = w * 1; w2.mul_(x)", "x.addcmul_(w, w)"):
            with L.inference_mode():
                x = L.tensor([1.0, 2.0]) * 2
            w = L.tensor([0.5, 3.0], requires_grad=True)
            try:
                exec(src, {"x": x, "w": w})
                out.append(("ok", x.tolist()))
            except RuntimeError as e:
                out.append(str(e).split(" (Triggered")[0])
        return out

    assert run(torch) == run(torch_ref)


def _views_of_an_inference_tensor(L) -> list:
    """PyTorch's test_inference_mode_inf_tensor_in_normal_mode_view_op, over every kind of view:
    a view of an inference tensor (in or out of the mode, requiring grad or not) is an inference
    tensor over the same memory, neither an autograd view nor recorded."""
    res = []
    for requires_grad in (True, False):
        with L.inference_mode():
            c = L.ones(2, 3, requires_grad=requires_grad)
            i = c.view(-1)
            res.append((L.is_inference(i), i.requires_grad, i._is_view(), i.is_leaf))
        for f in (lambda c: c.view(-1), lambda c: c[0], lambda c: c.t(), lambda c: c.expand(2, 2, 3),
                  lambda c: c.split(1)[0], lambda c: c.unbind()[1], lambda c: c.view_as(c), lambda c: c.narrow(1, 0, 2),
                  lambda c: c.reshape(3, 2), lambda c: c.diagonal(), lambda c: c.chunk(2, 1)[1],
                  lambda c: c.permute(1, 0), lambda c: c[:, 1:]):
            o = f(c)
            res.append((L.is_inference(o), o.requires_grad, o._is_view(), o.is_leaf, o.grad_fn is None,
                        o.data_ptr() - c.data_ptr()))
        o = c * 2  # not a view: recorded when c requires grad
        res.append((L.is_inference(o), o.requires_grad, o.grad_fn is None))
    return res


def test_views_of_an_inference_tensor_as_pytorchs(torch_ref):
    assert _views_of_an_inference_tensor(torch) == _views_of_an_inference_tensor(torch_ref)
