"""``torch.utils.swap_tensors(t1, t2)``: two Tensor objects exchange their contents, each keeping
its identity (what ``Module._apply`` and ``load_state_dict`` use under
``torch.__future__.set_swap_module_params_on_conversion(True)``).

PyTorch swaps the Python class, ``__dict__`` and slots, then the ``at::Tensor`` behind each
object; it refuses a tensor with a weak reference, and one whose ``at::Tensor`` is held elsewhere
(``_use_count() > 1``: a view's base, another tensor's ``.grad``, a saved tensor), but for a leaf
whose only other holder is its AccumulateGrad node, which it poisons. In scalargrad a tensor's
contents are its slots, so they are exchanged, and the few internal objects that point back at
the Python object are re-pointed: the store's member list (memory sharing), the grad_fn object.
What would hold the ``at::Tensor`` in PyTorch is found with ``gc.get_referrers``: a view's
``Mem.base`` or another tensor's ``_g`` gives PyTorch's use-count error; a live graph node
that takes the tensor as an input (where PyTorch may poison or refuse, depending on what the
node saved) is ``Unsupported``.
"""

from __future__ import annotations

import gc
import weakref

from .._base.errors import Unsupported
from .attributes import _TAILS
from .storage import Mem
from .tensor import MANY, Ext, Tensor

__all__ = ["swap_tensors", "swap_contents", "check_swappable"]

_SLOTS = tuple(s for s in Tensor.__slots__ if s != "__weakref__")


def _user_weakrefs(t: Tensor) -> list:
    """``t``'s weak references but scalargrad's own (memory sharing, a resized tensor's tail)."""
    own = set()
    s = t._s
    if s is not None and s.store is not None:
        own.update(id(r) for r in s.store.members)
    tail = _TAILS.get(id(t))
    if tail is not None:
        own.add(id(tail[0]))
    return [r for r in weakref.getweakrefs(t) if id(r) not in own]


def _holders(t: Tensor, referrers: list) -> tuple[int, bool]:
    """(how many views and gradients hold ``t``, whether a graph node takes it as an input)."""
    held, in_graph = 0, False
    for r in referrers:
        if isinstance(r, Mem) and r.base is t:
            held += 1
        elif isinstance(r, Tensor) and r is not t:
            if r._g is t:
                held += 1
            if r._a is t or r._b is t or (r._b is MANY and any(x is t for x in r._a)):
                in_graph = True
        elif isinstance(r, Ext) and any(getattr(r, s, None) is t for s in Ext.__slots__):
            in_graph = True  # a saved clone, a multi-output pick, an unpacked stand-in
    return held, in_graph


def _refusal(t: Tensor, name: str, referrers: list) -> Exception | None:
    """PyTorch's error for swapping ``t`` held by ``referrers``; None if it may be swapped."""
    held, in_graph = _holders(t, referrers)
    leaf = t._op is None
    if held:  # PyTorch's use count: the holders, the object, a leaf's AccumulateGrad
        count = held + 1 + (leaf and in_graph)
        if count == 2 and leaf and not t._rg:  # PyTorch asks for the gradient edge first
            return RuntimeError("It is not possible to get the gradient edge for a Tensor that does not "
                                "require gradients")
        return RuntimeError(f"Expected use_count of {name} to be 1 or 2 with an AccumulateGrad node but got "
                            f"{count} make sure you are not holding references to the tensor in other places.")
    if in_graph:
        return Unsupported(f"torch.utils.swap_tensors of a tensor that a live autograd graph uses ({name})",
                          "PyTorch poisons or refuses it depending on what the graph saved; run backward "
                          "(or drop the graph) before swapping")
    return None


def check_swappable(tensors: list, released: tuple = ()) -> dict:
    """``{id(t): error}`` for those of ``tensors`` that ``swap_tensors`` would refuse (a view, a
    gradient slot or a graph node holds them), found in one pass over the heap (a module's every
    parameter at once); the gradient slot of a tensor in ``released`` does not count (``_apply``
    lets go of it first). Unsupported (a live graph uses one) is raised at once."""
    gc.collect()  # a graph no longer reachable may wait in a reference cycle: not a holder
    ids = {id(t): t for t in tensors}
    skip = {id(t) for t in released}
    found: dict = {}
    for o in gc.get_objects():
        cls = type(o)  # (not isinstance: some objects answer __class__ with a warning)
        if issubclass(cls, Tensor):
            refs = [o._a, o._b, *(o._a if o._b is MANY else ())]
            if id(o) not in skip:
                refs.append(o._g)
        elif cls is Mem:
            refs = [o.base]
        elif cls is Ext:
            refs = [getattr(o, s, None) for s in Ext.__slots__]
        else:
            continue
        for x in refs:
            if id(x) in ids and x is not o:
                found.setdefault(id(x), []).append(o)
    refused = {}
    for key, referrers in found.items():
        refusal = _refusal(ids[key], "t1", referrers)
        if refusal is not None:
            refused[key] = refusal
    found.clear()  # a raised error's frames must not keep the graph alive
    unsupported = next((e for e in refused.values() if isinstance(e, Unsupported)), None)
    if unsupported is not None:
        raise unsupported
    return refused


def swap_tensors(t1: Tensor, t2: Tensor) -> None:
    """Exchange the contents of ``t1`` and ``t2`` (class, attributes, elements, autograd state);
    each object keeps its identity. Refused as PyTorch refuses it (a weak reference, a view or
    gradient holding either); one a live graph uses is Unsupported."""
    if isinstance(t1, Tensor) and isinstance(t2, Tensor) and t1 is not t2:
        for attempt in (0, 1):
            referrers = gc.get_referrers(t1, t2)
            if attempt or not any(_holders(t, referrers) != (0, False) for t in (t1, t2)):
                break
            gc.collect()  # a graph no longer reachable may wait in a reference cycle: not a holder
        refusals = [_refusal(t1, "t1", referrers), _refusal(t2, "t2", referrers)]
        referrers.clear()  # a raised error's frames must not keep the graph alive
        for refusal in refusals:
            if refusal is not None:
                raise refusal
    swap_contents(t1, t2)


def swap_contents(t1: Tensor, t2: Tensor) -> None:
    """``swap_tensors`` once the holders of both are known to allow it (``check_swappable``)."""
    for t, name in ((t1, "t1"), (t2, "t2")):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors(): {name} must be a Tensor, not {type(t).__name__}")
        if _user_weakrefs(t):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")
    if hasattr(t1, "__dict__") != hasattr(t2, "__dict__"):
        raise Unsupported(f"torch.utils.swap_tensors of a {type(t1).__name__} and a {type(t2).__name__}",
                          "scalargrad's Tensor has no __dict__ and its subclasses do: their objects cannot "
                          "exchange classes")
    if t1 is t2:
        return
    old_stores = [t._s.store if t._s is not None else None for t in (t1, t2)]
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    if hasattr(t1, "__dict__"):
        t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    for slot in _SLOTS:
        v1, v2 = getattr(t1, slot, _UNSET), getattr(t2, slot, _UNSET)
        _put(t1, slot, v2)
        _put(t2, slot, v1)
    if old_stores[0] is not old_stores[1]:  # each store's member is now the other object
        for store, was, now in ((old_stores[0], t1, t2), (old_stores[1], t2, t1)):
            if store is not None:
                store.members = [weakref.ref(now) if r() is was else r for r in store.members]
    tail1, tail2 = _TAILS.pop(id(t1), None), _TAILS.pop(id(t2), None)
    for t, tail in ((t1, tail2), (t2, tail1)):
        if tail is not None:
            key = id(t)
            _TAILS[key] = (weakref.ref(t, lambda _r, k=key: _TAILS.pop(k, None)), tail[1])
        e = t._ext
        if e is not None and e.node is not None:
            e.node._v = t  # the grad_fn (or AccumulateGrad) object follows the contents


_UNSET = object()


def _put(t: Tensor, slot: str, value) -> None:
    if value is _UNSET:
        if hasattr(t, slot):
            delattr(t, slot)
    else:
        setattr(t, slot, value)
