"""Basic indexing (ints, slices, None, Ellipsis) against PyTorch, over every combination of up
to three items from a pool that mixes them: the result's shape, strides, offset and values,
its gradient, and an item assignment through the same index (issue 22: with two or more
``None`` before a slice the slice was skipped, so ``x[None, None, 1:3]`` was all of ``x``)."""

from __future__ import annotations

import itertools

import pytest

import scalargrad as sg
from tests.program_outcome import outcome

from graph_listing import first_edge_chain

POOL = [None, Ellipsis, 0, -1, slice(1, 3), slice(None, None, 2), slice(None), slice(2, None), slice(None, -1)]
SHAPES = [(4, 5), (3, 4, 5)]


def _indices():
    for n in (1, 2, 3):
        for combo in itertools.product(POOL, repeat=n):
            if combo.count(Ellipsis) > 1:
                continue
            yield combo


def _run(lib, shape, index):
    x = lib.arange(float(shape[0] * shape[1] * (shape[2] if len(shape) > 2 else 1))).reshape(shape).requires_grad_()
    y = x[index]
    w = lib.arange(float(y.numel())).reshape(y.shape) + 1
    (y * w).sum().backward()
    z = lib.zeros(shape)
    z[index] = 7.0
    return (tuple(y.shape), y.stride(), y.storage_offset(), y.detach().flatten().tolist(),
            x.grad.flatten().tolist(), z.flatten().tolist())


# the gradients here are weights read back through the selection; SymPy proves indexing's
# backward in the hand test below and in test_symbolic_tensors, not 1,600 times over
@pytest.mark.no_sympy_check
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("first", POOL, ids=repr)
def test_basic_index_as_pytorch(torch_ref, shape, first):
    for index in _indices():
        if index[0] is not first and index[0] != first:
            continue
        try:
            want = _run(torch_ref, shape, index)
        except IndexError as exc:
            with pytest.raises(IndexError) as got:
                _run(sg, shape, index)
            assert str(got.value) == str(exc), index
            continue
        assert _run(sg, shape, index) == want, index


def test_two_nones_then_a_slice_by_hand():
    # the instances, with their figures worked out by hand: rows 1 and 2 of a 4x4
    x = sg.arange(16.0).reshape(4, 4).requires_grad_()
    y = x[None, None, 1:3]
    assert list(y.shape) == [1, 1, 2, 4]
    assert y.flatten().tolist() == [4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
    y.sum().backward()
    assert x.grad.tolist() == [[0.0] * 4, [1.0] * 4, [1.0] * 4, [0.0] * 4]
    z = sg.zeros(4, 4)
    z[None, None, ::2] = 1.0
    assert z.tolist() == [[1.0] * 4, [0.0] * 4, [1.0] * 4, [0.0] * 4]


# A Python bool (or a 0-dim bool tensor) in an index: PyTorch adds a dimension of size 1 (True)
# or 0 (False) there and indexes it as an advanced index (issue 22: scalargrad took True as the
# integer 1). "B" stands for a 0-dim bool tensor, "I" for an index tensor.
BOOL_POOL = [True, False, "B", None, Ellipsis, 0, slice(1, 3), "I"]


def _item(lib, it):
    if it == "B" and isinstance(it, str):
        return lib.tensor(True)
    if it == "I" and isinstance(it, str):
        return lib.tensor([1, 0])
    return it


def _run_bools(lib, index):
    index = tuple(_item(lib, it) for it in index)
    x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
    out = []
    try:
        y = x[index]
        w = lib.arange(float(y.numel())).reshape(y.shape) + 1
        (y * w).sum().backward()
        out += [tuple(y.shape), y.stride(), y.detach().flatten().tolist(), y.grad_fn.name(),
                x.grad.flatten().tolist()]
    except IndexError as exc:
        out.append(("IndexError", str(exc)))
    v = lib.tensor(-2.5, requires_grad=True)
    z = x.detach() * 1
    z.requires_grad_()
    z = z * 1
    try:
        z[index] = v * 2
        (z * (lib.arange(24.0).reshape(2, 3, 4) + 1)).sum().backward()
        out += [z.detach().flatten().tolist(), v.grad.item()]
    except IndexError as exc:
        out.append(("IndexError", str(exc)))
    with lib.no_grad():
        z = lib.zeros(2, 3, 4)
        try:
            z[index] = 7.0
            out.append(z.flatten().tolist())
        except IndexError as exc:
            out.append(("IndexError", str(exc)))
    return out


# ATen lays out ``x[index tensors]`` by a TensorIterator over the restrided source and the index
# tensors (each viewed as [1] * before + shape + [1] * after): the result follows the source's
# memory order, empty results included (fuzzer groups index-bool-scalar and index-two-none, 8819)
_LAYOUTS = [
    ("x", "[1, None, None, False]"), ("x", "[None, None, ..., False]"), ("x", "[1:3, None, 1, False]"),
    ("x", "[:3, False]"), ("x.transpose(0, 2)", "[torch.tensor([0, 0]), None, None]"),
    ("x.transpose(0, 2)", "[None, None, None, torch.tensor([[False, True, True], [True, False, True],"
                          " [True, True, False], [False, False, True]])]"),
    ("x[0, :, :1]", "[torch.tensor([[True], [False], [True]])]"), ("x", "[torch.tensor([True, False])]"),
    ("x.permute(1, 2, 0)", "[torch.tensor([True, False, True]), None, None]"),
    ("x.reshape(2, 3, 2, 2)", "[torch.tensor([False, False]), -1:, :2, 1]"), ("x", "[0, None, False]"),
    ("x[:, :1]", "[torch.tensor([[False], [False]]), False]"), ("x", "[torch.tensor([1, 0]), :, torch.tensor([2, 3])]"),
    ("x.transpose(1, 2)", "[:, torch.tensor([[1, 0], [2, 3]])]"), ("x", "[..., torch.tensor([0, 1, 2]).expand(2, 3)]"),
]


@pytest.mark.parametrize("source, index", _LAYOUTS)
def test_advanced_index_result_layout_as_pytorch(torch_ref, source, index):
    def run(lib):
        x = lib.arange(24.0).reshape(2, 3, 4)
        y = eval(source + index, {"torch": lib, "x": x})  # the test's own expressions
        return tuple(y.shape), y.stride(), y.is_contiguous(), y.flatten().tolist()

    assert run(sg) == run(torch_ref)


@pytest.mark.no_sympy_check
def test_bool_in_an_index_as_pytorch(torch_ref):
    n = 0
    for k in (1, 2, 3):
        for combo in itertools.product(BOOL_POOL, repeat=k):
            if combo.count(Ellipsis) > 1 or not any(it is True or it is False or it == "B" for it in combo
                                                    if isinstance(it, (bool, str))):
                continue
            assert _run_bools(sg, combo) == _run_bools(torch_ref, combo), combo
            n += 1
    assert n > 300


SETITEM_DTYPE_CASES = [
    "x[L.tensor([True, False, True])] = L.tensor([0.5, 0.25])", "x[L.tensor([True, False, True])] = L.tensor(0.5)",
    "x[L.tensor(True)] = L.tensor([0.5])", "x[L.tensor([0])] = L.tensor(0.5)", "x[L.tensor([0])] = 0.5",
    "x[[0]] = L.tensor([0.5])", "x[L.tensor([0])] = L.tensor([1])", "x[0:1, False] = L.tensor([0.5])",
    "x[False] = L.tensor([0.5])", "x[L.tensor([0, 2])] = L.tensor([0.5], dtype=L.float64)",
]


@pytest.mark.no_sympy_check
@pytest.mark.parametrize("rg", [False, True])
def test_index_put_needs_the_values_dtype_as_pytorch(torch_ref, rg):
    """An advanced index writes with index_put_, which refuses a value of another dtype unless
    it dispatches to masked_fill_ (one bool mask, a one-element value)."""
    def run(L, case):
        x = L.zeros(3, dtype=L.float64, requires_grad=rg).clone()
        try:
            exec(case, {"L": L, "x": x})
        except RuntimeError as e:
            return str(e)
        return x.tolist()
    for case in SETITEM_DTYPE_CASES:
        assert run(sg, case) == run(torch_ref, case), case


WHOLE_INDICES = ["...", "(...,)", "slice(None)", "(slice(None), ...)", "slice(0, 100)", "(..., slice(None))", "None",
                 "True", "(Ellipsis, None)", "0", "slice(1, None)", "slice(-2, None)",
                 "slice(-100, 100)", "slice(None, 5)", "slice(0, 1)"]
WHOLE_VALUES = ["2.0", "L.tensor(-2.0)", "L.tensor([1.0, 2.0])", "L.tensor(3.0, requires_grad=True)",
                "L.tensor(3, dtype=L.int64)", "L.ones(1, 1, 2)", "L.ones(3)"]


def _assign_whole(L, index: str, value: str) -> list:
    out = []
    for base in ("leaf", "clone", "plain"):
        x0 = L.tensor([0.5, -1.0], requires_grad=base != "plain")
        x = x0.clone() if base == "clone" else x0
        try:
            x[eval(index)] = eval(value)
            out.append((x.tolist(), type(x.grad_fn).__name__ if x.grad_fn else None, x._version))
            if x.requires_grad:
                (x * L.tensor([3.0, 5.0])).sum().backward()
                out.append(x0.grad.tolist() if x0.grad is not None else None)
        except RuntimeError as e:
            out.append(str(e))
    return out


@pytest.mark.no_sympy_check
def test_assignment_to_the_whole_tensor_as_pytorch(torch_ref):
    """Ellipsis and full slices select the tensor itself in PyTorch (applySlice's shortcut):
    assigning is copy_/fill_ on it (CopyBackwards, FillBackward3, the leaf error), not a write
    through a view (CopySlices, the view-of-a-leaf error); a value is stripped of its leading 1s
    and expanded, as copy_to does."""
    for index in WHOLE_INDICES:
        for value in WHOLE_VALUES:
            assert _assign_whole(sg, index, value) == _assign_whole(torch_ref, index, value), (index, value)


@pytest.mark.no_sympy_check
def test_which_slices_are_the_whole_tensor_as_pytorch(torch_ref):
    """PyTorch's shortcut looks at the slice as given: start 0 or none, step 1 or none, stop at
    or past the size (so x[-2:] of a 2-element x is still a view)."""
    def run(L):
        out = []
        for n in (2, 1, 0):
            for s in [slice(0, 2), slice(0, 100), slice(-2, None), slice(-1, None), slice(0, None), slice(None, 2),
                      slice(0, 0), slice(1, None), slice(-100, 100), slice(None, -1), slice(0, 1)]:
                x = L.zeros(n, requires_grad=True)
                try:
                    x[s] = 1.0
                except RuntimeError as e:
                    out.append((n, str(s), str(e)))
        return out
    assert run(sg) == run(torch_ref)


@pytest.mark.no_sympy_check
def test_too_many_indices_is_checked_first_as_pytorch(torch_ref):
    """applySlicing counts the ints and slices before any item: more than the dimensions is
    'too many indices' (a 0-dim tensor with `...` raised Python's IndexError)."""
    def run(L):
        out = []
        for shape, index in [((), (Ellipsis, 0)), ((1, 1), (1, Ellipsis, -1, 0)), ((2,), (None, 5, 0)),
                             ((2,), (5, None)), ((), (None, Ellipsis)), ((), (0,)), ((3,), (Ellipsis, slice(1), 0))]:
            try:
                out.append(tuple(L.ones(shape)[index].shape))
            except IndexError as e:
                out.append(str(e))
        return out
    assert run(sg) == run(torch_ref)


@pytest.mark.no_sympy_check
def test_out_of_bounds_names_the_dimension_as_pytorch(torch_ref):
    """An int out of bounds is named by its place in the index (applySlicing's real_dim); an
    index tensor's by its place among the index tensors (ATen moves them to the front)."""
    cases = ["x[None, 5]", "x[..., 5]", "x[0, ..., 7]", "x[5]", "x[:, 5]", "x[None, None, 0, 9]", "x[..., None, 9]",
             "x[1, None, ..., -9]", "x[0, -2:-1, None, -5]", "x[0:1, 7]", "x[None, 0, L.tensor([0]), 9]",
             "x[L.tensor([0]), 9]", "x[0, L.tensor([5])]", "x[None, L.tensor([5])]", "x[..., L.tensor([5])]",
             "x[L.tensor([0]), :, L.tensor([7])]"]

    def run(L):
        out = []
        for c in cases:
            try:
                out.append(tuple(eval(c, {"x": L.zeros(2, 3, 4), "L": L}).shape))
            except IndexError as e:
                out.append(str(e))
        return out
    assert run(sg) == run(torch_ref)


EMPTY_DIM_INDEX = [
    "v0 = torch.zeros((0, 1, 2)); out = v0[torch.tensor([0]), 0, -2::3]",
    "v0 = torch.zeros((3, 3)); v3 = v0[2:2]; v3[[-2, 1], :2] = 2",
    "v0 = torch.zeros((0,)); v0[torch.tensor([0, 0])] = 0.0",
    "v0 = torch.zeros((0,)); out = v0[torch.tensor([], dtype=torch.long)]",
    "v0 = torch.zeros((2, 0)); out = v0[[5], [0]]",
    "v0 = torch.zeros((2, 3)); out = v0[[5], 7]",
    "v0 = torch.zeros((2, 3)); out = v0[[5], [7]]",
    "v0 = torch.zeros((2, 0)); out = v0[[1], :]",
    # index tensors that broadcast to no element (a False among them) read no index, so none is
    # checked; ones that do not broadcast raise the shape mismatch before any bound
    "v0 = torch.zeros((0, 2)).unsqueeze(0).expand(2, 0, 2); out = v0[-2:-1, torch.tensor([0]), False]",
    "v0 = torch.arange(6.).reshape(2, 3); out = v0[torch.tensor([5]), False]",
    "v0 = torch.arange(6.).reshape(2, 3); v0[torch.tensor([5]), False] = 1.0; out = v0",
    "v0 = torch.arange(6.).reshape(2, 3); out = v0[torch.tensor([5, 0, 1]), torch.tensor([0, 1])]",
    "v0 = torch.arange(6.).reshape(2, 3); out = v0[torch.tensor([5]), True]",
]


def test_index_tensor_into_an_empty_dimension_as_pytorch(torch_ref):
    # ATen applies ints and slices first, refuses an index tensor into a dimension of size 0
    # (AdvancedIndex), and checks the index tensors' elements only then
    def outcomes(mod):
        return [outcome(mod, src, read=lambda env: repr(env.get("out")), refusals=(IndexError,))
                for src in EMPTY_DIM_INDEX]

    assert outcomes(sg) == outcomes(torch_ref)


@pytest.mark.no_sympy_check
def test_a_whole_slice_in_a_tuple_is_skipped_as_written_as_pytorch(torch_ref):
    """Inside a tuple PyTorch's applySlice skips a slice only as written (start 0 or none, stop
    at or past the size, step 1): ``x[None, -2:]`` of a size-2 dim records a SliceBackward0 after
    the UnsqueezeBackward0, ``x[-2:, idx]`` an IndexBackward0 over a SliceBackward0."""
    def run(L):
        x = L.arange(12.0).reshape(2, 2, 3).requires_grad_()
        idx = L.tensor([-2, -2])
        return [first_edge_chain(y) for y in (x[None, -2:], x[None, 0:], x[None, 0:7], x[-2:4, idx], x[0:4, idx],
                                   x[[0], -2:], x[-2:2, 4:6], x[..., -3:], x[:, ::1, -3:3])]
    assert run(sg) == run(torch_ref)


@pytest.mark.no_sympy_check
def test_copy_slices_gradient_has_the_base_strides_as_pytorch(torch_ref):
    """CopySlices copies the gradient into new_empty_strided(base's sizes, base's strides): an
    item assignment or an in-place op on a view of a permuted clone hands back a gradient in that
    clone's strides, which the permute's backward then turns (autograd.grad returns it as it is;
    AccumulateGrad keeps it when only size-1 dims' strides differ)."""
    def run(L):
        out = []
        writes = [lambda c: c.__setitem__(slice(None, None, 2), 2.0),
                  lambda c: c.__setitem__((L.arange(c.shape[0]) % 2 == 0, slice(-1, 2)), -1.5),
                  lambda c: c.__setitem__((None, None, slice(None, None, 2)), 0.5),
                  lambda c: c[1:].mul_(3.0),
                  lambda c: c[1:].__setitem__((Ellipsis, 0), 1.0)]
        for perm, shape in (((1, 0, 2), (3, 2, 4)), ((2, 1, 0), (2, 1, 3)), ((0, 2, 1), (2, 4, 1))):
            for w in writes:
                x = L.arange(float(shape[0] * shape[1] * shape[2])).reshape(shape).requires_grad_()
                c = x.permute(perm).clone()
                w(c)
                y = (c * (L.arange(float(c.numel())).reshape(c.shape) + 1)).sum()
                g, = L.autograd.grad(y, [x], retain_graph=True)
                y.backward()
                out.append((g.stride(), g.flatten().tolist(), x.grad.stride(), x.grad.flatten().tolist()))
        return out
    assert run(sg) == run(torch_ref)


@pytest.mark.no_sympy_check
def test_an_index_out_of_bounds_where_nothing_is_walked_as_pytorch(torch_ref):
    """ATen checks an index tensor's elements inside its kernel's loop: when a dimension the
    index keeps is empty (a slice past the end, an empty dimension) nothing is read or written
    and nothing raises; an index into a dimension of size 0 is refused before that."""
    def run(L):
        out = []
        x = L.zeros(1, 3, 3, 2)
        y = L.zeros(0, 3)
        z = L.zeros(2, 0)
        w = L.zeros(2, 3)
        reads = [(x, (L.tensor([-2]), slice(3, -1))), (x, ([0, 0], slice(3, None), [9, 9])),
                 (y, (slice(None), L.tensor([4]))), (y, L.tensor([1])), (z, L.tensor([3])),
                 (z, (slice(None), L.tensor([3]))), (w, (slice(3, None), L.tensor([7]))),
                 (w, (L.tensor([3]), slice(3, None))), (w, (L.tensor([3]), slice(1, None))),
                 (w, (L.tensor([7]), False))]
        for t, idx in reads:
            for write in (False, True):
                c = t.clone()
                try:
                    if write:
                        c[idx] = 1.5
                        out.append(c.flatten().tolist())
                    else:
                        out.append(tuple(c[idx].shape))
                except IndexError as e:
                    out.append(str(e))
        return out
    assert run(sg) == run(torch_ref)


@pytest.mark.no_sympy_check
def test_assigning_a_number_to_all_of_a_0_dim_tensor_as_pytorch(torch_ref):
    """copy_to turns the number into a 0-dim tensor: into a 0-dim target the shapes are equal,
    so it is a copy_ (CopyBackwards), not the fill_ (FillBackward3) of a larger target."""
    def run(L):
        out = []
        for idx in (Ellipsis, (), None, (Ellipsis, None)):
            for val in (2, 0.5, True, L.tensor(1.5), L.tensor([1.5])):
                for shape in ((), (2,)):
                    x = L.full(shape, 3.0, requires_grad=True)
                    v = x.clone()
                    v[idx] = val
                    (v * 2).sum().backward()
                    out.append((v.grad_fn.name(), [(f.name() if f else None, i) for f, i in v.grad_fn.next_functions],
                                v.tolist(), x.grad.tolist()))
        return out
    assert run(sg) == run(torch_ref)


@pytest.mark.no_sympy_check
def test_index_put_checks_the_value_before_the_indices_as_pytorch(torch_ref):
    """index_put_ refuses a value of the wrong shape or dtype before its kernel meets an index
    out of bounds."""
    def run(L):
        out = []
        for rg in (False, True):
            x = L.zeros(1, 2, 1, 4, dtype=L.float64, requires_grad=rg).clone()
            for idx, val in ((L.tensor([0, 1, 0]), L.tensor([0.5])),
                             (L.tensor([0, 1, 0]), L.tensor([0.5, 1.5], dtype=L.float64)),
                             (L.tensor([0, 1, 0]), 2.0),
                             ((L.tensor([0, 1, 0]), slice(None), 0, L.tensor([9])), L.tensor(0.5))):
                try:
                    x[idx] = val
                    out.append("ok")
                except (IndexError, RuntimeError) as e:
                    out.append(f"{type(e).__name__}: {e}")
        return out
    assert run(sg) == run(torch_ref)
