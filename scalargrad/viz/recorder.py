"""The order in which a backward call fires the hooks of its graph, for ``make_dot`` to number.

``HookRecorder`` is an observer of the engine (``autograd.engine.observers``, told of every
backward call on entry): on entry it finds the hooks on the call's graph (``hook_points``)
and swaps each for a wrapper that notes the hook and calls it; once the call has finished the
originals are put back. Nothing in the engine changes, and a hook behaves exactly as before:
same arguments, same result, same name in error messages. A backward call that raises leaves
its wrappers in place until the recorder stops (they only take notes); a backward call made
by a hook wraps the hooks once more and unwraps them when it finishes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._autograd import engine
from .hook_points import HookSlot, _hook_points

__all__ = ["BackwardCall", "HookRecorder", "record_hooks"]


@dataclass
class BackwardCall:
    """One recorded backward call: its roots, the hooks on its graph when it started
    (``hook_points._hook_points``), and the hooks it fired, in order."""

    roots: list
    fired: list[HookSlot] = field(default_factory=list)
    points: dict = field(default_factory=dict)

    def numbers(self, slot: HookSlot) -> list[int]:
        """The positions (from 1) at which ``slot``'s hook fired."""
        return [i + 1 for i, s in enumerate(self.fired) if s.same_as(slot)]


class _Recording:
    """Calls ``hook`` after noting ``slot`` in ``call``; otherwise looks like ``hook``."""

    __slots__ = ("_hook", "_slot", "_call")

    def __init__(self, hook, slot: HookSlot, call: BackwardCall) -> None:
        self._hook = hook
        self._slot = slot
        self._call = call

    def __call__(self, *args, **kwargs):
        self._call.fired.append(self._slot)
        return self._hook(*args, **kwargs)

    def __getattr__(self, name: str):  # __name__, __self__, __func__... of the hook itself
        return getattr(self._hook, name)


class HookRecorder:
    """Records, for every backward call made while active, the hooks it fired in order
    (``calls``; ``last`` is the latest, the only one that keeps its roots). Use as a context
    manager, or ``start()``/``stop()``."""

    def __init__(self) -> None:
        self.calls: list[BackwardCall] = []
        self._installed: list = []  # per call still running: [(container, key, wrapper, original)]

    @property
    def last(self) -> BackwardCall | None:
        return self.calls[-1] if self.calls else None

    def start(self) -> HookRecorder:
        engine.observers.append(self._observe)
        return self

    def stop(self) -> None:
        if self._observe in engine.observers:
            engine.observers.remove(self._observe)
        while self._installed:  # calls that raised, newest first: their wrappers wrap older ones
            _restore(self._installed.pop())

    def __enter__(self) -> HookRecorder:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _observe(self, roots, grads, keep_graph, create_graph, inputs, accumulate):
        if self.calls:  # a long training loop must not keep every graph alive
            self.calls[-1].roots = []
            self.calls[-1].points = {}
        call = BackwardCall(list(roots))
        self.calls.append(call)
        try:
            call.points = _hook_points(roots)
        except Exception:  # the picture is a bystander: never break the user's backward
            return None
        installed = []
        for s in (s for _obj, slots in call.points.values() for s in slots if s.container is not None):
            original = s.container[s.key]
            wrapper = _Recording(original, s, call)
            s.container[s.key] = wrapper
            installed.append((s.container, s.key, wrapper, original))
        self._installed.append(installed)

        def finish(result) -> None:
            self._installed[:] = [x for x in self._installed if x is not installed]
            _restore(installed)

        return finish


def _restore(installed: list) -> None:
    for container, key, wrapper, original in reversed(installed):
        try:
            if container[key] is wrapper:
                container[key] = original
        except (KeyError, IndexError):
            pass  # the hook was removed meanwhile


def record_hooks() -> HookRecorder:
    """``with record_hooks() as rec: loss.backward()``, then ``make_dot(loss, hook_order=rec.last)``."""
    return HookRecorder()
