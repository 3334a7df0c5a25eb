"""Quantized tensors (issue 23): torch.quint8, qint8 and qint32 tensors against live PyTorch 2.13.

Compared bit for bit: everything that moves stored integers (views, indexing, clone, int_repr),
dequantizing (one float32 or one double product, rounded: every processor alike), printing,
the parameters, PyTorch's errors and its once-per-process warning. Quantizing is compared bit for
bit only on numbers whose result does not depend on the kernel: ATen's per-tensor 8-bit kernel
(FBGEMM's AVX2 code) rounds ``x * inv + zero_point`` once, its scalar code (a processor without
AVX2, and every per-channel or qint32 tensor) rounds ``x * inv`` to float32 first; the numbers within
a float32 rounding of a tie, where the two differ, are checked against the documented x86-64 rule
by hand instead. ``ATEN_CPU_CAPABILITY`` does not choose FBGEMM's kernel (measured: the same
results under default, avx2 and none). Everything else on a quantized tensor is refused by
``Unsupported`` naming the op, never a dense kernel reading absent elements.
"""

from __future__ import annotations

import random
import struct
import warnings
from fractions import Fraction

import pytest

import scalargrad
from scalargrad._tensor import complex_numbers
from scalargrad._tensor.quantized import QuantizedRead, QuantizedTensor
from scalargrad.errors import Unsupported

X = [[-1.0, 0.0, 1.5], [1.0, 2.0, 3.25]]


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def test_pytorchs_once_per_process_deprecation_warning(torch_ref):
    from scalargrad._base import warn_once

    def warned(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.quantize_per_tensor(lib.tensor([1.0]), 0.1, 0, lib.quint8)
            lib.quantize_per_channel(lib.tensor([[1.0]]), lib.tensor([0.1]), lib.tensor([0]), 0, lib.qint8)
        return [(x.category.__name__, str(x.message)) for x in w]

    warn_once.forget("quantized creation")
    ours, theirs = warned(scalargrad), warned(torch_ref)
    if len(theirs) != 1:
        pytest.skip("PyTorch warned earlier in this process (once per process): this test runs first in its file")
    assert ours == theirs


def test_dtypes_and_schemes(torch_ref):
    def facts(lib):
        out = []
        for name in ("quint8", "qint8", "qint32", "quint4x2", "quint2x4"):
            d = getattr(lib, name)
            out.append((repr(d), str(d), type(d).__name__, d.itemsize, d.is_floating_point, d.is_complex,
                        repr(d.to_real()), isinstance(d, lib.dtype)))
            for attr in ("is_signed",):
                with pytest.raises(RuntimeError) as e:
                    getattr(d, attr)
                out.append(str(e.value))
            with pytest.raises(RuntimeError) as e:
                d.to_complex()
            out.append(str(e.value))
        for name in ("per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
                     "per_channel_affine_float_qparams"):
            s = getattr(lib, name)
            out.append((repr(s), str(s), type(s).__name__, isinstance(s, lib.qscheme)))
        with pytest.raises(RuntimeError) as e:
            lib.promote_types(lib.qint8, lib.float32)
        out.append(str(e.value))
        return out

    assert facts(scalargrad) == facts(torch_ref)


# each case: lib -> a quantized tensor (or a tuple of them) whose print and facts must be PyTorch's
CASES = {
    "quint8": lambda t: t.quantize_per_tensor(t.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 10, t.quint8),
    "qint8 2-d": lambda t: t.quantize_per_tensor(t.tensor(X), 0.25, 3, t.qint8),
    "qint32": lambda t: t.quantize_per_tensor(t.tensor([1e10, -3.5, 2.5, 123456.0]), 0.5, 7, t.qint32),
    "tensor parameters": lambda t: t.quantize_per_tensor(t.tensor(X), t.tensor(0.1), t.tensor(10), t.quint8),
    "float zero point tensor": lambda t: t.quantize_per_tensor(t.tensor(X), t.tensor(0.1), t.tensor(-1.7), t.qint8),
    "int scale": lambda t: t.quantize_per_tensor(t.tensor(X), 1, 0, t.quint8),
    "negative scale": lambda t: t.quantize_per_tensor(t.tensor(X), -0.1, 0, t.qint8),
    "infinities": lambda t: t.quantize_per_tensor(t.tensor([float("inf"), -float("inf"), 1e30, -1e30]), 0.1, 3,
                                                  t.qint8),
    "list": lambda t: t.quantize_per_tensor([t.tensor([-1.0, 0.0]), t.tensor([-2.0, 2.0])], t.tensor([0.1, 0.2]),
                                            t.tensor([10, 20]), t.quint8),
    "0-d": lambda t: t.quantize_per_tensor(t.tensor(1.3), 0.1, 0, t.quint8),
    "empty": lambda t: t.quantize_per_tensor(t.zeros(0, 3), 0.1, 0, t.quint8),
    "wide": lambda t: t.quantize_per_tensor(t.arange(12.0).reshape(2, 6) * 1000.5, 0.01, 0, t.qint32),
    "per channel": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([0.1, 0.2]), t.tensor([1, -2]), 0,
                                                    t.qint8),
    "per channel axis 1": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([0.1, 0.2, 0.3], dtype=t.float64),
                                                           t.tensor([0, 5, 9], dtype=t.int32), 1, t.quint8),
    "per channel qint32 3-d": lambda t: t.quantize_per_channel(t.arange(24.0).reshape(2, 3, 4) - 7.3,
                                                               t.tensor([0.5, 0.25, 0.125]), t.tensor([3, -1, 0]),
                                                               1, t.qint32),
    "transposed input": lambda t: t.quantize_per_tensor((t.arange(6.0).reshape(2, 3) / 7).t(), 0.01, 2, t.quint8),
    "channels last": lambda t: t.quantize_per_tensor(t.arange(12.0).reshape(2, 3, 2, 1).contiguous(
        memory_format=t.channels_last), 0.5, 0, t.quint8),
    "channels last per channel": lambda t: t.quantize_per_channel(t.arange(24.0).reshape(1, 2, 3, 4).contiguous(
        memory_format=t.channels_last), t.tensor([0.5, 1.0]), t.tensor([0, 1]), 1, t.quint8),
    "channels last 3d": lambda t: t.quantize_per_tensor(t.arange(16.0).reshape(1, 2, 2, 2, 2).contiguous(
        memory_format=t.channels_last_3d), 0.5, 0, t.quint8),
    "dynamic": lambda t: t.quantize_per_tensor_dynamic(t.tensor([-1.0, 0.0, 1.0, 2.0]), t.quint8, False),
    "per channel empty": lambda t: t.quantize_per_channel(t.zeros(2, 0), t.tensor([0.1, 0.2]), t.tensor([1, -2]), 0,
                                                          t.qint8),
}


def _Q(t):
    return t.quantize_per_tensor(t.tensor(X), 0.25, 3, t.qint8)


_QC = CASES["per channel"]
MOVES = {
    "t": lambda t: _Q(t).t(), "transpose": lambda t: t.transpose(_Q(t), 0, 1), "view": lambda t: _Q(t).view(3, 2),
    "view -1": lambda t: _Q(t).view(-1), "reshape": lambda t: t.reshape(_Q(t), (3, 2)),
    "flatten": lambda t: t.flatten(_Q(t)), "permute": lambda t: _Q(t).permute(1, 0),
    "unsqueeze": lambda t: _Q(t).unsqueeze(0), "squeeze": lambda t: t.squeeze(_Q(t).unsqueeze(0)),
    "contiguous": lambda t: _Q(t).t().contiguous(), "select": lambda t: _Q(t).select(0, 1),
    "narrow": lambda t: _Q(t).narrow(1, 0, 2), "expand": lambda t: _Q(t)[0:1].expand(3, 3),
    "row": lambda t: _Q(t)[0], "element": lambda t: _Q(t)[0, 1], "slice": lambda t: _Q(t)[:, 1:],
    "index list": lambda t: _Q(t)[[1, 0]], "mask": lambda t: _Q(t)[t.tensor([True, False])],
    "chunk": lambda t: _Q(t).chunk(2), "split": lambda t: t.split(_Q(t), 1), "unbind": lambda t: _Q(t).unbind(),
    "iterate": lambda t: tuple(_Q(t)), "clone": lambda t: t.clone(_Q(t)), "detach": lambda t: _Q(t).detach(),
    "data": lambda t: _Q(t).data, "flip": lambda t: _Q(t).flip(0),
    "index_select": lambda t: _Q(t).index_select(1, t.tensor([2, 0])),
    "cat": lambda t: t.cat([_Q(t), _Q(t).flip(1)], 1), "stack": lambda t: t.stack((_Q(t), _Q(t)), -1),
    "concat": lambda t: t.concat([_Q(t)] * 3),
    "channels last permuted": lambda t: CASES["channels last"](t).permute(0, 2, 3, 1),
    "per channel clone": lambda t: _QC(t).clone(), "per channel detach": lambda t: _QC(t).detach(),
}


def _facts(q, lib) -> list:
    """What a program can see of a quantized tensor."""
    if isinstance(q, tuple):
        return [_facts(e, lib) for e in q]
    out = [repr(q), str(q), type(q).__name__, q.is_quantized, repr(q.dtype), repr(q.qscheme()), tuple(q.shape),
           q.stride(), q.storage_offset(), q.is_contiguous(), q.numel(), q.dim(), q.element_size(), q.itemsize,
           q.nbytes, q.is_floating_point(), q.is_complex(), q.requires_grad, q.grad_fn, q.is_leaf, q.type(),
           repr(q.device), repr(q.layout), repr(q.int_repr()), q.int_repr().stride(), repr(q.dequantize()),
           q.dequantize().stride(), repr(lib.dequantize(q)), repr(lib.int_repr(q))]
    if q.qscheme() is lib.per_tensor_affine:
        out += [q.q_scale(), type(q.q_scale()).__name__, q.q_zero_point(), lib.q_scale(q), lib.q_zero_point(q)]
    else:
        out += [repr(q.q_per_channel_scales()), repr(q.q_per_channel_zero_points()), q.q_per_channel_axis(),
                lib.q_per_channel_axis(q)]
    if q.numel() == 1:
        out += [q.item(), float(q), int(q), bool(q), f"{q:.3f}" if q.dim() == 0 else None]
    return out


@pytest.mark.parametrize("case", list(CASES) + list(MOVES))
def test_quantized_tensors_print_and_read_as_pytorchs(torch_ref, case):
    make = CASES.get(case) or MOVES[case]
    assert _facts(_quiet(make, scalargrad), scalargrad) == _facts(_quiet(make, torch_ref), torch_ref)


def _reference(x: float, scale: float, zp: int, lo: int, hi: int, fused: bool) -> int:
    """The documented x86-64 rule, by exact rationals: inv = 1.0f / (float)scale; fused:
    nearbyint of (x * inv + zp) rounded once to float32, else of (float)zp + (float)(x * inv)."""
    inv = _f32(1.0 / _f32(scale))
    if fused:
        t = _f32(float(Fraction(x) * Fraction(inv) + zp))  # exact rational, one rounding (zp small)
    else:
        t = _f32(float(Fraction(_f32(float(zp))) + Fraction(_f32(x * inv))))
    return max(lo, min(hi, round(t)))


def test_quantizing_random_numbers_matches_pytorch_where_every_kernel_agrees(torch_ref):
    """Seeded random float32 numbers (many near a tie), per tensor and per channel, 8 and 32 bits:
    bit for bit where both of ATen's roundings give the same integer; the documented rule
    (``_reference``) everywhere."""
    rng = random.Random(11)
    compared = 0
    for _ in range(60):
        scale = rng.choice([0.1, 0.3, 0.5, 0.25, 0.07, 0.013, 1 / 3])
        dt = rng.choice(["quint8", "qint8", "qint32"])
        zp = rng.randint(0, 9) if dt == "quint8" else rng.randint(-9, 9) + (rng.choice([0, 2 ** 20 + 1, 2 ** 25 + 3])
                                                                          if dt == "qint32" else 0)
        xs = [_f32(rng.choice([rng.uniform(-30, 30), rng.randint(-60, 60) * scale / 2]))
              for _ in range(20)]
        lo, hi = {"quint8": (0, 255), "qint8": (-128, 127), "qint32": (-2 ** 31, 2 ** 31 - 1)}[dt]
        ours = scalargrad.quantize_per_tensor(scalargrad.tensor(xs), scale, zp, getattr(scalargrad, dt))
        theirs = _quiet(torch_ref.quantize_per_tensor, torch_ref.tensor(xs), scale, zp, getattr(torch_ref, dt))
        ours_c = scalargrad.quantize_per_channel(scalargrad.tensor([xs]), scalargrad.tensor([scale]),
                                                 scalargrad.tensor([zp]), 0, getattr(scalargrad, dt))
        theirs_c = _quiet(torch_ref.quantize_per_channel, torch_ref.tensor([xs]), torch_ref.tensor([scale]),
                          torch_ref.tensor([zp]), 0, getattr(torch_ref, dt))
        fused = dt != "qint32"
        for got, want, per_tensor in ((ours.int_repr().tolist(), theirs.int_repr().tolist(), True),
                                      (ours_c.int_repr().tolist()[0], theirs_c.int_repr().tolist()[0], False)):
            for x, g, w in zip(xs, got, want):
                assert g == _reference(x, scale, zp, lo, hi, fused and per_tensor), (x, scale, zp, dt)
                if _reference(x, scale, zp, lo, hi, True) == _reference(x, scale, zp, lo, hi, False):
                    assert g == w, (x, scale, zp, dt, per_tensor)
                    compared += 1
        # dequantizing: one float32 product (per tensor), a double product rounded (per channel), every processor
        assert ours.dequantize().tolist() == theirs.dequantize().tolist()
        assert ours_c.dequantize().tolist() == theirs_c.dequantize().tolist()
    assert compared > 2000


def test_dynamic_parameters_as_pytorchs(torch_ref):
    """quantize_per_tensor_dynamic's scale and zero point (ATen's ChooseQuantizationParams, double
    and float arithmetic, every processor alike) on seeded random tensors of many magnitudes: all
    positive, all negative, zeros, tiny (the small-scale cut-off), reduce_range."""
    rng = random.Random(5)

    def run(lib, xs, dt, rr):
        q = _quiet(lib.quantize_per_tensor_dynamic, lib.tensor(xs), getattr(lib, dt), rr)
        return q.q_scale(), q.q_zero_point(), q.int_repr().tolist()

    for i in range(60):
        xs = [rng.uniform(-1, 1) * 10 ** rng.randint(-7, 3) for _ in range(rng.randint(1, 6))]
        xs = [[abs(v) for v in xs], [-abs(v) for v in xs], [0.0] * len(xs), xs][i % 4]
        for dt in ("quint8", "qint8"):
            for rr in (False, True):
                assert run(scalargrad, xs, dt, rr) == run(torch_ref, xs, dt, rr), (xs, dt, rr)
    assert repr(scalargrad.quantize_per_tensor_dynamic(scalargrad.tensor([1.0]), scalargrad.float16, False)) == \
        repr(torch_ref.quantize_per_tensor_dynamic(torch_ref.tensor([1.0]), torch_ref.float16, False))


def test_ties_round_to_even_after_adding_the_zero_point():
    """Hand-derived (x86-64 FBGEMM): x * inv = 0.5, 1.5, 2.5 exactly; with zero point 1 the per-tensor
    8-bit kernel rounds 1.5, 2.5, 3.5 to even (2, 2, 4); ATen's non-FBGEMM builds (ARM) round first
    and then add (1, 3, 3), which scalargrad does not follow."""
    xs = scalargrad.tensor([0.25, 0.75, 1.25])
    assert scalargrad.quantize_per_tensor(xs, 0.5, 0, scalargrad.quint8).int_repr().tolist() == [0, 2, 2]
    assert scalargrad.quantize_per_tensor(xs, 0.5, 1, scalargrad.quint8).int_repr().tolist() == [2, 2, 4]
    # per channel: (float)1 + 0.5 etc., exact, then the same ties
    q = scalargrad.quantize_per_channel(xs.reshape(1, 3), scalargrad.tensor([0.5]), scalargrad.tensor([1]), 0,
                                        scalargrad.quint8)
    assert q.int_repr().tolist() == [[2, 2, 4]]


ERRORS = {
    "int input": lambda t: t.quantize_per_tensor(t.tensor([1, 2]), 0.1, 0, t.quint8),
    "double input": lambda t: t.quantize_per_tensor(t.tensor([1.0], dtype=t.float64), 0.1, 0, t.quint8),
    "dense dtype": lambda t: t.quantize_per_tensor(t.tensor([1.0]), 0.1, 0, t.float32),
    "float zero point": lambda t: t.quantize_per_tensor(t.tensor([1.0]), 0.1, 0.5, t.quint8),
    "no dtype": lambda t: t.quantize_per_tensor(t.tensor([1.0]), 0.1, 0),
    "zero point above": lambda t: t.quantize_per_tensor(t.tensor([1.0]), 0.1, 300, t.quint8),
    "zero point below": lambda t: t.quantize_per_tensor(t.tensor([1.0]), 0.1, -1, t.quint8),
    "two scales": lambda t: t.quantize_per_tensor(t.tensor([1.0]), t.tensor([0.1, 0.2]), t.tensor([0, 0]), t.quint8),
    "list too long": lambda t: t.quantize_per_tensor([t.tensor([1.0])] * 2, t.tensor([0.1]), t.tensor([0]), t.qint8),
    "axis": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([0.1, 0.2]), t.tensor([1, 2]), 2, t.qint8),
    "negative axis": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([.1, .2, .3]), t.tensor([1, 2, 0]), -1,
                                                      t.qint8),
    "0-d per channel": lambda t: t.quantize_per_channel(t.tensor(1.0), t.tensor([0.1]), t.tensor([1]), 0, t.qint8),
    "scales length": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([.1, .2, .3]), t.tensor([1, 2, 0]), 0,
                                                      t.qint8),
    "zero points length": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([.1, .2]), t.tensor([1, 2, 0]), 0,
                                                           t.qint8),
    "scales list": lambda t: t.quantize_per_channel(t.tensor(X), [0.1, 0.2], [1, 2], 0, t.qint8),
    "int scales": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([1, 2]), t.tensor([1, 2]), 0, t.qint8),
    "2-d scales": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([[.1, .2]]), t.tensor([[1, 2]]), 0, t.qint8),
    "per channel zero point": lambda t: t.quantize_per_channel(t.tensor(X), t.tensor([.1, .2]), t.tensor([1, -200]),
                                                               0, t.qint8),
    "per channel int input": lambda t: t.quantize_per_channel(t.tensor([[1, 2]]), t.tensor([.1]), t.tensor([1]), 0,
                                                              t.qint8),
    "q_scale per channel": lambda t: _QC(t).q_scale(),
    "q_zero_point per channel": lambda t: _QC(t).q_zero_point(),
    "channel scales per tensor": lambda t: _Q(t).q_per_channel_scales(),
    "channel zero points per tensor": lambda t: _Q(t).q_per_channel_zero_points(),
    "channel axis per tensor": lambda t: t.q_per_channel_axis(_Q(t)),
    "q_scale dense": lambda t: t.tensor([1.0]).q_scale(),
    "int_repr dense": lambda t: t.int_repr(t.tensor([1.0])),
    "qscheme dense": lambda t: t.tensor([1.0]).qscheme(),
    "requires_grad_": lambda t: _Q(t).requires_grad_(),
    "requires_grad =": lambda t: setattr(_Q(t), "requires_grad", True),
    "is_signed": lambda t: _Q(t).is_signed(),
    "tolist": lambda t: _Q(t).tolist(),
    "item of many": lambda t: _Q(t).item(),
    "len of 0-d": lambda t: len(CASES["0-d"](t)),
    "dequantize a number": lambda t: t.dequantize(1.0),
    "dynamic qint32": lambda t: t.quantize_per_tensor_dynamic(t.tensor([1.0]), t.qint32, False),
    "dynamic int input": lambda t: t.quantize_per_tensor_dynamic(t.tensor([1, 2]), t.qint8, False),
    "dynamic nan": lambda t: t.quantize_per_tensor_dynamic(t.tensor([1.0, float("nan")]), t.qint8, False),
    "dynamic inf": lambda t: t.quantize_per_tensor_dynamic(t.tensor([1.0, float("inf")]), t.qint8, False),
    "cat dtypes": lambda t: t.cat([_Q(t), t.quantize_per_tensor(t.tensor(X), 0.25, 3, t.quint8)]),
    "cat with dense": lambda t: t.cat([_Q(t), t.tensor(X)]),
    "cat per channel": lambda t: t.cat([_QC(t), _QC(t)]),
    "cat sizes": lambda t: t.cat([_Q(t), _Q(t).t()]),
    "dequantize dense list": lambda t: t.dequantize([t.tensor([1.0])]),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_pytorchs_errors(torch_ref, case):
    def outcome(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ERRORS[case](lib)
            except Exception as e:
                return type(e).__name__, str(e).split("\n(Triggered")[0] if type(e) is not NotImplementedError \
                    else str(e).split("\n")[0]  # the dispatcher's first line (its registrations follow)
        return None

    want = outcome(torch_ref)
    assert want is not None
    assert outcome(scalargrad) == want


def test_requires_grad_false_and_no_graph(torch_ref):
    for lib in (scalargrad, torch_ref):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        q = _quiet(lib.quantize_per_tensor, x, 0.1, 0, lib.quint8)
        assert (q.requires_grad, q.grad_fn, q.grad, q.requires_grad_(False) is q) == (False, None, None, True)


def test_equality(torch_ref):
    """``==``/``!=`` compare dequantized values; ``torch.equal`` dtype, scheme, parameters and integers."""

    def facts(t):
        q, q2 = _Q(t), t.quantize_per_tensor(t.tensor(X), 0.5, 3, t.qint8)
        qc = _QC(t)
        x = t.tensor(X)
        return [repr(q == q2), repr(q != q2), repr(q == 1), repr(q.eq(x)), repr(t.eq(q, q2)), repr(t.ne(q, 1.5)),
                repr(qc == qc), t.equal(q, q), q.equal(q2), t.equal(q, x), t.equal(x, q), t.equal(qc, qc.clone()),
                t.equal(q, _Q(t).t().t())]

    assert _quiet(facts, scalargrad) == _quiet(facts, torch_ref)


def test_dense_dequantize(torch_ref):
    def facts(t):
        x, i = t.tensor(X), t.tensor([1, 2])
        return [x.dequantize() is x, repr(i.dequantize()), repr(t.dequantize([_Q(t), x])),
                repr(t.dequantize(tensors=(x, _Q(t)))), repr(t.dequantize(input=i)),
                repr(t.quantize_per_tensor(tensors=[x], scales=t.tensor([0.5]), zero_points=t.tensor([1]),
                                           dtype=t.qint8))]

    assert _quiet(facts, scalargrad) == _quiet(facts, torch_ref)
    with pytest.raises(Unsupported, match="dequantize of a tensor that requires grad"):
        scalargrad.tensor([1.0], requires_grad=True).dequantize()


REFUSED = {
    "q + q": (lambda q: q + q, "Tensor.__add__ on a quantized tensor"),
    "q * 2": (lambda q: q * 2, "Tensor.__mul__ on a quantized tensor"),
    "-q": (lambda q: -q, "Tensor.__neg__ on a quantized tensor"),
    "sum": (lambda q: q.sum(), "Tensor.sum on a quantized tensor"),
    "float()": (lambda q: q.float(), "Tensor.float on a quantized tensor"),
    "to dtype": (lambda q: q.to(scalargrad.float32), "Tensor.to on a quantized tensor"),
    "fill_": (lambda q: q.fill_(1.0), "Tensor.fill_ on a quantized tensor"),
    "setitem": (lambda q: q.__setitem__(0, 1.0), "Tensor.__setitem__ on a quantized tensor"),
    "backward": (lambda q: q.backward(), "Tensor.backward on a quantized tensor"),
    "torch.exp": (lambda q: scalargrad.exp(q), "torch.exp on a quantized tensor"),
    "torch.relu": (lambda q: scalargrad.relu(q), "torch.relu on a quantized tensor"),
    "torch.cat": (lambda q: scalargrad.cat([q, scalargrad.quantize_per_tensor(scalargrad.tensor(X), 0.5, 3,
                                                                              scalargrad.qint8)]),
                  "torch.cat of quantized tensors with different scales or zero points"),
    "hstack": (lambda q: scalargrad.hstack([q, q]), "torch.hstack on a quantized tensor"),
    "dense + q": (lambda q: scalargrad.tensor(X) + q, "on a quantized tensor"),
    "mm(dense, q)": (lambda q: scalargrad.mm(scalargrad.tensor(X).t(), q), "torch.mm on a quantized tensor"),
    "linear": (lambda q: scalargrad.nn.functional.linear(q, scalargrad.ones(2, 3)), "on a quantized tensor"),
    "quantize again": (lambda q: scalargrad.quantize_per_tensor(q, 0.1, 0, scalargrad.qint8),
                       "torch.quantize_per_tensor on a quantized tensor"),
    "per channel view": (lambda q: _QC(scalargrad).view(6), "Tensor.view on a per-channel quantized tensor"),
    "per channel index": (lambda q: _QC(scalargrad)[0], "Tensor.__getitem__ on a per-channel quantized tensor"),
    "float zero points": (lambda q: scalargrad.quantize_per_channel(scalargrad.tensor(X), scalargrad.tensor([.1, .2]),
                                                                    scalargrad.tensor([1., 2.]), 0, scalargrad.qint8),
                          "float zero points"),
    "quint4x2": (lambda q: scalargrad.quantize_per_tensor(scalargrad.tensor([1.0]), 0.5, 0, scalargrad.quint4x2),
                 "torch.quint4x2"),
    "nan": (lambda q: scalargrad.quantize_per_tensor(scalargrad.tensor([float("nan")]), 0.5, 0, scalargrad.qint8),
            "quantizing a nan"),
    "zero at scale 0": (lambda q: scalargrad.quantize_per_tensor(scalargrad.tensor([0.0]), 0.0, 0, scalargrad.qint8),
                        "quantizing a zero at scale 0"),
    "dense of qint8": (lambda q: scalargrad.zeros(2, dtype=scalargrad.qint8), "a dense tensor of torch.qint8"),
    "dense to qint8": (lambda q: scalargrad.tensor(X).to(scalargrad.qint8), "a dense tensor of torch.qint8"),
    "ao": (lambda q: scalargrad.ao.quantization.QuantStub(), "torch.ao"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_everything_else_is_refused_by_name(case):
    fn, words = REFUSED[case]
    q = _Q(scalargrad)
    with pytest.raises(Unsupported, match=words.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        fn(q)


def test_a_dense_kernel_never_reads_a_quantized_tensor():
    q = _Q(scalargrad)
    assert isinstance(q, scalargrad.Tensor) and type(q) is QuantizedTensor
    for name in ("_t", "_val", "_rg", "_op"):
        with pytest.raises(QuantizedRead):
            getattr(q, name)


def test_quantized_tensors_work_once_a_complex_tensor_exists():
    # complex numbers' gate wraps torch's functions at a process's first complex element: it reads
    # a quantized tensor's dtype through the tensor's own names
    L = scalargrad
    was = complex_numbers.gate_installed()
    try:
        L.tensor([1j])
        q = _Q(L)
        assert L.dequantize(q).tolist() == X
        assert L.int_repr(q).tolist() == [[-1, 3, 9], [7, 11, 16]]
        assert L.flatten(q).shape == (6,)
        with pytest.raises(Unsupported, match="torch.exp on a quantized tensor"):
            L.exp(q)
    finally:
        if not was:
            complex_numbers.uninstall_gate()  # leave the process as the test found it
