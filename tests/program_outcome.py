"""A test's own small program run under one library (scalargrad, or PyTorch to compare with),
and what it left: the tests that compare the two on a table of programs share it."""

from __future__ import annotations


def outcome(mod, source: str, read=lambda env: repr(env["out"]), refusals=(RuntimeError,)):
    """``read(namespace)`` after running ``source`` with ``torch`` bound to ``mod``, or the
    refusal it raised (one of ``refusals``) as ``"Type: message"``."""
    env = {"torch": mod}
    try:
        exec(source, env)  # the tests' own programs
    except refusals as e:
        return f"{type(e).__name__}: {e}"
    return read(env)


def refusal(call, mod) -> tuple:
    """``(type name, first line of the message)`` of the error ``call(mod)`` raises; a call that
    raises nothing fails the test (the tables compare refusals, so both libraries must refuse)."""
    try:
        call(mod)
    except Exception as e:
        return type(e).__name__, str(e).split("\n")[0]
    raise AssertionError(f"{mod.__name__}: {call} raised nothing")


def described(call, mod):
    """What ``call(mod)`` gives, comparably between the libraries: a tensor's dtype, shape,
    elements, strides and node name (tuples and return types item by item, with their type's
    name), any other value's repr; or the refusal as ``(type name, first line)``."""
    try:
        return _describe(call(mod))
    except Exception as e:  # the refusal is compared
        return type(e).__name__, str(e).split("\n")[0]


def _describe(r):
    if isinstance(r, tuple):
        return (type(r).__name__,) + tuple(_describe(a) for a in r)
    if hasattr(r, "tolist") and hasattr(r, "grad_fn"):
        return (str(r.dtype).split(".")[-1], tuple(r.shape), repr(r.tolist()), r.stride(),
                None if r.grad_fn is None else r.grad_fn.name())
    return repr(r)
