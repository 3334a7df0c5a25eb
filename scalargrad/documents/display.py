"""A notebook cell's displayed result as IPython shows it, without IPython.

Jupyter shows the value of a cell's last expression (``Out[n]``) through IPython's pretty
printer (``IPython.lib.pretty``), not ``repr``: a container that does not fit in 79 columns is
broken at its commas, an object whose class has no ``__repr__`` shows as ``<Name at 0x...>``
(``<AddBackward0 at 0x7f...>``, not ``<AddBackward0 object at 0x7f...>``), an OrderedDict as
``OrderedDict([('a', 1)])`` on every Python. ``display_text`` reproduces that printer: the same
choice of printer for each type (registered types, ``_repr_pretty_``, a ``__repr__`` in the
class, the default), and the same line-breaking algorithm (groups broken outermost first, the
most recent group of a depth first, as IPython's queue does it).

scalargrad's own classes stand for PyTorch's: where PyTorch's class has no ``__repr__`` (its
graph nodes, ``RemovableHandle``, ``Generator``), scalargrad's prints what ``object.__repr__``
prints for PyTorch's (``<MulBackward0 object at 0x...>``); such a repr is shown as IPython's
default printer shows PyTorch's object.
"""

from __future__ import annotations

import collections
import datetime
import inspect
import os
import re
import types
from collections import deque

__all__ = ["display_text", "PICTURE_METHODS", "Printer"]

WIDTH = 79  # IPython's default max_width
MAX_SEQ_LENGTH = 1000  # IPython's default: longer sequences end with "..."
PICTURE_METHODS = ("_repr_svg_", "_repr_png_", "_repr_jpeg_")
_BUILTIN_MODULES = (None, "__builtin__", "builtins", "exceptions")
_STANDS_FOR_DEFAULT = re.compile(r"^<([\w.]+) object at (0x[0-9a-fA-F]+)>$")


def display_text(value, sort_dict_keys: bool = False) -> str:
    """What Jupyter shows as ``text/plain`` for ``value``; "" for an object Jupyter shows as a
    picture (a graph drawn by ``make_dot``), whose picture is not compared.
    ``sort_dict_keys``: as IPython before 5 (with Python before 3.6) showed a dict, its keys
    sorted."""
    if any(hasattr(type(value), a) for a in PICTURE_METHODS):
        return ""
    p = Printer(sort_dict_keys=sort_dict_keys)
    p.pretty(value)
    return p.getvalue()


def _safe_getattr(obj, name: str, default=None):
    try:
        return getattr(obj, name, default)
    except Exception:
        return default


# ---------------------------------------------------------------- the line-breaking engine


class _Group:
    __slots__ = ("depth", "breaks", "broken")

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.breaks: deque = deque()  # its pending break points, oldest first
        self.broken = False  # it no longer fits: each of its break points is a new line


class _Break:
    """A place where a line may be broken: ``sep`` if its group fits, else a new line."""

    __slots__ = ("sep", "width", "indent", "group")

    def __init__(self, sep: str, indent: int, group: _Group) -> None:
        self.sep = sep
        self.width = len(sep)
        self.indent = indent
        self.group = group


class _Text:
    __slots__ = ("parts", "width")

    def __init__(self) -> None:
        self.parts: list = []
        self.width = 0


class _Queue:
    """The open groups with break points, by depth: when the pending text no longer fits, the
    shallowest depth that has any gives up a group (its newest one with break points; the
    groups of that depth without any are marked broken and dropped). IPython's queue removes,
    from the list of that depth, the entry at the chosen group's position counted from the end;
    the same entry is removed here, so that the same groups stay eligible afterwards."""

    def __init__(self) -> None:
        self.levels: list[list] = []

    def add(self, g: _Group) -> None:
        while len(self.levels) <= g.depth:
            self.levels.append([])
        self.levels[g.depth].append(g)

    def take(self) -> _Group | None:
        for level in self.levels:
            n = len(level)
            for k in range(n - 1, -1, -1):
                g = level[k]
                if g.breaks:
                    del level[n - 1 - k]
                    g.broken = True
                    return g
            for g in level:
                g.broken = True
            level.clear()
        return None

    def discard(self, g: _Group) -> None:
        level = self.levels[g.depth] if g.depth < len(self.levels) else []
        if g in level:
            level.remove(g)


class _Layout:
    """Text, break points and groups in, lines of at most ``width`` columns out (where a group
    can be broken)."""

    def __init__(self, width: int = WIDTH) -> None:
        self.width = width
        self.out: list[str] = []
        self.column = 0  # width of the current output line
        self.pending: deque = deque()  # _Text and _Break not yet decided
        self.pending_width = 0
        root = _Group(0)
        self.stack = [root]
        self.queue = _Queue()
        self.queue.add(root)
        self.indentation = 0

    def _emit(self, item) -> None:
        if item.__class__ is _Text:
            self.out.extend(item.parts)
            self.column += item.width
            return
        g = item.group
        g.breaks.popleft()
        if g.broken:
            self.out.append("\n" + " " * item.indent)
            self.column = item.indent
            return
        if not g.breaks:
            self.queue.discard(g)
        self.out.append(item.sep)
        self.column += item.width

    def _release(self, g: _Group) -> None:
        """Emit the pending items up to ``g``'s last break point, and the text after it."""
        while g.breaks:
            item = self.pending.popleft()
            self.pending_width -= item.width
            self._emit(item)
        while self.pending and self.pending[0].__class__ is _Text:
            item = self.pending.popleft()
            self.pending_width -= item.width
            self._emit(item)

    def _fit(self) -> None:
        while self.column + self.pending_width > self.width:
            g = self.queue.take()
            if g is None:
                return
            self._release(g)

    def text(self, s: str) -> None:
        if not self.pending:
            self.out.append(s)
            self.column += len(s)
            return
        last = self.pending[-1]
        if last.__class__ is not _Text:
            last = _Text()
            self.pending.append(last)
        last.parts.append(s)
        last.width += len(s)
        self.pending_width += len(s)
        self._fit()

    def breakable(self, sep: str = " ") -> None:
        g = self.stack[-1]
        if g.broken:
            self.flush()
            self._newline()
            return
        b = _Break(sep, self.indentation, g)
        g.breaks.append(b)
        self.pending.append(b)
        self.pending_width += b.width
        self._fit()

    def break_(self) -> None:
        g = self.queue.take()
        if g is not None:
            self._release(g)
        self.flush()
        self._newline()

    def _newline(self) -> None:
        self.out.append("\n" + " " * self.indentation)
        self.column = self.indentation
        self.pending_width = 0

    def begin_group(self, indent: int = 0, open: str = "") -> None:
        if open:
            self.text(open)
        g = _Group(self.stack[-1].depth + 1)
        self.stack.append(g)
        self.queue.add(g)
        self.indentation += indent

    def end_group(self, dedent: int = 0, close: str = "") -> None:
        self.indentation -= dedent
        g = self.stack.pop()
        if not g.breaks:
            self.queue.discard(g)
        if close:
            self.text(close)

    def flush(self) -> None:
        while self.pending:
            self._emit(self.pending.popleft())
        self.pending_width = 0

    def getvalue(self) -> str:
        self.flush()
        return "".join(self.out)


# ---------------------------------------------------------------- choosing a printer


class _Group_cm:
    def __init__(self, p: Printer, indent: int, open: str, close: str) -> None:
        self.p, self.indent, self.open, self.close = p, indent, open, close

    def __enter__(self):
        self.p.begin_group(self.indent, self.open)

    def __exit__(self, *exc) -> None:
        self.p.end_group(self.indent, self.close)


class _Indent_cm:
    def __init__(self, p: Printer, indent: int) -> None:
        self.p, self.indent = p, indent

    def __enter__(self):
        self.p.indentation += self.indent

    def __exit__(self, *exc) -> None:
        self.p.indentation -= self.indent


class Printer(_Layout):
    """IPython's ``RepresentationPrinter``: ``pretty(obj)`` chooses each object's printer; an
    object's own ``_repr_pretty_(p, cycle)`` gets this printer (``text``, ``breakable``,
    ``break_``, ``begin_group``/``end_group``, ``group``, ``indent``, ``pretty``)."""

    verbose = False

    def __init__(self, width: int = WIDTH, sort_dict_keys: bool = False) -> None:
        super().__init__(width)
        self.max_seq_length = MAX_SEQ_LENGTH
        self.sort_dict_keys = sort_dict_keys
        self._ids: list[int] = []

    def group(self, indent: int = 0, open: str = "", close: str = "") -> _Group_cm:
        return _Group_cm(self, indent, open, close)

    def indent(self, indent: int) -> _Indent_cm:
        return _Indent_cm(self, indent)

    def items(self, seq):
        """``enumerate(seq)``, cut at ``max_seq_length`` with ``, ...``."""
        for i, x in enumerate(seq):
            if i >= self.max_seq_length:
                self.text(",")
                self.breakable()
                self.text("...")
                return
            yield i, x

    _enumerate = items  # the name a _repr_pretty_ written for IPython may call

    def pretty(self, obj) -> None:
        cycle = id(obj) in self._ids
        self._ids.append(id(obj))
        self.begin_group()
        try:
            if obj is None or obj is True or obj is False or obj is Ellipsis or obj is NotImplemented:
                return _repr(obj, self, cycle)
            cls = _safe_getattr(obj, "__class__", None) or type(obj)
            for klass in _mro(cls):
                printer = _PRINTERS.get(klass) or _BY_NAME.get((_safe_getattr(klass, "__module__"),
                                                                 _safe_getattr(klass, "__name__")))
                if printer is not None:
                    return printer(obj, self, cycle)
                if "_repr_pretty_" in klass.__dict__ and callable(klass._repr_pretty_):
                    return klass._repr_pretty_(obj, self, cycle)
                if klass is not object and "__repr__" in klass.__dict__ and callable(
                        _safe_getattr(klass, "__repr__")):
                    return _repr(obj, self, cycle)
            return _default(obj, self, cycle)
        finally:
            self.end_group()
            self._ids.pop()


def _mro(cls) -> tuple:
    return getattr(cls, "__mro__", (cls,))


def _repr(obj, p: Printer, cycle: bool) -> None:
    """The object's repr, its lines broken where it breaks them (indented as the group is)."""
    text = repr(obj)
    m = _STANDS_FOR_DEFAULT.match(text)
    if m and _is_ours(type(obj)):
        # scalargrad's stand-in for a PyTorch class without __repr__: IPython's default printer
        p.text(f"<{m.group(1)} at {m.group(2)}>")
        return
    with p.group():
        for i, line in enumerate(text.splitlines()):
            if i:
                p.break_()
            p.text(line)


def _is_ours(cls) -> bool:
    for klass in _mro(cls):
        if "__repr__" in klass.__dict__:
            return str(_safe_getattr(klass.__dict__["__repr__"], "__module__", "")).startswith("scalargrad.")
    return False


def _default(obj, p: Printer, cycle: bool) -> None:
    cls = _safe_getattr(obj, "__class__", None) or type(obj)
    if _safe_getattr(cls, "__repr__") is not object.__repr__:
        return _repr(obj, p, cycle)
    p.begin_group(1, "<")
    p.pretty(cls)
    p.text(f" at 0x{id(obj):x}")
    if cycle:
        p.text(" ...")
    p.end_group(1, ">")


def _sequence(open: str, close: str):
    def show(obj, p: Printer, cycle: bool) -> None:
        if cycle:
            return p.text(open + "..." + close)
        p.begin_group(len(open), open)
        for i, x in p.items(obj):
            if i:
                p.text(",")
                p.breakable()
            p.pretty(x)
        if len(obj) == 1 and isinstance(obj, tuple):
            p.text(",")
        p.end_group(len(open), close)
    return show


def _sorted(items) -> list:
    items = list(items)
    for key in (None, str):
        try:
            return sorted(items, key=key)
        except Exception:
            continue
    return items


def _set(open: str, close: str):
    def show(obj, p: Printer, cycle: bool) -> None:
        if cycle:
            return p.text(open + "..." + close)
        if not obj:
            return p.text(type(obj).__name__ + "()")
        p.begin_group(len(open), open)
        items = _sorted(obj) if len(obj) < p.max_seq_length else obj
        for i, x in p.items(items):
            if i:
                p.text(",")
                p.breakable()
            p.pretty(x)
        p.end_group(len(open), close)
    return show


def _mapping(open: str, close: str):
    def show(obj, p: Printer, cycle: bool) -> None:
        if cycle:
            return p.text("{...}")
        p.begin_group(len(open), open)
        keys = obj.keys()
        if p.sort_dict_keys and len(obj) < p.max_seq_length:
            keys = _sorted(keys)
        for i, key in p.items(keys):
            if i:
                p.text(",")
                p.breakable()
            p.pretty(key)
            p.text(": ")
            p.pretty(obj[key])
        p.end_group(len(open), close)
    return show


class _Call:
    """``name(arg, ..., key=value)``, broken at its commas: how IPython shows an OrderedDict,
    a deque, an exception..."""

    def __init__(self, name: str, *args, **kwargs) -> None:
        self.name, self.args, self.kwargs = name, args, kwargs

    def _repr_pretty_(self, p: Printer, cycle: bool) -> None:
        first = True
        prefix = self.name + "("
        with p.group(len(prefix), prefix, ")"):
            for arg in self.args:
                if not first:
                    p.text(",")
                    p.breakable()
                first = False
                p.pretty(arg)
            for key, arg in self.kwargs.items():
                if not first:
                    p.text(",")
                    p.breakable()
                first = False
                with p.group(len(key) + 1, key + "="):
                    p.pretty(arg)


class _Raw:
    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_pretty_(self, p: Printer, cycle: bool) -> None:
        p.text(self.text)


def _type(obj, p: Printer, cycle: bool) -> None:
    own = [m for m in _mro(type(obj)) if "__repr__" in vars(m)][:1]
    if own != [type]:
        return _repr(obj, p, cycle)
    module = _safe_getattr(obj, "__module__")
    name = _safe_getattr(obj, "__qualname__")
    if not isinstance(name, str):
        name = _safe_getattr(obj, "__name__")
        name = name if isinstance(name, str) else "<unknown type>"
    p.text(name if module in _BUILTIN_MODULES else f"{module}.{name}")


def _function(obj, p: Printer, cycle: bool) -> None:
    name = _safe_getattr(obj, "__qualname__", obj.__name__)
    module = obj.__module__
    if module and module not in _BUILTIN_MODULES:
        name = f"{module}.{name}"
    try:
        name += str(inspect.signature(obj))
    except (ValueError, TypeError):
        pass
    p.text(f"<function {name}>")


def _exception(obj, p: Printer, cycle: bool) -> None:
    cls = obj.__class__
    name = getattr(cls, "__qualname__", cls.__name__)
    if cls.__module__ not in ("exceptions", "builtins"):
        name = f"{cls.__module__}.{name}"
    p.pretty(_Call(name, *getattr(obj, "args", ())))


def _super(obj, p: Printer, cycle: bool) -> None:
    p.begin_group(8, "<super: ")
    p.pretty(obj.__thisclass__)
    p.text(",")
    p.breakable()
    p.pretty(obj.__self__)
    p.end_group(8, ">")


_RE_FLAGS = ("IGNORECASE", "LOCALE", "MULTILINE", "DOTALL", "UNICODE", "VERBOSE", "DEBUG")


def _pattern(obj, p: Printer, cycle: bool) -> None:
    literal = repr(obj.pattern)
    literal = "r" + literal.replace("\\\\", "\\")
    args = [_Raw(literal)]
    if obj.flags:
        args.append(_Raw("|".join(f"re.{f}" for f in _RE_FLAGS if obj.flags & getattr(re, f))))
    p.pretty(_Call("re.compile", *args))


def _namespace(obj, p: Printer, cycle: bool) -> None:
    p.pretty(_Call("namespace", _Raw("...")) if cycle else _Call("namespace", **obj.__dict__))


def _by_constructor(make):
    def show(obj, p: Printer, cycle: bool) -> None:
        name = obj.__class__.__name__
        p.pretty(_Call(name, _Raw("...")) if cycle else make(name, obj))
    return show


_PRINTERS = {
    int: _repr, float: _repr, str: _repr, bytes: _repr, range: _repr, slice: _repr,
    tuple: _sequence("(", ")"), list: _sequence("[", "]"),
    dict: _mapping("{", "}"), types.MappingProxyType: _mapping("mappingproxy({", "})"),
    set: _set("{", "}"), frozenset: _set("frozenset({", "})"),
    super: _super, re.Pattern: _pattern, type: _type,
    types.FunctionType: _function, types.BuiltinFunctionType: _function, types.MethodType: _repr,
    types.SimpleNamespace: _namespace, datetime.datetime: _repr, datetime.timedelta: _repr,
    BaseException: _exception,
}
if type(os.environ) is not dict:
    _PRINTERS[type(os.environ)] = _mapping("environ{", "}")

_BY_NAME = {
    ("collections", "defaultdict"): _by_constructor(lambda n, o: _Call(n, o.default_factory, dict(o))),
    ("collections", "OrderedDict"): _by_constructor(lambda n, o: _Call(n, list(o.items())) if o else _Call(n)),
    ("collections", "deque"): _by_constructor(
        lambda n, o: _Call(n, list(o), maxlen=o.maxlen) if o.maxlen is not None else _Call(n, list(o))),
    ("collections", "Counter"): _by_constructor(lambda n, o: _Call(n, dict(o.most_common())) if o else _Call(n)),
    ("collections", "UserList"): _by_constructor(lambda n, o: _Call(n, o.data)),
}

assert collections.OrderedDict.__module__ == "collections"
