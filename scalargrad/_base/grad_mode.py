"""Grad mode: whether ops record a graph. Thread-local, as in PyTorch."""

from __future__ import annotations

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "state"]


class _State(threading.local):
    enabled = True  # the class attribute is every new thread's default
    inference = False
    # forward-mode AD runs an op's backward rule for the tangents of inputs that need not
    # require grad: a rule that skips an input that does not (a product's) computes it then
    every_input = False


state = _State()

inference_listeners: list = []
"""Callables ``fn(on: bool)`` told when inference mode starts or ends (the tensor layer marks
the tensors made meanwhile)."""


def _set_inference(on: bool) -> None:
    if state.inference is not on:
        state.inference = on
        for fn in inference_listeners:
            fn(on)


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return state.inference


def is_grad_enabled() -> bool:
    """True when ops record the graph for backward."""
    return state.enabled


class _GradModeContext:
    """Context manager and decorator that sets grad mode and restores it on exit."""

    _mode: bool

    def __enter__(self):
        self._prev = state.enabled
        state.enabled = self._mode

    def __exit__(self, *exc):
        state.enabled = self._prev
        return False

    def __call__(self, func):
        mode = self._mode
        if inspect.isgeneratorfunction(func):
            return _generator_wrapper(func, mode)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = state.enabled
            state.enabled = mode
            try:
                return func(*args, **kwargs)
            finally:
                state.enabled = prev

        return wrapper

    def clone(self):
        return self.__class__()


def _generator_wrapper(func, mode: bool):
    """A decorated generator function: the mode holds while the generator body runs, and the
    caller's mode is back at every yield (as PyTorch's _wrap_generator does)."""

    def run_step(step, *args):
        prev = state.enabled
        state.enabled = mode
        try:
            return step(*args)
        finally:
            state.enabled = prev

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gen = func(*args, **kwargs)  # runs nothing yet
        try:
            response = run_step(gen.send, None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    run_step(gen.close)
                    raise
                except BaseException as exc:
                    response = run_step(gen.throw, exc)
                else:
                    response = run_step(gen.send, request)
        except StopIteration as stop:
            return stop.value

    return wrapper


class no_grad(_GradModeContext):
    """Disable graph recording inside a ``with`` block or a decorated function.

    Both ``@no_grad()`` and the bare ``@no_grad`` decorate, as in PyTorch 2.x.
    """

    _mode = False

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func=None) -> None:
        pass


class enable_grad(no_grad):
    """Enable graph recording inside a ``with`` block or a decorated function."""

    _mode = True


class inference_mode(_GradModeContext):
    """Inference mode: no graph is recorded and the tensors made are inference tensors, which
    can never be saved for backward nor changed in place outside inference mode.
    ``inference_mode(False)`` turns it off (and grad mode on); bare ``@inference_mode``
    decorates too."""

    def __new__(cls, mode=True):
        if mode is None or isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self._mode = not mode

    def __enter__(self):
        self._prev = state.enabled
        self._prev_inference = state.inference
        state.enabled = self._mode
        _set_inference(self.mode)

    def __exit__(self, *exc):
        state.enabled = self._prev
        _set_inference(self._prev_inference)
        return False

    def __call__(self, func):
        ctx = self

        if inspect.isgeneratorfunction(func):
            return _generator_in(func, ctx)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with ctx.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__(self.mode)


def _generator_in(func, ctx: inference_mode):
    """A decorated generator function run in ``ctx``'s mode between its yields."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gen = func(*args, **kwargs)
        request = None
        while True:
            with ctx.clone():
                try:
                    response = gen.send(request)
                except StopIteration as stop:
                    return stop.value
            request = yield response

    return wrapper


class set_grad_enabled(_GradModeContext):
    """Set grad mode: immediately as a function call, and restored at the end of ``with``."""

    def __init__(self, mode: bool) -> None:
        if mode.__class__ is not bool:  # PyTorch's argument parser takes a bool only
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                            f"{type(mode).__name__}")
        self._prev = state.enabled
        self._mode = mode
        state.enabled = self._mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.enabled = self._prev
        return False

    def __call__(self, func):
        # used as a decorator, the call that built it must not change the mode for good
        state.enabled = self._prev
        return super().__call__(func)

    def clone(self):
        return self.__class__(self._mode)
