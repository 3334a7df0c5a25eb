"""Saved-tensor hooks (``torch.autograd.graph.saved_tensors_hooks``) and the inference-tensor
check: what happens when a node saves a tensor.

scalargrad's nodes save nothing of their own: a node's backward reads its inputs and its
result, and the op table declares which of them PyTorch's node would have saved (``saved``,
with the inputs whose gradients need each one). While hooks are registered, every new node is
shown to ``watch_node``, which calls the innermost pack hook on each tensor PyTorch would save
(at the op, under no_grad, in the order of the saved names) and keeps what it returns with
the unpack hook in the node's ``_ext.packed``. Backward and ``_saved_*`` access then read the
saved tensors through the unpack hook (``unpacked``). As in PyTorch, a tensor saved through
hooks is not version-checked, Python numbers (wrapped scalars) are not packed, and a custom
Function's ``save_for_backward`` tensors are packed after its forward returns.
"""

from __future__ import annotations

from .._base import grad_mode
from .._ops.views import Alias, Layout
from .storage import INFERENCE_INPLACE, alias, in_place_target
from .tensor import INFERENCE, Ext, Tensor, make, node_watchers, watch

__all__ = ["saved_tensors_hooks", "saved_tensors_hooks_enabled", "save_on_cpu", "disable_saved_tensors_hooks",
           "watch_node", "unpacked", "unpack_one", "current_hooks", "SAVED_INFERENCE", "hooks_state",
           "restore_hooks_state", "SAVED_FREED", "HOOKS_SET", "STAND_INS"]

SAVED_INFERENCE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
    "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)

_stack: list = []  # (pack_hook, unpack_hook), innermost last
_disabled: list = []  # error messages of the disable_saved_tensors_hooks blocks we are in


def hooks_state() -> tuple:
    """The registered and disabled hooks now, for ``restore_hooks_state``."""
    return tuple(_stack), tuple(_disabled)


def restore_hooks_state(state: tuple) -> None:
    """Put back the hooks ``hooks_state`` saw: PyTorch's backward runs on a copy of the thread's
    state, so a hook block entered or left inside it (by an unpack hook) ends with it."""
    stack, disabled = state
    if len(stack) != len(_stack) or any(a is not b for a, b in zip(stack, _stack)):
        _stack[:] = stack
        watch("saved_hooks", bool(_stack))
    if len(disabled) != len(_disabled):
        _disabled[:] = disabled


def saved_tensors_hooks_enabled() -> bool:
    """Whether saved-tensor hooks may be registered (no ``disable_saved_tensors_hooks`` block)."""
    return not _disabled


def current_hooks():
    """The innermost ``(pack, unpack)`` pair, or None."""
    return _stack[-1] if _stack else None


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor)`` runs when an op saves a tensor for backward, and
    ``unpack_hook(packed)`` (which must return a tensor) when backward or ``_saved_*`` reads it.
    Nested blocks: the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled:
            raise RuntimeError(_disabled[-1])
        _stack.append((self.pack_hook, self.unpack_hook))
        watch("saved_hooks", True)
        return self

    def __exit__(self, *exc) -> None:
        _stack.pop()
        if not _stack:
            watch("saved_hooks", False)


def _pack_to_cpu(t: Tensor):
    return (t.device, t)  # already on the CPU: Tensor.cpu() is the tensor itself


def _unpack_from_cpu(packed) -> Tensor:
    return packed[1]


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors on the CPU (where scalargrad's always are): pack and unpack hooks
    that move nothing."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(_pack_to_cpu, _unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Context manager (and decorator): registering saved-tensor hooks inside raises
    ``RuntimeError(error_message)``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self):
        if _stack:  # PyTorch refuses to disable hooks that are registered
            raise RuntimeError(self.error_message)
        _disabled.append(self.error_message)
        return self

    def __exit__(self, *exc) -> None:
        _disabled.pop()

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return func(*args, **kwargs)

        return wrapper


def _saved_tensors(v: Tensor):
    """``(name, source, tensor)`` for each tensor node ``v`` saves, in the order PyTorch saves
    them (by name, which is the order of their first use in derivatives.yaml for mul, div, mm)."""
    op = v._op
    entries = getattr(op, "base", op).saved
    ins = v._in
    out = []
    for entry in sorted(entries, key=lambda e: e[0]):
        name, source = entry[0], entry[1]
        needed_for = entry[2] if len(entry) > 2 else None
        if needed_for is not None and not any(ins[i]._rg for i in needed_for if i < len(ins)):
            continue
        if isinstance(source, int) and not isinstance(source, bool):
            if source < len(ins) and isinstance(ins[source], Tensor):
                out.append((name, source, ins[source]))
        elif source == "result":
            out.append((name, source, None))
    return out


PACK_IN_PLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot be "
    "modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need "
    "to perform in-place operations on the input to a pack hook.")
_FREED = ("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph "
          "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
          "through the graph a second time or if you need to access saved variables after calling backward.")
_HOOKS_SET = ("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of "
              "hooks is allowed at a time.")
SAVED_FREED, HOOKS_SET = _FREED, _HOOKS_SET  # a custom Function's SavedTensor (function.py) says the same


def _pack(pack, t: Tensor):
    """``pack(t)`` under no_grad, as PyTorch packs; a hook that changes ``t`` in place is refused."""
    before = t._version
    prev = grad_mode.state.enabled
    grad_mode.state.enabled = False
    try:
        packed = pack(t)
    finally:
        grad_mode.state.enabled = prev
    if t._version != before:
        raise RuntimeError(PACK_IN_PLACE)
    return packed


class SavedTensor:
    """One tensor a node saved, as ``grad_fn._raw_saved_<name>`` shows it (PyTorch's
    ``torch._C._autograd.SavedTensor``; ``source`` None: nothing was saved). ``data``: the
    packed object under hooks, else a saved input itself or the saved result detached, None
    once the graph is freed; ``unpack_hook``; ``unpack()``; ``register_hooks(pack, unpack)``
    packs at once and makes the node's backward and ``_saved_<name>`` read through ``unpack``."""

    __slots__ = ("_node", "_v", "_name", "_source")

    def __init__(self, node, v: Tensor, name: str, source) -> None:
        self._node, self._v, self._name, self._source = node, v, name, source

    def _packed(self):
        e = self._v._ext
        return e.packed.get(self._name) if e is not None and e.packed is not None else None

    @property
    def data(self):
        v = self._v
        if v._op.is_freed or self._source is None:
            return None
        packed = self._packed()
        if packed is not None:
            return packed[1]
        return v.detach() if self._source == "result" else v._in[self._source]

    @property
    def unpack_hook(self):
        packed = self._packed()
        return None if packed is None else packed[2]

    def unpack(self):
        return getattr(self._node, "_saved_" + self._name)

    def register_hooks(self, pack, unpack) -> None:
        if not callable(pack) or not callable(unpack):
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: collections.abc.Callable,"
                            " arg1: collections.abc.Callable) -> None\n\nInvoked with: "
                            f"{self!r}, {pack!r}, {unpack!r}")
        if self._source is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        v = self._v
        if v._op.is_freed:
            raise RuntimeError(_FREED)
        if self._packed() is not None:
            raise RuntimeError(_HOOKS_SET)
        e = v._ext
        if e is None:
            e = v._ext = Ext()
        if e.packed is None:
            e.packed = {}
        t = _output_of(v) if self._source == "result" else v._in[self._source]
        e.packed[self._name] = (self._source, None, unpack)  # set first: a failed pack leaves them set, as PyTorch
        e.packed[self._name] = (self._source, _pack(pack, t), unpack)

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


def watch_node(v: Tensor) -> None:
    """A new node: refuse it if it saves an inference tensor; pack what it saves if hooks are
    registered."""
    saved = _saved_tensors(v)
    for _name, _source, t in saved:
        if t is not None and t._c is INFERENCE and t._op is None:
            raise RuntimeError(INFERENCE_INPLACE if t is in_place_target() else SAVED_INFERENCE)
    hooks = current_hooks()
    if hooks is None or not saved:
        return
    pack, unpack = hooks
    packed = {}
    for name, source, t in saved:
        packed[name] = (source, _pack(pack, _output_of(v) if t is None else t), unpack)
    e = v._ext
    if e is None:
        e = v._ext = Ext()
    e.packed = packed


def _output_of(v: Tensor) -> Tensor:
    """The saved result as PyTorch hands it to a pack hook: a new tensor object that is the
    same node (its grad_fn is ``v``'s)."""
    r = object.__new__(Tensor)
    for s in ("_val", "_t", "_rg", "_op", "_a", "_b", "_c", "_seq", "_s"):
        setattr(r, s, getattr(v, s))
    r._g = None
    r._ext = Ext()
    r._ext.node = v.grad_fn
    return r


def _call_unpack(packed, unpack) -> Tensor:
    got = unpack(packed)
    if not isinstance(got, Tensor):
        raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                        f"{type(got).__name__}")
    return got


def _alias_of(original: Tensor, got: Tensor) -> Tensor:
    """A node over ``original`` holding ``got``'s elements: its gradient goes to ``original``."""
    return make(Alias, got._t, list(got._val) if got._t.ndim else got._val, (original,), Layout(original._t.shape))


def unpack_one(original: Tensor, packed, unpack) -> Tensor:
    """``unpack(packed)``, checked, carrying ``original``'s place in the graph: the tensor
    itself when the hook returns it, else a tensor with the unpacked elements and the
    original's node (PyTorch gives the unpacked tensor the saved one's autograd metadata)."""
    got = _call_unpack(packed, unpack)
    if got is original:
        return original
    if original._op is None and original._rg:
        # a leaf: PyTorch's unpacked tensor accumulates into the leaf's .grad (a double backward
        # reaches it); the leaf itself when the hook gave back its very memory, else an alias
        # node of it sharing the unpacked tensor's memory and version counter (an in-place
        # change of what backward unpacked changes the hook's tensor, never the leaf)
        if _same_memory(got, original):
            return original
        return alias(got, _alias_of(original, got))
    r = object.__new__(type(original))
    for s in ("_rg", "_op", "_a", "_b", "_c", "_seq"):
        setattr(r, s, getattr(original, s))
    r._val = list(got._val) if got._t.ndim else got._val
    r._t = got._t
    r._g = None
    r._ext = original._ext if original._op is not None else None
    r._s = None
    return alias(got, r)  # PyTorch's unpacked tensor shares the hook's tensor's memory and version


def _same_memory(a: Tensor, b: Tensor) -> bool:
    """Whether ``a`` and ``b`` are the same elements of the same memory (``b.detach()``)."""
    sa, sb = a._s, b._s
    return sa is not None and sb is not None and sa.store is not None and sa.store is sb.store and \
        sa.index == sb.index and a._t.dtype is b._t.dtype and tuple(a._t.shape) == tuple(b._t.shape)


def _graph_read(original: Tensor, packed, unpack) -> Tensor:
    """What a create_graph backward's formula reads for a saved ``original``: a tensor whose
    gradient reaches ``original``'s node itself, as PyTorch's unpacked tensor carries that
    node as its grad_fn (a copy of the node would run its backward a second time, apart: the
    gradients it sends would be summed in another order, and its saved tensors not unpacked
    again). That is ``original`` when the hook gave its elements back, else a stand-in holding
    the unpacked elements whose edges lead to ``original`` itself (``Unpacked``)."""
    if not original._rg:
        return unpack_one(original, packed, unpack)
    got = _call_unpack(packed, unpack)
    if got is original or _same_tensor(got, original):
        return original
    return _stand_in(original, got)


class Unpacked(Alias):
    """The node of what a create_graph backward reads for a saved tensor that a pack hook
    replaced: the unpacked elements over the saved tensor ``original``. PyTorch's
    SavedVariable::unpack gives the unpacked tensor the saved one's own grad_fn (or grad
    accumulator), so a node the backward records over it has an edge straight to that node.
    Here the stand-in is numbered newer than any node (``NEWEST``): every reader of an edge
    (the engine's walk and deliveries, ``next_functions``) then takes it for a tensor changed
    in place after its consumer was made and follows it to the version consumed, its input
    ``original`` (``consumed_version``). It is never a node of its own in the graph, and it was
    never changed: the engine's version check lets it through (``route``)."""


NEWEST = 1 << 62  # above every creation number next_seq() will hand out
STAND_INS = frozenset((Unpacked, Unpacked.tensor))  # a stand-in's op: the class or its tensor variant


def _stand_in(original: Tensor, got: Tensor) -> Tensor:
    r = make(Unpacked, got._t, list(got._val) if got._t.ndim else got._val, (original,), Layout(original._t.shape))
    r._seq = NEWEST
    return r


def _same_tensor(a: Tensor, b: Tensor) -> bool:
    return a._t.dtype is b._t.dtype and tuple(a._t.shape) == tuple(b._t.shape) and _same_elements(a, b)


def _same_elements(a: Tensor, b: Tensor) -> bool:
    """Equal elements, bit for bit as far as Python numbers tell (signed zeros, nan)."""
    xs, ys = (a._val, b._val) if a._t.ndim else ([a._val], [b._val])
    return all(x == y and (x != 0 or str(x) == str(y)) or (x != x and y != y) for x, y in zip(xs, ys))


def unpacked(v: Tensor, graph: bool = False) -> Tensor:
    """A stand-in for node ``v`` whose saved inputs and result are the unpack hooks' tensors,
    for its op's backward to read (its gradients still go to ``v``'s real inputs). Under
    ``graph`` (create_graph) the tensors read lead back to the saved tensors' own nodes
    (``_graph_read``): ``v`` itself when every hook gave its tensor's elements back."""
    packed = v._ext.packed
    ins = list(v._in)
    val, t, out = v._val, v._t, None
    for source, value, unpack in packed.values():
        if source == "result":
            got = _graph_read(v, value, unpack) if graph else unpack_one(v, value, unpack)
            val, t = got._val, got._t
            out = got
        else:
            u = ins[source]
            ins[source] = _graph_read(u, value, unpack) if graph else unpack_one(u, value, unpack)
            if not graph and ins[source] is not u:
                # a leaf's unpacked alias is made under no_grad: it still stands for an input that
                # requires grad (the op's backward computes no gradient for one that does not)
                ins[source]._rg = u._rg
    if graph and (out is None or out is v) and all(a is b for a, b in zip(ins, v._in)):
        return v
    r = object.__new__(Tensor)
    for s in ("_rg", "_op", "_a", "_b", "_c", "_seq", "_g", "_s"):
        setattr(r, s, getattr(v, s))
    r._val = val
    r._t = t
    r._ext = None
    if graph and out is not None:
        r._ext = Ext()
        r._ext.unpacked_out = out
    r._in = tuple(ins)
    return r


node_watchers.append(watch_node)
