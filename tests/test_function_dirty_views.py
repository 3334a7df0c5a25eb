"""autograd.Function marking dirty a view: PyTorch's refusals, in PyTorch's order.

From PyTorch's own test_autograd.py (test_custom_function_mark_output_view_of_intermediate,
test_custom_function_inplace_on_non_default_view, test_custom_function_inplace_on_view_of_leaf):
each case runs on scalargrad and, under ``torch_ref``, on PyTorch 2.13 with the same assertions.
"""

from __future__ import annotations

import warnings

import pytest

import scalargrad


@pytest.fixture(params=["scalargrad", "torch"])
def L(request):
    if request.param == "torch":
        return request.getfixturevalue("torch_ref")
    return scalargrad


def _marks_dirty(L, make):
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            out = make(inp)
            ctx.mark_dirty(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g

    return F


def test_a_view_made_inside_forward_is_not_an_input(L):
    # a view of a temporary, marked dirty: an error (a non-view non-input only warns)
    F = _marks_dirty(L, lambda inp: inp.clone().view_as(inp))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch raises without the non-input warning first
        with pytest.raises(RuntimeError, match=r"^ctx\.mark_dirty\(\) received a tensor that was not an input\. "
                                               r"Only input Tensors that have been mutated should be passed"):
            F.apply(L.tensor([1.0], requires_grad=True).clone())


def test_an_output_of_split_changed_in_forward_is_a_multiple_views_error(L):
    # the MULTI_OUTPUT_NODE check comes before the view-of-a-leaf one, and names the split node
    # though forward changed the view in place first
    F = _marks_dirty(L, lambda inp: inp.add_(1))
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b, _ = a.split_with_sizes([1, 1], dim=0)
    with pytest.raises(RuntimeError) as e:
        F.apply(b)
    assert str(e.value) == ("Output 0 of SplitWithSizes is a view and is being modified inplace. This view is the "
                            "output of a function that returns multiple views. Such functions do not allow the "
                            "output views to be modified inplace. You should replace the inplace operation by an "
                            "out-of-place one.")
    with pytest.raises(RuntimeError, match=r"^a view of a leaf Variable that requires grad is being used in an "
                                           r"in-place operation\.$"):
        F.apply(a.view_as(a))


@pytest.mark.parametrize("leaf_base", [True, False])
def test_a_dirty_view_among_several_outputs_is_refused_first(L, leaf_base):
    # set_history checks a view returned among several outputs before the rebase (whose
    # view-of-a-leaf error scalargrad gave: fuzz functions:12041:216); the dirty view is counted
    # as changed (the version moves on) though the call fails
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(1)
            ctx.mark_dirty(x)
            return x, y * 2

        @staticmethod
        def backward(ctx, a, b):
            return a, b

    v0 = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    base = v0 if leaf_base else v0 * 1
    v = base[0]
    with pytest.raises(RuntimeError, match=r"^If your Function modifies inplace an input that is a view of another "
                                           r"Tensor, your Function cannot return more than one Tensor\. This is not "
                                           r"supported by the current autograd engine\. You should either make sure"):
        F.apply(v, L.tensor([1.0, 1.0], requires_grad=True))
    assert (v._version, base._version, v.tolist()) == (2, 2, [2.0, 3.0])
