"""``autograd.Function``: user-defined ops, run by the engine like the built-in ones.

``MyFn.apply(*args)`` runs ``MyFn.forward(ctx, *args)`` without recording, then makes the
outputs graph nodes whose op is ``MyFn``'s adapter, an ``ops.Op`` subclass: the engine calls
its ``backward(k, g, v)`` exactly as it calls a built-in op's. A Function with several outputs
gets one hidden node that owns the backward; each output is a ``Pick`` of it, and hands its
gradient over, so the user's backward runs once with every output's gradient, as in PyTorch.
"""

from __future__ import annotations

import functools
import inspect
import warnings
import weakref

from .._base import grad_mode
from .._base.dtypes import TensorType, float32
from .._base.errors import Unsupported
from .._ops.table import SECOND_BACKWARD, Op, version_error
from .._tensor import views
from .._tensor.inplace import VIEW_OF_LEAF, rebase, rebase_root
from .._tensor.linalg_outputs import several_outputs
from .._tensor.nodes import node_class, short_name
from .._tensor.reductions import sum_to
from .._tensor.saved_hooks import HOOKS_SET, SAVED_FREED, SavedTensor, current_hooks, unpack_one
from .._tensor.storage import alias, multi_output_message, write
from .._tensor.tensor import Ext, Tensor, ext, leaf, next_seq
from . import forward_ad
from .function_forward import apply_with_jvp
from .gradients import expandable

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]

_LEGACY = (
    "Legacy autograd function with non-static forward method is deprecated. Please use "
    "new-style autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
)
_NO_BACKWARD = (
    "You must implement either the backward or vjp method for your custom autograd.Function "
    "to use it with backward mode AD."
)
_BOTH = ("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
         "You should only implement one of them.")


class FunctionCtx:
    """The ``ctx`` of a custom Function: what forward saves for backward."""

    def __init__(self) -> None:
        self._saved = ()
        self._freed = False
        self.needs_input_grad = ()
        self.materialize_grads = True
        self._non_differentiable = ()
        self._non_diff_slots = frozenset()  # the output slots marked non-differentiable
        self.outputs_types = ()
        self._views = {}  # output slot -> True if the Function has several differentiable outputs
        self._dirty = ()
        self._saved_versions = None  # the saved tensors' versions when forward returned
        self._output_slots = {}  # id(an output, as forward returned it or as apply did) -> its slot
        self._saved_forward = ()  # save_for_forward's tensors, which saved_tensors gives jvp
        self._in_jvp = False

    def save_for_backward(self, *tensors) -> None:
        """Keep these tensors (or None) for backward, where ``saved_tensors`` returns them.
        As in PyTorch, what was saved is only checked when the call is recorded (grad mode on
        and an input requiring grad): otherwise anything may be passed, and is dropped."""
        self._saved = tensors

    def save_for_forward(self, *tensors) -> None:
        """Keep these tensors (or None) for ``jvp``, where ``saved_tensors`` returns them."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_forward expects all arguments to be tensors; but got {i}th argument of "
                                f"type {type(t).__name__}.")
        self._saved_forward = tensors

    def _check_saved(self) -> None:
        for i, t in enumerate(self._saved):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")

    @property
    def saved_tensors(self) -> tuple:
        """The tensors forward saved; PyTorch's version error if one was changed in place since.
        In ``jvp``, those saved with ``save_for_forward``."""
        if getattr(self, "_in_jvp", False):
            return self._saved_forward
        if self._saved and (self._freed or self._node_freed()):
            raise RuntimeError(SECOND_BACKWARD)
        packed = getattr(self, "_packed", None)
        if packed is not None:  # saved through saved-tensor hooks: read through the unpack hook
            return tuple(None if p is None else p[0] if p[2] is None else unpack_one(p[0], p[1], p[2])
                         for p in packed)
        versions = self._saved_versions
        if versions is not None:
            for t, then in zip(self._saved, versions):
                if t is not None and then is not None and _version_of(t) != then:
                    slot = self._output_slots.get(id(t))
                    if slot is not None:  # a saved output names the Function's node, as PyTorch's
                        which = f", which is output {slot} of {short_name(self._node_name)},"
                    else:
                        which = "" if t._op is None else f", which is output 0 of {short_name(t.grad_fn.name())},"
                    raise version_error(t, which, _version_of(t), then)
        return self._saved

    @property
    def saved_variables(self) -> tuple:
        """``saved_tensors`` under its deprecated name (PyTorch warns)."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple:
        """``torch._C._autograd.SavedTensor`` objects, one per tensor (or None) forward saved."""
        if self._saved and (self._freed or self._node_freed()):
            raise RuntimeError(SECOND_BACKWARD)
        return tuple(CtxSavedTensor(self, i) for i in range(len(self._saved)))

    def _node_freed(self) -> bool:
        ref = getattr(self, "_node", None)
        node = ref() if ref is not None else None
        return node is not None and node._op is not None and node._op.is_freed

    def mark_non_differentiable(self, *tensors) -> None:
        """These outputs will not require grad."""
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors) -> None:
        """These inputs were changed in place by forward (and are returned as outputs): they
        become the Function's outputs themselves, their version moves on."""
        self._dirty = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward receives None instead of zeros for unused outputs."""
        self.materialize_grads = bool(value)


class _FunctionOp(Op, variant=True):
    """The engine-facing op of one Function class (made per subclass by the metaclass)."""

    function: type
    saves_inputs = False
    runs_user_code = True
    saved: tuple = ()

    @classmethod
    def backward(cls, k, g, v):
        ctx = v._c
        multi = isinstance(g, list)
        outs = g if multi else [g]
        grads_out = []
        # ``ctx._materialize_non_diff_grads = False``: a non-differentiable output's missing
        # gradient stays None even when gradients are materialized (PyNode::apply)
        keep_none = () if getattr(ctx, "_materialize_non_diff_grads", True) else ctx._non_diff_slots
        for slot, (x, t) in enumerate(zip(outs, ctx.outputs_types)):
            if x is None:
                x = _zeros(t) if ctx.materialize_grads and slot not in keep_none else None
            elif not isinstance(x, Tensor):
                x = leaf(x, t)
            grads_out.append(x)
        fn = cls.function
        slots = getattr(ctx, "_out_slots", None)
        if slots is not None and len(slots) != ctx._n_outputs:
            # non-tensor outputs have no gradient slot: backward gets None for them
            full = [None] * ctx._n_outputs
            for i, x in zip(slots, grads_out):
                full[i] = x
            grads_out = full
        res = _user_backward(fn, ctx, grads_out, k.graph)
        positions = ctx._tensor_positions
        n_args = ctx._n_args
        if len(res) != n_args:
            if len(res) > n_args and all(r is None for r in res[n_args:]):
                res = res[:n_args]
            else:
                raise RuntimeError(f"function {cls.name} returned an incorrect number of gradients "
                                   f"(expected {n_args}, got {len(res)})")
        tensor_at = set(positions)
        for pos, r in enumerate(res):
            if r is None:
                continue
            if pos not in tensor_at:
                raise RuntimeError(f"function {cls.name} returned a gradient different than None at position "
                                   f"{pos + 1}, but the corresponding forward input was not a Variable")
            if not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
        out = [_validated(cls.name, i, res[pos], u) for i, (pos, u) in enumerate(zip(positions, v._in))]
        if fn.sympy is not None:
            # what this call received and returned, for the symbolic check to compare with the
            # calculus of the declared form without calling the user's backward again
            ctx._backward_seen = (tuple(None if x is None else x._val for x in grads_out),
                                  tuple(None if x is None else x._val for x in out))
        return out

    @staticmethod
    def sympy(sp, *args):
        raise NotImplementedError("a custom autograd.Function has no symbolic form")

    @classmethod
    def check_inplace(cls, v) -> None:
        _check_view_inplace(v._c, 0, cls.function.__name__)


def _validated(name: str, i: int, r, u: Tensor):
    """A returned gradient made to fit its input, as PyTorch's engine validates a node's
    outputs: summed down when the input's shape expands to it, cast to the input's dtype; for an
    input that does not require grad (no edge) it goes on unchecked, as validate_outputs skips an
    invalid edge (no edge takes it; a module's full backward hook still reads it)."""
    if r is None:
        return None
    if not u._rg:
        return r
    shape = tuple(u._t.shape)
    if tuple(r._t.shape) != shape:
        got = list(r._t.shape)
        try:
            r = sum_to(r, shape) if expandable(shape, tuple(r._t.shape)) else None
        except RuntimeError:
            r = None
        if r is None or tuple(r._t.shape) != shape:
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - got {got} but "
                               f"expected shape compatible with {list(shape)}")
    if r._t.dtype is not u._t.dtype:
        r = views.to_dtype(r, u._t.dtype)
    return r


def _zeros(t):
    n = t.numel
    z = t.dtype.round(0)
    return leaf([z] * n if t.ndim else z, TensorType(t.dtype, t.shape))


_VIEW_INPLACE = "Output {slot} of {name} is a view and is being modified inplace. "
_VIEW_OF_ONE = (
    "This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
    "logic to handle view+inplace would override the custom backward associated with the custom Function, "
    "leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
    "custom Function."
)
_VIEW_OF_SEVERAL = (
    "This view is the output of a function that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation by an out-of-place one."
)


def _view_output(o: Tensor, inputs: tuple, dirty: set) -> bool:
    """An output PyTorch makes a view with a custom-Function creation meta: an input returned as
    is (unless marked dirty), or a view made in forward."""
    if any(o is u for u in inputs):
        return id(o) not in dirty
    return o._s is not None and o._s.base is not None


def _check_view_inplace(ctx: FunctionCtx, slot: int, name: str) -> None:
    several = ctx._views.get(slot)
    if several is not None:
        why = _VIEW_OF_SEVERAL if several else _VIEW_OF_ONE
        raise RuntimeError(_VIEW_INPLACE.format(slot=slot, name=name) + why)


class _FunctionOpFreed(_FunctionOp, variant=True):
    is_freed = True

    @classmethod
    def backward(cls, k, g, v):
        v._c._freed = True
        return super().backward(k, g, v)


class Pick(Op, variant=True):
    """Output ``i`` of a multi-output Function (never run: the engine routes its gradient)."""

    name, saves, saves_inputs = "Pick", False, False

    @staticmethod
    def check_inplace(v) -> None:
        hidden = v._in[0]
        _check_view_inplace(hidden._c, v._c, hidden._op.function.__name__)


Pick.base = Pick.freed = Pick.stale = Pick.tensor = Pick


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        op_name = name + "Backward"
        freed = type(op_name + "Freed", (_FunctionOpFreed,), {
            "name": op_name, "function": cls, "saves": False}, variant=True)
        cls._op = type(op_name, (_FunctionOp,), {"name": op_name, "function": cls}, variant=True)
        for c in (cls._op, freed):
            c.freed = freed
            c.stale = c
            c.tensor = c
            c.base = cls._op
        cls._op.saves = True

    @property
    def _backward_cls(cls) -> type:
        """The class of this Function's grad_fn nodes (``<Name>Backward``), as PyTorch exposes it."""
        return node_class(cls._op.name, cls._op)


class Function(metaclass=_FunctionMeta):
    """Base class of custom differentiable operations (PyTorch's new style).

    Subclass it with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` and
    call ``MyFn.apply(*args)``. backward returns one gradient per forward argument (None for
    non-tensor arguments or inputs that need none).

    Optionally (scalargrad only) declare what forward computes, for ``scalargrad.symbolic``,
    with a static ``sympy(sp, *args)``: ``sp`` is the sympy module, ``args`` are ``apply``'s
    arguments with each tensor replaced by a SymPy expression and every other argument as
    the Python value given. It returns one expression, or a tuple of one expression per
    tensor output of forward (the outputs backward receives gradients for), e.g.
    ``return 2 * x`` or ``return sp.sin(x), sp.cos(x)``. The symbolic check then proves
    gradients through the Function from this form, and reports where the custom backward
    departs from its derivative. Without it (``sympy = None``) gradients through the
    Function are reported unverifiable.
    """

    sympy = None

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.", DeprecationWarning,
            stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(_LEGACY)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(_NO_BACKWARD)

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError(_NO_BACKWARD)

    @staticmethod
    def setup_context(ctx, inputs, output):
        """New style: ``forward(*args)`` without ctx, then this saves what backward needs."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward-mode AD: the outputs' tangents from the inputs' (``forward_ad``)."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward without recording and connect its outputs to the graph. With
        ``setup_context``, the arguments are first bound to forward's signature with its
        defaults filled in, as PyTorch does: forward, setup_context's ``inputs`` and backward's
        gradients all cover the defaulted arguments too. An input with a tangent (forward-mode
        AD) gives the outputs the tangents ``jvp`` computes (``function_forward.py``)."""
        if cls.setup_context is not _BASE_SETUP_CONTEXT:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = FunctionCtx()
        if forward_ad.active() and any(isinstance(a, Tensor) and forward_ad.tangent_of(a) is not None for a in args):
            return apply_with_jvp(cls, ctx, args, kwargs)
        return cls._record(ctx, args, kwargs)

    @classmethod
    def _record(cls, ctx, args: tuple, kwargs: dict):
        """``apply`` after its arguments are bound: forward, then the graph."""
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg for a in args)
        ctx._tensor_positions = positions
        ctx._n_args = len(args)
        if cls.sympy is not None:  # the non-tensor arguments the declared form is given
            ctx._sympy_args = (tuple(None if isinstance(a, Tensor) else a for a in args), kwargs)
        # an input that is an output of unbind/split: told now, as forward may change it in place
        multi = {id(a): multi_output_message(a, "is being") for a in args if isinstance(a, Tensor) and _multi_view(a)}
        with grad_mode.no_grad():
            if cls.setup_context is not _BASE_SETUP_CONTEXT:  # new style: forward without ctx
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        record = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        if grad_mode.is_grad_enabled():
            _check_dirty_no_grad_views(ctx)
        if not record:
            ctx._saved = ()  # not kept (and not checked) when nothing is recorded
            _bump_dirty(ctx)
            return result
        ctx._check_saved()
        inputs = tuple(args[i] for i in positions)
        is_tuple = isinstance(result, tuple)
        outs = list(result) if is_tuple else [result]
        tensor_idx = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        dirty = {id(t) for t in ctx._dirty}
        _check_dirty(ctx, inputs, is_tuple, multi, outs)
        if not tensor_idx:
            _bump_dirty(ctx)
            _remember_versions(ctx)
            return result
        ctx.outputs_types = tuple(outs[i]._t for i in tensor_idx)
        ctx._out_slots = tensor_idx
        ctx._n_outputs = len(outs)
        non_diff = {id(t) for t in ctx._non_differentiable}
        # an input returned as is is a view in PyTorch, and so is a view made in forward (not a
        # dirty input): PyTorch marks both IN_CUSTOM_FUNCTION (MULTI_OUTPUT_NODE with several
        # differentiable outputs) and refuses to modify them in place
        diff = [slot for slot, i in enumerate(tensor_idx)
                if id(outs[i]) not in non_diff and outs[i].dtype.is_floating_point]
        ctx._non_diff_slots = frozenset(slot for slot, i in enumerate(tensor_idx) if id(outs[i]) in non_diff)
        ctx._views = {slot: len(diff) > 1 for slot in diff if _view_output(outs[tensor_idx[slot]], inputs, dirty)}
        seq = next_seq()
        _pack_saved(ctx)
        if len(tensor_idx) == 1 and not is_tuple:
            o = outs[0]
            if id(o) in dirty:
                _become(o, cls._op, inputs, ctx, seq)
                _remember_versions(ctx)
                return o
            out = _as_output(o, inputs)
            _remember_versions(ctx)
            if id(o) in non_diff or not o._t.dtype.is_floating_point:  # integers take no gradient
                return out
            _connect(out, cls._op, inputs, ctx, seq)
            ctx._output_slots = {id(o): 0, id(out): 0}
            return out
        # several outputs: one hidden node runs the backward for all of them
        hidden = _hidden_node(cls._op, ctx, inputs, seq)
        made: dict = {}  # id(returned tensor) -> its output tensor
        slots: dict = {}  # id(returned or output tensor) -> its output slot
        for slot, i in enumerate(tensor_idx):
            o = outs[i]
            first = made.get(id(o))
            if first is not None and first._op is Pick:
                # the same tensor returned again: it is the output at its last place (PyTorch
                # wraps it twice; the second wrapping wins), so every gradient reaches that slot
                first._c = slot
                first._ext.pick = (hidden, slot)
                outs[i] = first
                slots[id(o)] = slots[id(first)] = slot
                continue
            if id(o) in dirty:
                # the hidden node consumes the input's version from before forward changed it
                was = _become(o, Pick, (hidden,), slot, next_seq())
                hidden._in = tuple(was if u is o else u for u in hidden._in)
                o._ext.pick = (hidden, slot)
                made[id(o)] = o
                continue
            out = _as_output(o, inputs)
            if id(o) not in non_diff and o._t.dtype.is_floating_point:  # integers take no gradient
                _connect(out, Pick, (hidden,), slot, next_seq())
                e = out._ext = Ext()
                e.pick = (hidden, slot)
            out._s = out._s if hasattr(out, "_s") else None
            outs[i] = out
            made[id(o)] = out
            slots[id(o)] = slots[id(out)] = slot
        ctx._output_slots = slots
        _remember_versions(ctx)
        return tuple(outs) if is_tuple else outs[0]


_BASE_SETUP_CONTEXT = Function.setup_context


class CtxSavedTensor(SavedTensor):
    """One tensor a custom Function saved, as ``ctx._raw_saved_tensors`` shows it (PyTorch's
    ``torch._C._autograd.SavedTensor``): ``register_hooks(pack, unpack)`` packs it at once and
    makes ``saved_tensors`` read it through ``unpack``."""

    __slots__ = ("_ctx", "_i")

    def __init__(self, ctx: FunctionCtx, i: int) -> None:
        self._ctx, self._i = ctx, i

    def _entry(self):
        packed = getattr(self._ctx, "_packed", None)
        return None if packed is None else packed[self._i]

    @property
    def data(self):
        ctx = self._ctx
        if ctx._freed or ctx._node_freed():
            return None
        entry = self._entry()
        return ctx._saved[self._i] if entry is None or entry[2] is None else entry[1]

    @property
    def unpack_hook(self):
        entry = self._entry()
        return None if entry is None else entry[2]

    def unpack(self):
        return self._ctx.saved_tensors[self._i]

    def register_hooks(self, *hooks) -> None:
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: collections.abc.Callable,"
                            " arg1: collections.abc.Callable) -> None\n\nInvoked with: "
                            + ", ".join(repr(x) for x in (self, *hooks)))
        pack, unpack = hooks
        ctx, i = self._ctx, self._i
        t = ctx._saved[i]
        if t is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if ctx._freed or ctx._node_freed():
            raise RuntimeError(SAVED_FREED)
        packed = getattr(ctx, "_packed", None)
        if packed is not None and packed[i] is not None and packed[i][2] is not None:
            raise RuntimeError(HOOKS_SET)
        if packed is None:  # the others are read as saved (no unpack hook)
            packed = ctx._packed = [None if u is None else (u, u, None) for u in ctx._saved]
        with grad_mode.no_grad():
            packed[i] = (t, pack(t), unpack)

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


CtxSavedTensor.__name__ = CtxSavedTensor.__qualname__ = "SavedTensor"  # one class in PyTorch


def _pack_saved(ctx: FunctionCtx) -> None:
    """With saved-tensor hooks registered, pack what forward saved (after forward, under
    no_grad, as PyTorch packs a custom Function's saved variables)."""
    hooks = current_hooks()
    if hooks is None or not ctx._saved:
        return
    pack, unpack = hooks
    with grad_mode.no_grad():
        ctx._packed = [None if t is None else (t, pack(t), unpack) for t in ctx._saved]


def _version_of(t: Tensor):
    try:
        return t._version
    except RuntimeError:  # an inference tensor keeps no version
        return None


def _remember_versions(ctx: FunctionCtx) -> None:
    """The saved tensors' versions now that forward has returned (and dirty inputs moved on),
    which ``saved_tensors`` checks."""
    if ctx._saved:
        ctx._saved_versions = tuple(None if t is None else _version_of(t) for t in ctx._saved)


def _check_dirty_no_grad_views(ctx: FunctionCtx) -> None:
    """A view of a leaf made under no_grad requires grad in PyTorch: marked dirty, it is the
    leaf error."""
    for t in ctx._dirty:
        base = t._s.base if t._s is not None else None
        if base is not None and t._s.no_grad and base._rg and base._op is None:
            _bump_dirty(ctx)
            raise RuntimeError(_LEAF_DIRTY)


def _multi_view(t: Tensor) -> bool:
    """An output of unbind/split (or a view of one) that requires grad: PyTorch's
    MULTI_OUTPUT_NODE CreationMeta."""
    s = t._s
    return (t._rg and s is not None and s.base is not None
            and (s.no_grad == "multi" or (t._ext is not None and t._ext.pick is not None)))


def _check_dirty(ctx: FunctionCtx, inputs: tuple, is_tuple: bool, multi: dict, outs: list) -> None:
    """PyTorch's refusals of the tensors forward marked dirty: a view made inside forward, a leaf
    that requires grad, a view returned among several outputs (counted as changed first), an
    output of unbind/split (``multi``: its message, made before forward), a view of a leaf
    (counted as changed first); a view that is not the only output and first input is beyond
    what scalargrad rebases (PyTorch: CopySlices over the Function's node)."""
    for t in ctx._dirty:
        base = t._s.base if t._s is not None else None
        if not any(t is u for u in inputs):
            if base is not None:  # a view made inside forward: refused (no warning), as PyTorch does
                raise RuntimeError(_DIRTY_NOT_INPUT)
            warnings.warn(_DIRTY_NOT_INPUT, UserWarning, stacklevel=3)
        if t._op is None and t._rg:
            raise RuntimeError(_LEAF_DIRTY)
        if base is not None and len(outs) > 1 and any(t is o for o in outs):  # set_history, before the rebase
            _bump_dirty(ctx)
            raise RuntimeError(_DIRTY_VIEW_MULTI)
        if id(t) in multi:  # handle_view_on_rebase checks the CreationMeta before the leaf
            raise RuntimeError(multi[id(t)])
        if base is not None and base._rg and base._op is None:
            _bump_dirty(ctx)
            raise RuntimeError(VIEW_OF_LEAF)
        if base is not None and (is_tuple or not inputs or inputs[0] is not t):
            raise Unsupported("a custom Function that marks dirty a view that is not its only output and "
                              "first tensor input")


_DIRTY_NOT_INPUT = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been "
                    "mutated should be passed to ctx.mark_dirty().")
_LEAF_DIRTY = "a leaf Variable that requires grad has been used in an in-place operation."
_DIRTY_VIEW_MULTI = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more "
    "than one Tensor. This is not supported by the current autograd engine. You should either make sure the input is "
    "not a view (using .clone() for example) or make your Function only return one Tensor (potentially splitting it "
    "into two Functions: one doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change.")


def _bump_dirty(ctx: FunctionCtx) -> None:
    for t in ctx._dirty:
        write(t, list(t._val) if t._t.ndim else t._val)


def _become(t: Tensor, op, inputs: tuple, c, seq: int) -> Tensor:
    """Dirty input ``t`` (changed in place by forward) becomes the output node itself, as PyTorch
    rebases it on the Function's node; its version moves on (a view: its base becomes a
    CopySlices node over the Function's, as for any in-place op on a view). Returns the tensor
    that took ``t``'s former place in the graph."""
    res = leaf(list(t._val) if t._t.ndim else t._val, t._t)
    _connect(res, op, inputs, c, seq)
    if t._s is not None and t._s.base is not None:
        rebase(t, res)
        ext(t)
        if isinstance(c, FunctionCtx):
            c._node = weakref.ref(res)
        return None
    was = rebase_root(t, res)
    ext(t)
    if isinstance(c, FunctionCtx):
        c._node = weakref.ref(t)
    return was


def _as_output(o: Tensor, inputs: tuple) -> Tensor:
    # an input returned as is becomes a view of it (as in PyTorch); an output with a history
    # (computed under no_grad from a node) becomes a new tensor
    for u in inputs:
        if o is u:
            return alias(u, leaf(list(o._val) if o._t.ndim else o._val, o._t), view=True)
    if o._op is not None:
        return leaf(list(o._val) if o._t.ndim else o._val, o._t)
    return o


def _hidden_node(op, ctx: FunctionCtx, inputs: tuple, seq: int) -> Tensor:
    """The node that runs a multi-output Function's backward for all its outputs."""
    hidden = object.__new__(Tensor)
    hidden._val = None
    hidden._t = ctx.outputs_types[0]
    hidden._g = None
    hidden._ext = None
    hidden._s = None
    _connect(hidden, op, inputs, ctx, seq)
    return hidden


def _connect(v: Tensor, op, inputs: tuple, c, seq: int) -> None:
    if isinstance(c, FunctionCtx):
        c._node = weakref.ref(v)  # (weak: the node holds its ctx)
        c._node_name = op.name
    v._rg = True
    v._op = op
    v._in = inputs
    v._c = c
    v._seq = seq
    if v._ext is None:
        v._ext = Ext()  # user code runs at this node: the engine takes its exact path there


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class InplaceFunction(Function):
    """PyTorch's old base class of Functions that may work in place (kept for backward
    compatibility): a Function whose instances carry an ``inplace`` flag."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class OnceError(Op, variant=True):
    """The node PyTorch puts on the gradients a ``once_differentiable`` backward returns under
    create_graph: differentiating them again raises."""

    name, saves, saves_inputs, namespace = "Error", False, False, "torch::autograd::"

    @staticmethod
    def backward(k, g, v):
        raise RuntimeError(_TWICE)


OnceError.base = OnceError.freed = OnceError.stale = OnceError.tensor = OnceError


def once_differentiable(fn):
    """Decorate a Function's backward that cannot itself be differentiated: it runs under
    no_grad, and when a graph is being built from gradients that require grad, its results
    get a node that refuses a second differentiation (PyTorch's ``Error`` node)."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled():
            return outputs
        if not any(isinstance(a, Tensor) and a._rg for a in args):
            return outputs
        if not isinstance(outputs, tuple):
            return _refusing(outputs)
        if len(outputs) == 1:
            return (_refusing(outputs[0]),)
        return _refusing_all(outputs)

    return wrapper


def _refusing(o):
    if not isinstance(o, Tensor):
        return o
    fake = leaf(list(o._val) if o._t.ndim else o._val, o._t, requires_grad=True)
    out = leaf(list(o._val) if o._t.ndim else o._val, o._t)
    _connect(out, OnceError, (fake,), None, next_seq())
    out._ext = None
    return out


class _ErrorOutputs:
    """The constant of an Error node with several outputs."""

    __slots__ = ("outputs", "outputs_types")


_NO_OUTPUT = TensorType(float32, (0,))


def _refusing_all(outputs: tuple) -> tuple:
    """Several gradients: one Error node takes them all (PyTorch's DelayedError on every output,
    None ones included, which its next_functions list as None) and gives each its output."""
    tensors = [isinstance(o, Tensor) for o in outputs]
    ins = tuple(leaf(list(o._val) if o._t.ndim else o._val, o._t, requires_grad=True) if is_t
                else leaf(0.0, TensorType(float32, ())) for o, is_t in zip(outputs, tensors))
    parts = [(list(o._val) if o._t.ndim else [o._val]) if is_t else [] for o, is_t in zip(outputs, tensors)]
    types = [o._t if is_t else _NO_OUTPUT for o, is_t in zip(outputs, tensors)]
    made = several_outputs(OnceError, ins, parts, types, _ErrorOutputs())
    return tuple(m if is_t else o for m, o, is_t in zip(made, outputs, tensors))



def _user_backward(fn, ctx: FunctionCtx, grads_out: list, graph: bool) -> tuple:
    """The Function's own ``backward(ctx, *grads_out)``, run with grad mode on only when
    building a graph (create_graph); its result as a tuple."""
    if fn.backward is not Function.backward and fn.vjp is not Function.vjp:
        raise RuntimeError(_BOTH)
    user = fn.vjp if fn.vjp is not Function.vjp else fn.backward  # Function.backward raises
    with grad_mode.set_grad_enabled(graph):
        res = user(ctx, *grads_out)
    return res if isinstance(res, tuple) else (res,)


