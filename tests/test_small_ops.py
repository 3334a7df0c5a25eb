"""Small tensor ops real programs use (issue 23), each against live PyTorch 2.13: ``dim_order``'s
ambiguity checks, ... Every case compares values, dtype, strides and node names, or the refusal's
type and first line (``program_outcome.described``); only data movement and exact arithmetic, so
the figures are the same on every processor."""

from __future__ import annotations

import pytest
from program_outcome import described

import scalargrad
from scalargrad.errors import Unsupported

LAYOUTS = [
    lambda t: t.empty(2, 3, 5, 7), lambda t: t.empty(2, 3, 5, 7).transpose(1, 2),
    lambda t: t.empty(2, 3, 5, 7, memory_format=t.channels_last), lambda t: t.empty(1, 2, 3, 4),
    lambda t: t.empty(2, 1, 3), lambda t: t.empty(4, 4)[:, ::4], lambda t: t.empty(3).expand(2, 3),
    lambda t: t.empty(2, 3, 1, 1, memory_format=t.channels_last), lambda t: t.empty(5),
    lambda t: t.empty(2, 3).t(), lambda t: t.empty(3, 3)[::2, ::2], lambda t: t.empty(()),
]
CHECKS = [
    lambda t: False, lambda t: True, lambda t: [t.contiguous_format, t.channels_last],
    lambda t: [t.channels_last], lambda t: [], lambda t: "ILLEGAL", lambda t: [t.channels_last, 3],
    lambda t: [t.preserve_format],
]


@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
def test_dim_order(torch_ref, layout):
    for check in CHECKS:
        def call(t, make=LAYOUTS[layout], check=check):
            return make(t).dim_order(ambiguity_check=check(t))
        assert described(call, scalargrad) == described(call, torch_ref)


NARROW_ARGS = [(1, 1, 2), (-1, -2, 2), (0, 0, 1), (5, 0, 1), (-3, 0, 1), (2, 0, 1), (1, -4, 1), (1, 3, 0), (1, 4, 0),
               (1, 0, -1), (1, -1, 2), (1, 1.0, 1), (0, -2, 2)]


@pytest.mark.parametrize("method", ["narrow", "narrow_copy"])
def test_narrow_and_narrow_copy(torch_ref, method):
    for args in NARROW_ARGS:
        def call(t, args=args):
            x = t.arange(6.0).reshape(2, 3).requires_grad_()
            y = getattr(x, method)(*args)
            node = y.grad_fn
            saved = {n: getattr(node, n) for n in dir(node) if n.startswith("_saved")} if node else None
            (y * t.arange(1.0, y.numel() + 1).reshape(y.shape)).sum().backward()
            return y, saved, x.grad
        assert described(call, scalargrad) == described(call, torch_ref)

    def others(t):
        x = t.arange(24).reshape(2, 3, 4).transpose(0, 2)  # a non-contiguous input: the copy is contiguous
        return (t.narrow_copy(x, 1, t.tensor(1), 2), x.narrow_copy(dim=2, start=-1, length=1),
                t.tensor(1.0).narrow_copy(0, 0, 1))
    assert described(others, scalargrad) == described(others, torch_ref)


@pytest.mark.no_sympy_check  # PyTorch's gradient there is not calculus's (zeros): reproduced on purpose
def test_narrow_copy_backward_of_a_negative_start_as_pytorchs(torch_ref):
    # slice_backward_wrapper(grad, sizes, dim, start, start + length): from a negative start to an end
    # at or past 0 it slices nothing (PyTorch's error, or for length 1 a zero gradient)
    for start, length in ((-2, 2), (-1, 1), (-3, 2), (-3, 3), (-2, 0)):
        def call(t, start=start, length=length):
            x = t.arange(6.0).reshape(2, 3).requires_grad_()
            x.narrow_copy(-1, start, length).sum().backward()
            return x.grad
        assert described(call, scalargrad) == described(call, torch_ref)


EMPTY_STRIDED = [((2, 3), (1, 2)), ((2, 3), (3,)), ((2,), (-1,)), ((0, 3), (7, 7)), ((1, 3), (9, 1)), ([2, 3], [1, 2]),
                 ((2, 3, 4), (1, 8, 2)), ((-1,), (1,)), ((2.0,), (1,)), ((2,), (1.5,)), ((), ())]


def test_empty_strided(torch_ref):
    for size, stride in EMPTY_STRIDED:
        def call(t, size=size, stride=stride):
            x = t.empty_strided(size, stride, dtype=t.float64, requires_grad=True)
            return x.shape, x.stride(), x.dtype, x.requires_grad, x.is_contiguous(), (x.zero_() + 1).stride()
        assert described(call, scalargrad) == described(call, torch_ref)


@pytest.mark.parametrize("size, stride", [((2, 2), (1, 1)), ((2, 3), (4, 1)), ((3,), (2,))])
def test_empty_strided_overlapping_or_with_gaps_refused_by_name(size, stride):
    with pytest.raises(Unsupported, match=r"^torch\.empty_strided with strides whose elements"):
        scalargrad.empty_strided(size, stride)


TINY = [1.0, 0.0, -0.0, -1.0, 1e-45, 3.4028234663852886e38, float("inf"), float("-inf"), float("nan"), 2.0 ** -126,
        5e-324, 1.7976931348623157e308, 65504.0, 6e-8]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_nextafter_bits(torch_ref, dtype):
    # every ordered pair of the edge values: steps across zero, subnormals, the largest finite, infinities, nan
    def call(t):
        a = t.tensor([x for x in TINY for _ in TINY], dtype=getattr(t, dtype))
        b = t.tensor([y for _ in TINY for y in TINY], dtype=getattr(t, dtype))
        r = t.nextafter(a, b)
        return [repr(v) for v in r.tolist()], r.dtype
    assert described(call, scalargrad) == described(call, torch_ref)


def test_nextafter_promotion_errors_and_gradient(torch_ref):
    def call(t):
        a = t.tensor([1.0, 2.0, float("nan"), 0.0, 3.0], requires_grad=True)
        b = t.tensor([1.0, 3.0, 1.0, -0.0, -1.0], dtype=t.float64, requires_grad=True)
        r = t.nextafter(a, b)
        (r * t.arange(1.0, 6.0)).sum().backward()
        x = t.tensor([1.0, 0.0])
        x.nextafter_(t.tensor([2.0, 2.0], dtype=t.float64))
        return r, r.grad_fn._saved_other, a.grad, b.grad, x, t.nextafter(t.tensor([1, 0]), t.tensor(2.0))

    assert described(call, scalargrad) == described(call, torch_ref)
    for bad in (lambda t: t.nextafter(t.tensor([1.0]), 2.0), lambda t: t.nextafter(t.tensor([1]), t.tensor([2])),
                lambda t: t.tensor([True]).nextafter(t.tensor([False]))):
        assert described(bad, scalargrad) == described(bad, torch_ref)


VIEW_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8"]
VIEW_SOURCES = [
    lambda t: t.tensor([[1.0, -2.5, 0.0, -0.0], [3e38, 1e-45, float("inf"), -7.0]]),
    lambda t: t.tensor([[1.0, -2.5, 0.0, -0.0], [1e308, 5e-324, float("-inf"), 7.0]], dtype=t.float64),
    lambda t: t.tensor([[1, -2, 0, 65504], [-65504, 6e-8, 3, 0.5]], dtype=t.float16),
    lambda t: t.tensor([[1, -2, 0, 3e38], [-1e-40, 2.5, 3, 0.5]], dtype=t.bfloat16),
    lambda t: t.tensor([[1, -2, 0, 2**62], [-(2**63), 12345, 3, 5]]),
    lambda t: t.tensor([[1, -2, 0, 2**31 - 1], [-(2**31), 12345, 3, 5]], dtype=t.int32),
    lambda t: t.tensor([[1, -2, 0, 32767], [-32768, 12345, 3, 5]], dtype=t.int16),
    lambda t: t.tensor([[1, -2, 0, 127], [-128, 45, 3, 5]], dtype=t.int8),
    lambda t: t.tensor([[1, 2, 0, 255], [128, 45, 3, 5]], dtype=t.uint8),
    lambda t: t.tensor([[True, False, True, True], [False, False, True, False]]),
]
VIEW_LAYOUTS = [lambda x: x, lambda x: x.t(), lambda x: x[:, 1:3], lambda x: x[:, 2:], lambda x: x[:1, :3],
                lambda x: x[0], lambda x: x[0, 0], lambda x: x[:1].expand(3, 4)]


@pytest.mark.parametrize("source", range(len(VIEW_SOURCES)))
def test_view_dtype_reinterprets_bits(torch_ref, source):
    for dtype in VIEW_DTYPES + ["bool"]:
        for layout in VIEW_LAYOUTS:
            def call(t, dtype=dtype, layout=layout):
                x = layout(VIEW_SOURCES[source](t))
                y = x.view(getattr(t, dtype))
                return y, y.storage_offset(), y.requires_grad, y._is_view()
            want = described(call, torch_ref)
            if dtype == "bool" and want[0] != "RuntimeError":
                continue  # bytes read as bool: only 0 and 1 are values scalargrad's bool holds (refused below)
            assert described(call, scalargrad) == want, (source, dtype)


def test_view_dtype_alias_keyword_and_refusals(torch_ref):
    def same(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.view(dtype=t.float32)
        return y, y is x, y.requires_grad, y._version, x.view(t.int32).grad_fn
    assert described(same, scalargrad) == described(same, torch_ref)
    x = scalargrad.tensor([1.0, 2.0])
    base_view, y = x[:1], x.view(scalargrad.int32)
    for write in (lambda: x.add_(1), lambda: y.add_(1), lambda: base_view.zero_(), lambda: y[1:].fill_(3)):
        with pytest.raises(Unsupported, match="^writing into a tensor that shares memory with a view of it as another"):
            write()
    assert x.tolist() == [1.0, 2.0] and y.tolist() == [1065353216, 1073741824]
    for refused in (lambda: scalargrad.tensor([1.0, float("nan")]).view(scalargrad.int32),
                    lambda: scalargrad.tensor([2, 1], dtype=scalargrad.uint8).view(scalargrad.bool),
                    lambda: scalargrad.tensor([1.0, 2.0]).view(scalargrad.complex64)):
        with pytest.raises(Unsupported, match=r"view\((dtype|torch\.bool)\)"):
            refused()


EINSUM_CALLS = [
    lambda t, a, b: t.einsum(a, [0, 1], b, [1, 2], [0, 2]), lambda t, a, b: t.einsum(a, [0, 1], b, [1, 2]),
    lambda t, a, b: t.einsum(a, [30, 1], [1, 30]), lambda t, a, b: t.einsum(a, [..., 1], [1]),
    lambda t, a, b: t.einsum(a, [0, 1], a, [0, 1], [0]), lambda t, a, b: t.einsum(a, [0, 60]),
    lambda t, a, b: t.einsum(a, [0, "x"]), lambda t, a, b: t.einsum(a), lambda t, a, b: t.einsum("ij"),
    lambda t, a, b: t.einsum(5, a), lambda t, a, b: t.einsum("ij,jk->ik", [a, b]),
    lambda t, a, b: t.einsum(a, [0, 0]),
]


@pytest.mark.parametrize("call", range(len(EINSUM_CALLS)))
def test_einsum_sublist_format(torch_ref, call):
    def run(t):
        a = t.arange(6.0).reshape(2, 3).requires_grad_()
        b = t.arange(12.0).reshape(3, 4)
        out = EINSUM_CALLS[call](t, a, b)
        out.sum().backward()
        return out, a.grad
    assert described(run, scalargrad) == described(run, torch_ref)


POISSON_RATES = [0.0, 1e-3, 0.5, 3.0, 9.99, 10.0, 10.5, 37.2, 150.0, 1e4, 2.5e7]


@pytest.mark.parametrize("seed", [0, 1, 7, 123])
def test_poisson_continues_pytorchs_stream(torch_ref, seed):
    # ATen's sample_poisson, element by element: the draws and what the generator gives next
    def call(t):
        g = t.Generator().manual_seed(seed)
        rates = t.tensor(POISSON_RATES * 3)
        out = (t.poisson(rates, g), t.poisson(rates.double().reshape(3, 11).t(), generator=g),
               t.poisson(t.tensor(4.5), g))
        return out + (t.rand(3, generator=g, dtype=t.float64),)
    assert described(call, scalargrad) == described(call, torch_ref)


def test_poisson_refusals(torch_ref):
    for bad in (lambda t: t.poisson(t.tensor([1, 2])), lambda t: t.poisson(t.tensor([1.0, -1.0])),
                lambda t: t.poisson(t.tensor([float("nan")])), lambda t: t.poisson(t.tensor([float("inf")])),
                lambda t: t.poisson([1.0])):
        assert described(bad, scalargrad) == described(bad, torch_ref)
    with pytest.raises(Unsupported, match="torch.poisson of a tensor that requires grad"):
        scalargrad.poisson(scalargrad.ones(2, requires_grad=True))


def test_new_empty_strided(torch_ref):
    def call(t):
        x = t.ones(2, dtype=t.float64, requires_grad=True)
        a = x.new_empty_strided((2, 3), (1, 2))
        b = x.new_empty_strided([2, 3], [3, 1], dtype=t.int32, requires_grad=False)
        return a.shape, a.stride(), a.dtype, a.requires_grad, b.dtype, b.stride()
    assert described(call, scalargrad) == described(call, torch_ref)
