"""Grad mode: no_grad, enable_grad, set_grad_enabled and inference_mode as context managers and
decorators, nesting, exceptions, generators and thread-locality.

Every test runs on scalargrad and, under ``torch_ref``, on PyTorch 2.13 with the same
assertions (the ``L`` fixture), so the expected behaviour is PyTorch's.
"""

from __future__ import annotations

import threading

import pytest

import scalargrad
from scalargrad.errors import Unsupported


@pytest.fixture(params=["scalargrad", "torch"])
def L(request):
    if request.param == "torch":
        return request.getfixturevalue("torch_ref")
    return scalargrad


@pytest.fixture(autouse=True)
def _grad_mode_restored():
    yield
    assert scalargrad.is_grad_enabled(), "a test left grad mode off"


def test_grad_is_enabled_by_default(L):
    assert L.is_grad_enabled() is True
    x = L.tensor(1.0, requires_grad=True)
    y = x * 2
    assert y.requires_grad and y.grad_fn is not None


def test_context_managers_nest_and_restore(L):
    x = L.tensor(1.0, requires_grad=True)
    seen = []
    with L.no_grad():
        seen.append(L.is_grad_enabled())
        y = x * 2
        with L.enable_grad():
            seen.append(L.is_grad_enabled())
            z = x * 2
        seen.append(L.is_grad_enabled())
    seen.append(L.is_grad_enabled())
    assert seen == [False, True, False, True]
    assert (y.requires_grad, y.grad_fn, y.is_leaf) == (False, None, True)
    assert z.requires_grad and z.grad_fn.name() == "MulBackward0"


def test_set_grad_enabled_as_call_and_as_context(L):
    seen = []
    L.set_grad_enabled(False)  # a plain call switches at once
    seen.append(L.is_grad_enabled())
    L.set_grad_enabled(True)
    seen.append(L.is_grad_enabled())
    with L.set_grad_enabled(False):
        seen.append(L.is_grad_enabled())
    seen.append(L.is_grad_enabled())
    with L.no_grad():
        with L.set_grad_enabled(True):
            seen.append(L.is_grad_enabled())
        seen.append(L.is_grad_enabled())
    assert seen == [False, True, False, True, True, False]


def test_decorators_with_and_without_parentheses(L):
    x = L.tensor(1.0, requires_grad=True)

    @L.no_grad()
    def called():
        return L.is_grad_enabled(), (x * 2).requires_grad

    @L.no_grad
    def bare():
        return L.is_grad_enabled(), (x * 2).requires_grad

    @L.inference_mode()
    def inference_called():
        return L.is_grad_enabled()

    @L.inference_mode
    def inference_bare():
        return L.is_grad_enabled()

    @L.enable_grad()
    def enabled():
        return L.is_grad_enabled()

    @L.enable_grad
    def enabled_bare():
        return L.is_grad_enabled()

    assert called() == (False, False)
    assert bare() == (False, False)
    assert (called.__name__, bare.__name__) == ("called", "bare")
    assert inference_called() is False and inference_bare() is False
    with L.no_grad():
        assert enabled() is True and enabled_bare() is True
        assert L.is_grad_enabled() is False
    assert L.is_grad_enabled() is True


def test_set_grad_enabled_decorator_does_not_switch_at_decoration(L):
    # set_grad_enabled(False) switches when called; used as a decorator, PyTorch switches back
    @L.set_grad_enabled(False)
    def off():
        return L.is_grad_enabled()

    assert L.is_grad_enabled() is True
    assert off() is False
    assert L.is_grad_enabled() is True


def test_inference_mode_false_enables(L):
    with L.no_grad():
        with L.inference_mode(False):
            assert L.is_grad_enabled() is True
        assert L.is_grad_enabled() is False
    with L.inference_mode():
        x = L.tensor(1.0, requires_grad=True)
        assert not (x * 2).requires_grad


def test_exceptions_restore_the_mode(L):
    with pytest.raises(ValueError):
        with L.no_grad():
            raise ValueError

    @L.no_grad()
    def fails():
        raise KeyError

    with pytest.raises(KeyError):
        fails()
    assert L.is_grad_enabled() is True


def test_one_instance_can_be_entered_twice(L):
    ng = L.no_grad()
    seen = []
    with ng:
        seen.append(L.is_grad_enabled())
    with ng:
        seen.append(L.is_grad_enabled())
    seen.append(L.is_grad_enabled())
    assert seen == [False, False, True]


def test_decorated_generator_holds_the_mode_only_while_running(L):
    @L.no_grad()
    def gen():
        received = yield L.is_grad_enabled()
        yield received, L.is_grad_enabled()
        return "done"

    it = gen()
    assert next(it) is False
    assert L.is_grad_enabled() is True  # the caller's mode between steps
    assert it.send(7) == (7, False)
    with pytest.raises(StopIteration) as stop:
        next(it)
    assert stop.value.value == "done"


def test_grad_mode_is_thread_local(L):
    seen = {}

    def worker():
        x = L.tensor(1.0, requires_grad=True)
        seen["other thread"] = (L.is_grad_enabled(), (x * 2).requires_grad)

    with L.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        seen["main"] = L.is_grad_enabled()
    assert seen == {"other thread": (True, True), "main": False}

    def disables():
        with L.no_grad():
            seen["inside"] = L.is_grad_enabled()
        L.set_grad_enabled(False)  # left off in that thread only

    t = threading.Thread(target=disables)
    t.start()
    t.join()
    assert seen["inside"] is False and L.is_grad_enabled() is True


def test_backward_under_no_grad_still_computes_gradients(L):
    x = L.tensor(3.0, requires_grad=True)
    y = x * x
    with L.no_grad():
        y.backward()
    assert x.grad.item() == 6.0


def test_aliases_in_autograd(L):
    assert L.autograd.no_grad is L.no_grad
    assert L.autograd.enable_grad is L.enable_grad
    assert L.autograd.set_grad_enabled is L.set_grad_enabled
    assert L.autograd.inference_mode is L.inference_mode


def test_force_original_view_tracking_false_is_the_default_mode(L):
    # PyTorch's own test_autograd resets this in every tearDown; False is the default (no view
    # replay: an in-place op on a view records AsStridedBackward0), as a call, a context manager
    # and a decorator
    def replayed_node():
        out = L.ones(2, 2, requires_grad=True).clone().view(-1)
        out.add_(1)
        return type(out.grad_fn).__name__

    assert L.autograd.is_view_replay_enabled() is False
    L.autograd._force_original_view_tracking(False)
    assert L.autograd.is_view_replay_enabled() is False
    with L.autograd._force_original_view_tracking(False):
        assert L.autograd.is_view_replay_enabled() is False
        assert replayed_node() == "AsStridedBackward0"
    assert L.autograd._force_original_view_tracking(False)(replayed_node)() == "AsStridedBackward0"
    assert L.autograd.is_view_replay_enabled() is False


def test_force_original_view_tracking_true_is_unsupported():
    with pytest.raises(Unsupported, match="_force_original_view_tracking"):
        scalargrad.autograd._force_original_view_tracking(True)
    assert scalargrad.autograd.is_view_replay_enabled() is False
