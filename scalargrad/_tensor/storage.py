"""Shared memory and version counters: ``.data``, ``.detach()``, views, and in-place writes.

In PyTorch a view (``x[0]``, ``x.t()``, ``x.view(6)``), ``x.detach()`` and ``x.data`` share
``x``'s memory: a write through any of them shows in all. Views and ``detach()`` also share
``x``'s version counter, which every in-place op bumps and which autograd checks (a tensor
saved for backward must not have changed); ``.data`` gets a counter of its own, which is why
changes made through it go unnoticed.

scalargrad keeps each tensor's elements in its own logical order (``Tensor._val``), so reads
cost nothing extra. Sharing is paid for on writes, which are rare: tensors that share memory
form a ``Store`` holding the elements of the first of them (the root) and weak references to
the others with, for each, where its elements sit among the root's (None: in the same order;
such tensors of one or more dimensions share the very list). ``write`` changes a tensor's
elements, then refreshes every other member, bumps the version counter and stamps the change
on the members that share the counter, so that the engine sees a saved tensor that changed.

A tensor that was never aliased nor changed in place has no ``Mem`` (``_s`` is None).
"""

from __future__ import annotations

import weakref
from operator import itemgetter

from .._base.errors import Unsupported
from .._base.grad_mode import state as grad_state
from .._base.meta_data import NO_DATA, meta_refusal, own_copy
from .._ops import views as S
from .tensor import GRADLESS_VIEW, INFERENCE, Ext, Tensor, ext, impl, leaf, next_seq, node_watchers, watch

__all__ = ["Counter", "Mem", "Store", "mem", "store_of", "pick", "write", "write_version", "alias", "share_with_array",
           "pull_arrays", "version_then", "snapshot", "regenerate", "positions_in_base", "refused_view",
           "set_dual_memory", "dual_memory", "write_guards"]

_STAMPS_KEPT = 64
write_guards: list = []
"""Callables ``fn(t)`` run before any write into ``t``, which raise to refuse it (complex_numbers:
the parts of a complex tensor, copies here, are not written through)."""


class Counter:
    """A version counter: ``n`` in-place changes so far, and the creation-number stamps of the
    last ones (to tell how many happened after a given node was made)."""

    __slots__ = ("n", "stamps")

    def __init__(self) -> None:
        self.n = 0
        self.stamps: list = []


class Store:
    """Tensors sharing memory: the root's elements and the members (weakly held)."""

    __slots__ = ("data", "members", "written", "arrays", "handle", "__weakref__")

    def __init__(self, data: list) -> None:
        self.data = data  # the root's elements, row-major (the root's own list if it has dimensions)
        self.members: list = []  # weak references to the member tensors
        self.arrays: list | None = None  # NumPy arrays sharing the memory: ``share_with_array``
        # the stamp of the last write through any member, those with a version counter of
        # their own (``.data``, ``detach()`` of a leaf) included: when values last changed
        self.written = 0
        self.handle = None  # the UntypedStorage object PyTorch's untyped_storage() returns (raw_storage)


class Mem:
    """A tensor's place in memory sharing: its version counter, its store and index map, and
    the tensor it is a view of (``._base``)."""

    __slots__ = ("ver", "store", "index", "base", "offset", "no_grad", "attr")

    def __init__(self, ver: Counter, store: Store | None = None, index=None, base=None, offset: int = 0) -> None:
        self.ver = ver
        self.store = store
        self.index = index  # flat positions of this tensor's elements in store.data; None: same order
        self.base = base  # the tensor this is a view of (PyTorch's ._base)
        self.offset = offset  # PyTorch's storage_offset()
        # a view's CreationMeta: "no_grad" or "inference" when made with grad mode off (or from such
        # a view), False otherwise; ``attr`` is the version its history was made at
        self.no_grad = False
        self.attr = 0


def mem(t: Tensor) -> Mem:
    """``t``'s Mem, made on first need."""
    s = t._s
    if s is None:
        s = t._s = Mem(Counter())
    return s


def store_of(t: Tensor) -> Store:
    """The store ``t`` belongs to, made with ``t`` as its root if it has none."""
    s = mem(t)
    if s.store is None:
        data = t._val if t._t.ndim else [t._val]
        s.store = Store(data)
        s.store.members.append(weakref.ref(t))
        s.index = None
    return s.store


def pick(values, index) -> list:
    """``[values[i] for i in index]``, in C for two or more positions (views gather their
    elements from their base's memory this way: a transposed weight on every step). One value
    is repeated (an expanded 0-dim gradient, every ``sum()``'s backward): its positions are 0."""
    if len(values) == 1:
        return [values[0]] * len(index)
    if len(index) > 1:
        return list(itemgetter(*index)(values))
    return [values[i] for i in index]


TRANSPOSES: dict = {}
"""id(index) -> (index, columns): the index lists of 2-D transposes of 16 or more rows (made once
and kept by ``views._permutation``), over a row-major memory of that many columns."""


def _transposed(data: list, index: list) -> list | None:
    """``pick(data, index)`` for a registered transpose (``TRANSPOSES``) of the whole memory (a
    Linear layer's ``weight.t()``, refreshed after each optimizer step), gathered a column slice
    at a time: 3-4 times as fast as ``pick``. None for any other index."""
    entry = TRANSPOSES.get(id(index))
    if entry is None or entry[0] is not index or len(index) != len(data):
        return None
    c = entry[1]
    out: list = []
    for j in range(c):
        out.extend(data[j::c])
    return out


_COMPOSED: dict = {}


def _composed(outer: list, inner: list) -> list:
    """``pick(outer, inner)``: a view of a view's positions in the memory (index lists are never
    changed once made). Remembered by the two lists' identities, which the entry keeps alive so
    that no other list takes their ids: ``w.t().t()``, every step of a Linear layer's backward."""
    key = (id(outer), id(inner))
    hit = _COMPOSED.get(key)
    if hit is not None and hit[0] is outer and hit[1] is inner:
        return hit[2]
    index = pick(outer, inner)
    if len(_COMPOSED) < 16 and len(inner) <= 65536:  # a bounded few, of bounded size
        _COMPOSED[key] = (outer, inner, index)
    return index


def alias(t: Tensor, new: Tensor, index=None, share_version: bool = True, view: bool = False,
          offset: int = 0) -> Tensor:
    """Make ``new`` share ``t``'s memory: ``index`` gives the flat positions of ``new``'s
    elements among ``t``'s (None: the same elements in the same order). ``new._val`` must
    already hold those elements."""
    st = store_of(t)
    ts = t._s
    if index is None:
        index = ts.index
    elif ts.index is not None:
        index = _composed(ts.index, index)
    if index is None and new._t.ndim and t._t.ndim:
        new._val = st.data  # the same elements in the same order: the same list
    ver = ts.ver if share_version else Counter()
    base = None
    if view:
        base = ts.base if ts.base is not None else t
    new._s = Mem(ver, st, index, base, offset)
    st.members.append(weakref.ref(new))
    if st.arrays and any(entry[3] is not None for entry in st.arrays):
        new.__class__ = _pulling_class(new.__class__)
    if t._c is INFERENCE and t._op is None and new._op is None:
        new._c = INFERENCE  # a view (or detach) of an inference tensor is one too
    elif new._c is INFERENCE and new._op is None:
        # made inside inference mode from a normal tensor: a normal tensor; a view keeps its
        # base's requires_grad, without a history (PyTorch records none in the mode)
        new._rg = view and t._rg
        new._c = GRADLESS_VIEW if new._rg else None
    if view and _dual_memory is not None:
        _dual_memory[3](t, new)
    return new


def version_then(t: Tensor, seq: int) -> int:
    """The version ``t`` had when the node with creation number ``seq`` was made."""
    s = t._s
    if s is None:
        return 0
    after = sum(1 for stamp in s.ver.stamps if stamp > seq)
    return s.ver.n - after


_dual_memory = None  # forward-mode AD's hooks: (inplace, written, tangent_of, viewed), or None


def set_dual_memory(inplace=None, written=None, tangent_of=None, viewed=None) -> None:
    """Install forward-mode AD's hooks (while a tangent exists): ``inplace(t, res, apply)``, told
    that an in-place op makes ``t`` its result ``res`` by ``apply``; ``written(t)``, told of
    any other write into ``t``'s memory; ``tangent_of(t)`` (for printing); ``viewed(t, new)``,
    told that ``new`` became a view of ``t`` (its tangent becomes a view of ``t``'s). None: off."""
    global _dual_memory
    _dual_memory = None if inplace is None else (inplace, written, tangent_of, viewed)


def dual_memory():
    """Forward-mode AD's ``(inplace, written, tangent_of)`` hooks while a tangent exists, else None."""
    return _dual_memory


def write_version(t: Tensor) -> None:
    """An in-place change of ``t`` that writes no element (a meta tensor's): the version
    counter moves on and the change is stamped on ``t``, as ``write`` does."""
    stamp = next_seq()
    ver = mem(t).ver
    ver.n += 1
    ver.stamps.append(stamp)
    if len(ver.stamps) > _STAMPS_KEPT:
        del ver.stamps[0]
    _stamp(t, stamp)


def write(t: Tensor, values, keep=None, graph: bool = False) -> None:
    """Store ``values`` (a number for a 0-dim tensor, a row-major list otherwise) as ``t``'s
    elements, in place: every tensor sharing the memory sees them, the version counter moves
    on, and the change is stamped on the tensors sharing the counter. The views among them
    that are graph nodes get a new history over their base (``regenerate``), except ``keep``,
    which the caller regenerates itself; with ``graph`` (the change is recorded, so the memory
    now requires grad) so do the views made in grad mode that did not require grad."""
    if t._val is NO_DATA:  # a meta tensor: only the ops that know the meta device change one
        raise meta_refusal()
    for guard in write_guards:
        guard(t)
    s = mem(t)
    st = s.store
    if st is not None and st.arrays:
        _check_arrays(st)  # before anything changes: nothing is half-applied
    if _dual_memory is not None:
        _dual_memory[1](t)  # forward-mode AD: a tangent this write would leave behind is refused
    stamp = next_seq()
    ver = s.ver
    ver.n += 1
    ver.stamps.append(stamp)
    if len(ver.stamps) > _STAMPS_KEPT:
        del ver.stamps[0]
    if st is None:
        if t._t.ndim:
            t._val[:] = values
        else:
            t._val = values
        _stamp(t, stamp)
        _refuse_inference(t)
        return
    stale = _stale_views(t, st, ver, keep, graph)
    st.written = stamp
    data = st.data
    idx = s.index
    if idx is None:
        if t._t.ndim:
            data[:] = values
        else:
            data[0] = values
    elif t._t.ndim:
        for i, x in zip(idx, values):
            data[i] = x
    else:
        data[idx[0]] = values
    live = []
    for ref in st.members:
        m = ref()
        if m is None:
            continue
        live.append(ref)
        ms = m._s
        mi = ms.index
        if m._t.ndim:
            if mi is not None:
                m._val[:] = _transposed(data, mi) or pick(data, mi)
            elif m._val is not data:  # a view with dimensions of a 0-dim root keeps its own list
                m._val[:] = data
        else:
            m._val = data[0] if mi is None else data[mi[0]]
        if ms.ver is ver:
            _stamp(m, stamp)
    st.members = live
    if st.arrays:
        _refresh_arrays(st)
    for m, old in stale:
        regenerate(m, old)
    _refuse_inference(t)


SHARED_READ_ONLY = "writing to a tensor that shares memory with a read-only NumPy array"

# A writable NumPy array of at most this many elements stays writable while it shares a tensor's
# memory (the tutorials' ``np.add(n, 1, out=n)``): a read of a tensor of the store compares the
# array with its last copy, a bytes compare, and takes what the program wrote. A larger array is
# read-only while shared (NumPy then refuses a write), since that compare costs a copy of it per read.
WRITABLE_ARRAY_LIMIT = 1 << 16

_VAL = Tensor.__dict__["_val"]  # the slot's own descriptor, which the pulling class's property wraps
_get_slot, _set_slot = _VAL.__get__, _VAL.__set__


def _pulled_val(self):
    s = self._s
    if s is not None and s.store is not None and s.store.arrays:
        pull_arrays(s.store)
    return _get_slot(self, None)


_PULLING: dict = {}  # class -> its twin whose ``_val`` first takes what the arrays' programs wrote


def _pulling_class(cls: type) -> type:
    """``cls``'s twin (same name, module and layout) whose element reads first pull the writable
    arrays of the tensor's store: a tensor is moved to it, by ``__class__`` assignment, only while
    its memory is shared with such an array, so no other tensor pays for the check."""
    if getattr(cls, "_pulls_arrays", False):
        return cls
    twin = _PULLING.get(cls)
    if twin is None:
        twin = _PULLING[cls] = type(cls)(cls.__name__, (cls,), {
            "__slots__": (), "_val": property(_pulled_val, _set_slot), "_pulls_arrays": True,
            "__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__})
    return twin


def share_with_array(t: Tensor, arr) -> None:
    """Keep the NumPy array ``arr``, which holds a copy of ``t``'s elements in ``t``'s logical
    order, equal to ``t``'s memory, as PyTorch's ``from_numpy``/``numpy()`` share it: every
    later write through any tensor of the store is copied into ``arr``, and what the program
    writes into a writable ``arr`` of at most ``WRITABLE_ARRAY_LIMIT`` elements is seen by the
    next read of any tensor of the store (``pull_arrays``). A larger or read-only array cannot
    be written while a tensor of the store lives (its ``writeable`` flag is off, so NumPy refuses
    the write: never a silent divergence); when the last tensor of the store is gone, it is
    writable again if it was before."""
    st = store_of(t)
    if st.arrays is None:
        st.arrays = []
        weakref.finalize(st, _release_arrays, st.arrays)
    writable = bool(arr.flags.writeable)
    copy = None
    if writable and arr.size <= WRITABLE_ARRAY_LIMIT:
        copy = arr.tobytes()
        for ref in st.members:
            m = ref()
            if m is not None:
                m.__class__ = _pulling_class(m.__class__)
    bases: list = []
    if copy is None:
        arr.flags.writeable = False
        bases = _lock_bases(arr)
    # [array, positions of its elements in the store (None: the same order), writable before,
    #  its bytes when last equal to the store (None: read-only while shared), the arrays it views
    #  (read-only as long as it is)]
    # A view of another array (``a.T``, ``x[:, 0]``) is held as PyTorch's storage holds the array it
    # was given: the program writes and reads that memory through the base array, so a temporary
    # view must live as long as the store; an array without a base is observed only while the
    # program holds it.
    ref = weakref.ref(arr) if arr.base is None else _Held(arr)
    st.arrays.append([ref, t._s.index, writable, copy, bases])


class _Held:
    """A strong reference called as a ``weakref.ref`` is (``ref()`` -> the array)."""

    __slots__ = ("array",)

    def __init__(self, array) -> None:
        self.array = array

    def __call__(self):
        return self.array


# The arrays a read-only shared view views (``big[:, 0]``'s ``big``), by id: [array, writable before, how
# many shared views hold it read-only]. A write through ``big`` would change the view's memory unseen by
# the tensor (its bytes are not compared, unlike a small array's), so NumPy is made to refuse it too.
_LOCKED_BASES: dict[int, list] = {}


def _lock_bases(arr) -> list:
    bases, b = [], arr.base
    while b is not None and hasattr(b, "flags") and hasattr(b, "base"):  # an ndarray, not bytes or mmap
        rec = _LOCKED_BASES.get(id(b))
        if rec is None:
            rec = _LOCKED_BASES[id(b)] = [b, bool(b.flags.writeable), 0]
        rec[2] += 1
        b.flags.writeable = False
        bases.append(b)
        b = b.base
    return bases


def _set_writeable(arr, bases: list, flag: bool) -> None:
    """Unlock (the outermost array first, as NumPy requires) or lock an array and what it views."""
    if flag:
        for b in reversed(bases):
            b.flags.writeable = True
        arr.flags.writeable = True
    else:
        arr.flags.writeable = False
        for b in bases:
            b.flags.writeable = False


def _release_arrays(arrays: list) -> None:
    for ref, _index, writable, copy, bases in arrays:
        for b in reversed(bases):
            rec = _LOCKED_BASES[id(b)]
            rec[2] -= 1
            if rec[2] == 0:
                del _LOCKED_BASES[id(b)]
                b.flags.writeable = rec[1]
        arr = ref()
        if arr is not None and writable and copy is None:
            arr.flags.writeable = True


def _check_arrays(st: Store) -> None:
    """PyTorch writes into an array it was given read-only (a warning at ``from_numpy``, then
    undefined behaviour); scalargrad refuses the write."""
    for ref, _index, writable, _copy, _bases in st.arrays:
        if not writable and ref() is not None:
            raise Unsupported(SHARED_READ_ONLY)


def _refresh_arrays(st: Store) -> None:
    """Copy the store's new elements into the arrays that share its memory."""
    data = st.data
    live = []
    for entry in st.arrays:
        arr = entry[0]()
        if arr is None:
            continue
        live.append(entry)
        index = entry[1]
        if entry[3] is None:
            _set_writeable(arr, entry[4], True)
            arr.flat[:] = data if index is None else [data[i] for i in index]
            _set_writeable(arr, entry[4], False)
        else:
            arr.flat[:] = data if index is None else [data[i] for i in index]
            entry[3] = arr.tobytes()
    st.arrays[:] = live


def pull_arrays(st: Store) -> None:
    """Take into the store what the program wrote into its writable arrays since they were last
    equal to it (``np.add(n, 1, out=n)``), and show it in every member, as shared memory would:
    no version counter moves (PyTorch's does not see a write through NumPy either)."""
    data = st.data
    changed = False
    for entry in st.arrays:
        copy = entry[3]
        if copy is None:
            continue
        arr = entry[0]()
        if arr is None:
            continue
        now = arr.tobytes()
        if now == copy:
            continue
        entry[3] = now
        values = arr.ravel().tolist()
        index = entry[1]
        if index is None:
            data[:] = values
        else:
            for i, x in zip(index, values):
                data[i] = x
        changed = True
    if not changed:
        return
    st.written = next_seq()  # the proof's ``overwritten``: these are not the values nodes computed with
    for ref in st.members:
        m = ref()
        if m is None:
            continue
        mi = m._s.index
        if m._t.ndim:
            val = _get_slot(m, None)
            if mi is not None:
                val[:] = pick(data, mi)
            elif val is not data:
                val[:] = data
        else:
            _set_slot(m, data[0] if mi is None else data[mi[0]])
    _refresh_arrays(st)  # the store's other arrays


INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


_in_place_target: list = [None]  # the tensor an in-place op is about to change (``inplace``)


def in_place_target(t: Tensor | None = None, set_it: bool = False):
    """The tensor the running in-place op changes (``set_it``: make it ``t``, None when done).
    A node saving it is refused with PyTorch's in-place error, not the saving one: PyTorch saves
    an in-place op's ``self`` after the kernel, whose version bump refuses an inference tensor."""
    if set_it:
        _in_place_target[0] = t
    return _in_place_target[0]


def inference_outside_mode(t: Tensor) -> bool:
    """An inference tensor changed outside inference mode (PyTorch refuses it after the kernel)."""
    return t._c is INFERENCE and t._op is None and not grad_state.inference


def _refuse_inference(t: Tensor) -> None:
    """PyTorch changes an inference tensor in place outside inference mode, then refuses (its
    version counter, which it has not, is bumped after the kernel ran)."""
    if inference_outside_mode(t):
        raise RuntimeError(INFERENCE_INPLACE)


def _stale_views(t: Tensor, st: Store, ver: Counter, keep, graph: bool = False) -> list:
    """The views sharing ``ver`` whose history PyTorch regenerates when their memory changes
    (views in a graph; with ``graph``, also those made in grad mode that did not require grad:
    PyTorch regenerates a view's grad_fn whenever its base's version moved on), each with a
    snapshot of its present version."""
    out = []
    for ref in st.members:
        m = ref()
        if m is None or m is keep:
            continue
        ms = m._s
        if ms.ver is ver and ms.base is not None:
            if ms.no_grad:
                # PyTorch refuses such a view's history from now on (view_history): looked for
                # in the ops that take it; when the change of its base ``t`` is recorded, the view
                # requires grad as its base now does, so that an op taking it asks for that history
                watch("stale_views", True)
                if graph and not m._rg and m._c is None and (ms.base is t or ms.base._rg):
                    m._rg, m._c = True, GRADLESS_VIEW
            elif m._op is not None or graph and not m._rg:
                out.append((m, snapshot(m)))
    return out


def snapshot(t: Tensor) -> Tensor:
    """A new tensor object that takes over ``t``'s present version in the graph: its elements
    (a copy), its node, and what was registered on that node (the grad_fn object, tensor
    hooks, the output slot of a multi-output node), so that the nodes made before an in-place
    change keep consuming it. It reports the live tensor's version counter in errors."""
    old = object.__new__(Tensor)
    for a in ("_val", "_t", "_rg", "_op", "_a", "_b", "_c", "_seq", "_g"):
        setattr(old, a, getattr(t, a))
    if t._t.ndim:
        old._val = list(t._val)
    old._s = Mem(mem(t).ver)
    e = t._ext
    old._ext = None
    if e is not None:
        oe = old._ext = Ext()
        oe.node, oe.hooks, oe.modified, oe.pick = e.node, e.hooks, e.modified, e.pick
        oe.saved_self = e.saved_self
        oe.detached = e.detached  # left on t too: the write that follows stamps the node detached from
        if oe.node is not None:
            oe.node._v = old
        he = e.pick[0]._ext if e.pick is not None else None
        if he is not None and he.out_hooks:  # the shared node runs the old version's hooks
            he.out_hooks = tuple(old if o is t else o for o in he.out_hooks)
        e.node = None
        e.hooks = None
        e.modified = 0
        e.pick = None
        e.saved_self = None
    return old


def positions_in_base(t: Tensor) -> list:
    """The flat (row-major) positions in its base of the elements of view ``t``."""
    s = t._s
    base = s.base
    n = t._t.numel
    idx = list(range(n)) if s.index is None else list(s.index)
    bs = base._s
    if bs is not None and bs.index is not None:
        inv = {p: i for i, p in enumerate(bs.index)}
        idx = [inv[p] for p in idx]
    return idx


_MULTI_OUTPUT_CHANGED = (
    "Output {i} of {name} is a view and its base or another view of its base has been modified inplace. This view "
    "is the output of a function that returns multiple views. Such functions do not allow the output views to be "
    "modified inplace. You should replace the inplace operation by an out-of-place one.")


def regenerate(m: Tensor, old: Tensor) -> None:
    """Give view ``m`` PyTorch's regenerated history: an AsStridedBackward0 node over its base's
    current version; ``old`` (its ``snapshot``) keeps its former one."""
    base = m._s.base
    layout = S.Layout(base._t.shape, base._t.dtype, map=positions_in_base(m), prev=old,
                      raw={"size": tuple(m._t.shape), "stride": tuple(m._t.strides), "storage_offset": m._s.offset})
    pick = old._ext.pick if old._ext is not None else None
    if pick is not None:  # an output of unbind/split: PyTorch refuses to use it from now on
        h, i = pick
        layout.error = _MULTI_OUTPUT_CHANGED.format(i=i, name=h.grad_fn.name().replace("Backward0", ""))
    else:
        layout.error = refused_view(old)  # refused already: still refused after another change
    if layout.error is not None:
        watch(_REFUSED, True)  # from now on new nodes check for such inputs (_refuse_inputs)
    op = S.AsStrided.tensor if (m._t.ndim or base._t.ndim) else S.AsStrided
    m._op = op
    m._a = base
    m._b = None
    m._c = layout
    m._rg = True
    m._seq = next_seq()


_REFUSED = "views of a multi-output op whose base changed"


def refused_view(t: Tensor) -> str | None:
    """PyTorch's error for using ``t`` in a graph, when ``t`` is an output of unbind/split whose
    memory changed in place (regenerating its grad_fn raises: handle_view_on_rebase)."""
    c = t._c
    if t._op is None or not isinstance(c, S.Layout) or not isinstance(c.error, str):
        return None
    return c.error


def _refuse_inputs(v: Tensor) -> None:
    """A node watcher: an op recording a node over such a view reads its grad_fn, and raises."""
    for u in v._in:
        err = refused_view(u)
        if err is not None:
            raise RuntimeError(err)


node_watchers.append(_refuse_inputs)


def _stamp(t: Tensor, stamp: int) -> None:
    """Mark ``t`` changed at ``stamp``: a leaf's ``_seq`` is its last change; a node keeps its
    creation number (the backward order) and records the change where the engine looks."""
    if t._op is None:
        t._seq = stamp
        e = t._ext
        if e is not None and e.detached is not None:
            _stamp(e.detached[0], stamp)  # the node it was detached from: its saved result is overwritten
    else:
        e = ext(t)
        e.modified = stamp
        if t._op.saves_output and not t._op.is_freed:
            # its backward reads the value just overwritten, saved at the version before
            t._op = t._op.stale
            e.saved_version = mem(t).ver.n - 1


def fresh_leaf(t: Tensor, cls=None, requires_grad: bool = False) -> Tensor:
    """A new leaf of ``t``'s type holding ``t``'s elements (its own copy of the list)."""
    return leaf(own_copy(t._val, t._t.ndim), t._t, requires_grad, cls)


def creation_meta(src: Tensor, view: Tensor) -> None:
    """Record PyTorch's CreationMeta of ``view``, just made from ``src``: a view made with grad
    mode off is NO_GRAD_MODE (INFERENCE_MODE in inference mode), and a view of such a view made
    in grad mode inherits it. Made with grad mode off from a tensor that requires grad, it
    requires grad too, without a history (``GRADLESS_VIEW``)."""
    s = view._s
    ss = src._s
    meta = ss.no_grad if ss is not None and ss.base is not None else False
    if view._c is INFERENCE:  # a view of an inference tensor: no autograd meta at all
        return
    if not grad_state.enabled:
        meta = "inference" if meta == "inference" or grad_state.inference else "no_grad"
        if src._rg and view._op is None:
            view._rg = True
            view._c = GRADLESS_VIEW
    elif src._ext is not None and src._ext.pick is not None and meta != "inference":
        meta = "multi"  # a view of an output of unbind/split inherits its MULTI_OUTPUT_NODE
    s.no_grad = meta
    s.attr = s.ver.n


def multi_output_views(outs) -> None:
    """The outputs of unbind/split made in grad mode from a tensor that does not require grad:
    PyTorch's MULTI_OUTPUT_NODE CreationMeta without a grad_fn ("multi"). Changed in place by
    an op that records (an operand requires grad), or used after their memory changed so, they
    are refused as a no_grad view is, with the multiple-views sentence. (Outputs of a tensor
    that requires grad are told by their ``_ext.pick``, views of them by "multi".)"""
    if not grad_state.enabled:
        return  # NO_GRAD_MODE or INFERENCE_MODE, recorded by creation_meta
    for o in outs:
        s = o._s
        if s is not None and s.base is not None and s.no_grad != "inference" and o._c is not INFERENCE:
            s.no_grad = "multi"


def view_rebase_error(t: Tensor, indirect: bool) -> RuntimeError:
    """PyTorch's error (handle_view_on_rebase) for view ``t`` with a NO_GRAD_MODE or
    INFERENCE_MODE CreationMeta, changed in place (or, ``indirect``, its memory changed
    through its base or another view) where the change would be recorded."""
    changed = "its base or another view of its base has been" if indirect else "is being"
    if t._s.no_grad == "multi":
        return RuntimeError(multi_output_message(t, changed))
    if t._op is not None:
        node = ext(t).node or impl.node_for(t)  # not t.grad_fn, which asks view_history
        prefix = f"Output 0 of {node.name().replace('Backward0', '')} is a view of a view which was created in"
    else:
        prefix = "A view was created in"
    if t._s.no_grad == "inference":
        msg, block = f"{prefix} inference mode and {changed} modified inplace in normal mode.", "inference_mode"
    else:
        msg, block = f"{prefix} no_grad mode and {changed} modified inplace with grad mode enabled.", "no_grad"
    return RuntimeError(
        f"{msg} Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
        f"by moving both the view and the inplace either both inside the {block} block (if you don't want the "
        "inplace to be tracked) or both outside (if you want the inplace to be tracked).")


_MULTI_OUTPUT = (" This view is the output of a function that returns multiple views. Such functions do not allow "
                 "the output views to be modified inplace. You should replace the inplace operation by an out-of-place "
                 "one.")


def multi_output_message(t: Tensor, changed: str) -> str:
    """handle_view_on_rebase's text for a MULTI_OUTPUT_NODE view: named by its grad_fn and
    output number (an output of unbind/split: that node's), or as made in no_grad mode when it
    has none."""
    if t._op is None:
        return (f"A view was created in no_grad mode and {changed} modified inplace with grad mode enabled."
                f"{_MULTI_OUTPUT}")
    e = t._ext
    if e is not None and e.pick is not None:
        h, i = e.pick
        he = h._ext
        node = he.node if he is not None and he.node is not None else impl.node_for(h)
    else:
        i = 0
        node = (e.node if e is not None else None) or impl.node_for(t)
    name = node.name().replace("Backward0", "")
    return f"Output {i} of {name} is a view and {changed} modified inplace.{_MULTI_OUTPUT}"


def view_history(t: Tensor) -> None:
    """PyTorch's grad_fn getter on a view with a NO_GRAD_MODE or INFERENCE_MODE CreationMeta
    (reading ``grad_fn`` or ``is_leaf``, or recording an op on it): once its memory changed
    since the view was made, regenerating its history is refused, if it has one or its base
    requires grad."""
    s = t._s
    if getattr(t._op, "check_inplace", None) is not None:
        return  # a custom Function's output: its own CreationMeta (function.py)
    if s.base is not None and s.ver.n != s.attr and (t._op is not None or s.base._rg):
        raise view_rebase_error(t, indirect=True)


def _check_inputs(v: Tensor) -> None:
    """A new node: its inputs' grad_fn are read (PyTorch's collect_next_edges)."""
    for u in v._in:
        s = u._s
        if s is not None and s.no_grad:
            view_history(u)


def views_follow(base: Tensor) -> None:
    """``base.requires_grad`` changed: its views without a history follow it, as PyTorch's view
    requires grad when its base does (such a view has no AccumulateGrad: ``GRADLESS_VIEW``)."""
    st = base._s.store
    for ref in st.members if st is not None else ():
        m = ref()
        if m is None or m._s.base is not base or m._op is not None:
            continue
        if base._rg and not m._rg and m._c is None:
            m._rg, m._c = True, GRADLESS_VIEW
        elif not base._rg and m._c is GRADLESS_VIEW:  # not one whose own flag was set
            m._rg, m._c = False, None


impl.view_history = view_history
impl.views_follow = views_follow
node_watchers.append(_check_inputs)
