"""The op table's base: what one op declares, and the variants the engine runs.

An op is one class. It declares, side by side:

* ``name``: the grad_fn class PyTorch prints (``MulBackward0``);
* ``forward(r, *args)``: the element function, in double (``r`` rounds an intermediate result
  to the result dtype where PyTorch's float32 kernel rounds one); the caller rounds the result;
* ``backward(k, g, v)``: the derivative as ``derivatives.yaml`` writes it, term by term, against
  a kernel ``k`` (``float_kernel.py``, ``_tensor/tensor_kernel.py``): floats for 0-dim graphs, tensors for the others,
  and graph-recording tensors under ``create_graph``. One formula serves all three. It returns
  one gradient per input of node ``v`` (None where there is none), in the node's shape: the
  engine sums a broadcast input's gradient back to its shape, as PyTorch's ``validate_outputs``;
* ``sympy(sp, *args)``: the element's symbolic form, which ``scalargrad.symbolic`` differentiates
  to prove the rule above;
* ``saved``: the names of the saved values PyTorch exposes (``_saved_self``...), and where they
  come from;
* ``api``: its spellings (Tensor method, in-place method, ``torch.`` function, ``nn.functional``
  entry), from which ``_tensor/surface.py`` makes the public surface.

Ops are duck-typed on the node's slots (``v._a``, ``v._b``, ``v._c``, ``v._val``...) and import
no tensor class: the tensor layer sits above this one.

Each op class gets variants, made here once: ``freed`` (the saved values were released by a
backward without ``retain_graph``), ``stale`` (a tensor it saved was changed in place), and for
ops whose inputs or result have dimensions, ``bulk`` (the same formula run with the tensor
kernel: a 0-dim node of such an op, ``x.sum()``, receives a float and must hand its inputs
tensors).
"""

from __future__ import annotations

import re

from .._base import anomaly, grad_mode

__all__ = ["Op", "Api", "SECOND_BACKWARD", "REGISTRY", "register", "VERSION_ERROR", "version_error", "needed_inputs"]

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)

VERSION_ERROR = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{kind} [{shape}]]{which} is at version {now}; expected version {then} instead. Hint: "
    "enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


_ANOMALY_HINT = (
    "Hint: the backtrace further above shows the operation that failed to compute its gradient. The variable in "
    "question was changed in there or anywhere later. Good luck!"
)


def version_error(t, which: str, now: int, then: int) -> RuntimeError:
    """PyTorch's error for a saved tensor changed in place since it was saved (its hint points
    to the traceback anomaly mode printed, when it is on)."""
    shape = ", ".join(str(s) for s in t._t.shape)
    text = VERSION_ERROR.format(kind=t._t.dtype.legacy, shape=shape, which=which, now=now, then=then)
    if anomaly.state.enabled:
        text = text[:text.index("Hint: ")] + _ANOMALY_HINT
    return RuntimeError(text)


def saved_node_name(name: str) -> str:
    """A node as the version error names it: "Exp" for ExpBackward0, "Pow1" for PowBackward1;
    a name without a numbered Backward (torch::autograd::CopyBackwards) as it is."""
    m = re.search(r"Backward(\d+)$", name)
    if m is None:
        return name
    return name[:m.start()] + ("" if m.group(1) == "0" else m.group(1))


class Api:
    """An op's spellings: ``method`` (and ``aliases``) on Tensor, ``inplace`` on Tensor,
    ``function`` (and its aliases) in the torch namespace, ``functional`` in
    ``nn.functional``. ``None`` means the op has no such spelling."""

    __slots__ = ("method", "aliases", "inplace", "function", "functional")

    def __init__(self, method: str | None = None, aliases: tuple = (), inplace: str | None = None,
                 function: str | tuple | None = None, functional: str | None = None) -> None:
        self.method = method
        self.aliases = tuple(aliases)
        self.inplace = inplace
        if function is True:
            function = method
        self.function = (function,) if isinstance(function, str) else tuple(function or ())
        self.functional = functional

    def names(self) -> list:
        """Every spelling, as ``(surface, name)`` pairs: surface is "Tensor" or "torch" or
        "torch.nn.functional"."""
        out = []
        if self.method:
            out.append(("Tensor", self.method))
        out += [("Tensor", a) for a in self.aliases]
        if self.inplace:
            out.append(("Tensor", self.inplace))
        out += [("torch", f) for f in self.function]
        if self.functional:
            out.append(("torch.nn.functional", self.functional))
        return out


REGISTRY: dict = {}
"""op class name -> op class, for every declared op (the tests walk it)."""


def register(cls):
    """Class decorator: record ``cls`` in the table."""
    REGISTRY[cls.__name__] = cls
    return cls


class Op:
    """Base of every op, built-in or user-defined (``autograd.Function`` goes through it too)."""

    name = "Op"  # the grad_fn class name PyTorch prints
    namespace = ""  # what name() puts before it ("torch::autograd::" for the engine's own nodes)
    saves = True  # backward reads saved values: a second backward without retain_graph fails
    saves_inputs = True  # backward reads the inputs' data (in-place changes to them are errors)
    saves_output = False  # backward reads the op's result: changing it in place is an error
    extra_none = 0  # PyTorch lists the Python-number operand as a (None, 0) next function
    grad_edges_only = False  # next_functions lists only the inputs that require grad (NotImplemented)
    edges: int | None = None  # next_functions lists only the first ``edges`` inputs (the rest not differentiable)
    older_in_c = False  # the node's older version is ``_c.prev``, not its first input (regenerated views)
    runs_user_code = False  # backward calls user code (a custom Function's backward)
    differentiable = True  # False: the result never requires grad (comparisons, argmax)
    bulk = False  # True in the variant run with the tensor kernel
    is_freed = False  # True in the variant whose saved values were released
    # (attribute, source[, needed_for]) entries: source an input index, "result", a _c key or
    # ("value", x) for a constant of the op; needed_for, the inputs whose gradient formula reads
    # the value: PyTorch saves it only when one of them requires grad (``_saved_other`` of
    # ``x * c`` is None if ``x`` alone does)
    saved: tuple = ()
    # the order PyTorch's generated backward computes the inputs' gradients in, which numbers the
    # nodes a create_graph backward records (the derivative's argument names, alphabetically:
    # ``other`` before ``self``); None: first input first
    grad_order: tuple | None = None
    api: Api | None = None
    freed: type  # the variant installed once the saved values are released
    stale: type  # the variant installed once a saved tensor (result or operand) was changed in place
    tensor: type  # the variant for nodes whose inputs or result have dimensions
    base: type  # the declared op of a variant (itself for a declared op)

    @staticmethod
    def forward(r, *args):
        raise NotImplementedError

    @staticmethod
    def backward(k, g, v):
        raise NotImplementedError

    @staticmethod
    def sympy(sp, *args):
        raise NotImplementedError

    # Where PyTorch's derivative departs from calculus (SymPy gives nan, or no finite value),
    # ``convention(*args)`` (the inputs' floats, then the Python-number operand) returns
    # ``(note, partials)``: what PyTorch computes there, one float or None (= calculus) per
    # input, and why; None at ordinary points. Conventions a Piecewise can state (relu, abs,
    # clamp, minimum, maximum) live in ``sympy`` instead.
    convention = None

    # ``forward_scale(*args)`` (the inputs' floats, then ``_c``): what the rounding errors of a
    # forward made of several rounded steps are relative to, where its result can be much smaller
    # than its terms (GELU near -3: x * (1 + erf(x / sqrt 2))); None: the result itself.
    forward_scale = None
    # ``backward_scale(i, *args)``: the same for the partial derivative by input ``i`` as the
    # op's backward computes it (gelu's cdf + x * pdf, nearly cancelling near x = -0.75).
    backward_scale = None

    def __init_subclass__(cls, variant: bool = False, **kw):
        super().__init_subclass__(**kw)
        if variant:
            return
        cls.base = cls
        cls.bulk = False
        _make_variants(cls)


def no_derivative(name: str):
    """The backward of an op PyTorch declares no derivative for (its node is NotImplemented):
    PyTorch's error naming ``aten::<name>``."""
    def backward(k, g, v):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    return staticmethod(backward)


def inplace_without_derivative(op) -> None:
    """``op``'s in-place form (``x.floor_divide_(y)``), for an op PyTorch declares no derivative
    for: the same NotImplemented node, whose error names ``aten::<method>_``; its form with a
    Python number (``with_number``) too."""
    backward = no_derivative(op.api.method + "_")
    for cls in (op, op.with_number):
        if cls is not None:
            cls.inplace_op = register(type(cls.__name__ + "Inplace", (cls,), {"api": None, "backward": backward}))
    if op.with_number is not None:
        op.inplace_op.with_number = op.with_number.inplace_op


def _make_variants(cls) -> None:
    """``freed``/``stale`` for the scalar op and its bulk twin (made only when the formula is
    meant for tensors too: every declared op here)."""
    bulk = type(cls.__name__ + "Bulk", (cls,), {"bulk": True, "backward": staticmethod(_bulk(cls.backward))},
                variant=True)
    for c in (cls, bulk):
        c.tensor = bulk
        c.freed = _freed_variant(c) if cls.saves else c
        c.stale = _stale_variant(c) if cls.saves_output or cls.saves_inputs else c
        for var in (c.freed, c.stale):
            var.tensor = bulk
            var.base = cls
            if var is not c:
                var.freed = c.freed
                var.stale = c.stale
    bulk.base = cls


def _bulk(formula):
    """The formula of a node whose inputs or result have dimensions: a 0-dim result's float
    gradient (plain backward) becomes a 0-dim tensor, and the tensor kernel runs the formula."""

    def backward(k, g, v):
        if not k.bulk:
            k = k.tensors
            g = k.scalar(g, v)
        return formula(k, g, v)

    return backward


def _freed_variant(cls):
    def backward(k, g, v):
        raise RuntimeError(SECOND_BACKWARD)

    return type(cls.__name__ + "Freed", (cls,), {"backward": staticmethod(backward), "saves": False,
                                                 "is_freed": True}, variant=True)


def _stale_variant(cls):
    # PyTorch names the node without "Backward" in this message: "output 0 of Exp", "of Pow1"
    which = f", which is output 0 of {saved_node_name(cls.namespace + cls.name)},"

    def backward(k, g, v):
        # the snapshot shares the live tensor's counter; the version saved is kept beside it
        raise version_error(v, which, v._version, v._ext.saved_version if v._ext is not None else 0)

    return type(cls.__name__ + "Stale", (cls,), {"backward": staticmethod(backward), "saves": False,
                                                 "saves_output": False}, variant=True)


def needed_inputs(v, i: int, j: int) -> tuple:
    """Whether inputs ``i`` and ``j`` of node ``v`` take a gradient: PyTorch computes none for an
    input that does not require one (``task_should_compute_output``): ``nn.Linear``'s gradient
    for its data input, ``b * x``'s for the data ``x``. (A node read through saved-tensor hooks
    carries its inputs' requires_grad; forward-mode AD's double-vjp asks for every input's.)"""
    ins = v._in
    every = grad_mode.state.every_input
    return every or ins[i]._rg, every or ins[j]._rg
