"""The fused attention's elements (``_ops/attention.py``): each element of a ``SdpaFlash`` node
is the op table's attention form of its query row, the key rows and its value column of its
batch and head; each element of a gradient out of its backward under create_graph
(``SdpaFlashGrad``) the derivative form over the incoming gradient, query, key and value of its
batch and head. Their values and partials come from the forms (``derived.FormTape``)."""

from __future__ import annotations

import math

from .._ops import attention as AT
from .._tensor.operands import positions
from .derived import FormElementOp, form_tape
from .element_op import exact_number
from .graph import elements_of

__all__ = ["AttentionOf", "AttentionGradOf"]


def _number(sp, x):
    return -sp.oo if x == -math.inf else exact_number(sp, x)


class _Form:
    """The form of one shape of element (``c``) as a function of its inputs alone, equal by
    ``c``, so that ``form_tape`` compiles one program per shape."""

    __slots__ = ("grad", "c")

    def __init__(self, grad: bool, c: tuple) -> None:
        self.grad, self.c = grad, c

    def __eq__(self, other) -> bool:
        return isinstance(other, _Form) and (self.grad, self.c) == (other.grad, other.c)

    def __hash__(self) -> int:
        return hash((self.grad, self.c))

    def __call__(self, sp, *args):
        if self.grad:
            shape, target, qf, kf, masks = self.c
            return AT.attention_grad_form(sp, *args, shape=shape, target=target, qf=exact_number(sp, qf),
                                          kf=exact_number(sp, kf),
                                          masks=tuple(tuple(_number(sp, x) for x in row) for row in masks))
        size, qf, kf, mask = self.c
        return AT.attention_form(sp, *args, size=size, qf=exact_number(sp, qf), kf=exact_number(sp, kf),
                                 mask=tuple(_number(sp, x) for x in mask))


class AttentionOf(FormElementOp):
    """Element (b, h, i, e) of the fused attention: inputs the query row, the key rows and the
    value column of its batch and head; ``c`` (E, query factor, key factor, mask row)."""

    name = "attention"
    grad = False

    @classmethod
    def sympy(cls, sp, args, c):
        return _Form(cls.grad, c)(sp, *args)

    @classmethod
    def _run(cls, vals, c) -> tuple:
        return form_tape(_Form(cls.grad, c), len(vals)).run(list(vals))

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 1.5, 0.25], (1, 1.0, 0.5, ())


class AttentionGradOf(AttentionOf):
    """An element of the gradient of query, key or value out of the fused backward: inputs the
    incoming gradient, query, key and value of its batch and head; ``c`` ((L, S, E, Ev), the
    position of the element's input among them, query factor, key factor, mask rows)."""

    name = "attention_gradient"
    grad = True

    @staticmethod
    def sample():
        return [0.75, -1.25, 2.5, 1.5, 0.25, -0.5], ((1, 2, 1, 1), 1, 1.0, 0.5, ())


def _mask_rows(c, b: int, h: int, n_l: int, n_s: int, full: tuple) -> tuple:
    """The mask rows (L of S numbers) of batch ``b`` and head ``h``; () without a mask."""
    m = c.mask
    if m is None:
        return ()
    pos = positions(m._t.shape, full)
    vals = m._val if m._t.ndim else [m._val]
    base = (b * full[1] + h) * n_l * n_s
    return tuple(tuple(vals[pos[base + i * n_s + j]] for j in range(n_s)) for i in range(n_l))


def _attention(v, vin, vals):
    q, k, val = vin[:3]
    n_b, n_h, n_l, e = q._t.shape
    n_s, ev = k._t.shape[2], val._t.shape[3]
    c = v._c
    qf, kf = c.sign * c.factor, c.factor
    spec = []
    for b in range(n_b):
        for h in range(n_h):
            masks = _mask_rows(c, b, h, n_l, n_s, (n_b, n_h, n_l, n_s))
            ks = tuple((k, ((b * n_h + h) * n_s) * e + j) for j in range(n_s * e))
            for i in range(n_l):
                qs = tuple((q, ((b * n_h + h) * n_l + i) * e + d) for d in range(e))
                form = (e, qf, kf, masks[i] if masks else ())
                for x in range(ev):
                    vs = tuple((val, ((b * n_h + h) * n_s + j) * ev + x) for j in range(n_s))
                    spec.append((AttentionOf, form, qs + ks + vs))
    return spec


def _attention_grad(v, vin, vals):
    g, q, k, val = vin[:4]
    which = v._c
    node = vin[4]
    n_b, n_h, n_l, e = q._t.shape
    n_s, ev = k._t.shape[2], val._t.shape[3]
    c = node._c
    qf, kf = c.sign * c.factor, c.factor
    gpos = positions(g._t.shape, (n_b, n_h, n_l, ev))
    rows, cols = ((n_l, e), (n_s, e), (n_s, ev))[which]
    offset = (n_l * ev, n_l * ev + n_l * e, n_l * ev + n_l * e + n_s * e)[which]
    spec = []
    for b in range(n_b):
        for h in range(n_h):
            bh = b * n_h + h
            masks = _mask_rows(c, b, h, n_l, n_s, (n_b, n_h, n_l, n_s))
            srcs = (tuple((g, gpos[bh * n_l * ev + j]) for j in range(n_l * ev))
                    + tuple((q, bh * n_l * e + j) for j in range(n_l * e))
                    + tuple((k, bh * n_s * e + j) for j in range(n_s * e))
                    + tuple((val, bh * n_s * ev + j) for j in range(n_s * ev)))
            for j in range(rows * cols):
                spec.append((AttentionGradOf, ((n_l, n_s, e, ev), offset + j, qf, kf, masks), srcs))
    return spec


elements_of(AT.SdpaFlash)(_attention)
elements_of(AT.SdpaFlashGrad)(_attention_grad)
