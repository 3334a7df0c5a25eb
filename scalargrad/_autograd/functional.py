"""``torch.autograd.functional``: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp``, ``vhp``.

Each runs the user's function on fresh copies of the inputs (detached leaves that require
grad; with ``create_graph``, views of inputs that already require grad so the result stays
connected to them) and asks ``autograd.grad`` for the products, as PyTorch 2.13 does, so the
values, the shapes, the nesting of the results (a tuple per output and per input only where
the caller gave tuples) and the strict-mode errors are PyTorch's. ``jvp`` and ``hvp`` use
PyTorch's double-backward trick (there is no forward-mode AD): the gradient w.r.t. zero
gradient-outputs that require grad is linear in them, and differentiating it again gives
``J v``. ``vectorize=True`` asks for vmap, which scalargrad does not have; the plain loop
computes the same numbers, so it is accepted and ignored, except where PyTorch refuses it.
"""

from __future__ import annotations

from collections.abc import Callable

from .._base import grad_mode
from .._base.errors import Unsupported
from .._tensor import joins
from .._tensor.factories import zeros_like
from .._tensor.tensor import Tensor
from .api import grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRICT_OUTPUT = ("Output {i} of the user-provided function does not require gradients. The outputs must be "
                  "computed in a differentiable manner from the input when running in strict mode.")
_INDEPENDENT = ("The output of the user-provided function is independent of input {i}. This is not allowed "
                "in strict mode.")


def _tupled(x, what: str, fn: str) -> tuple[bool, tuple]:
    """``(given as a tuple, as a tuple)``, every element a Tensor (PyTorch's message if not)."""
    given_tuple = isinstance(x, tuple)
    items = x if given_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if given_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the "
                            f"{where} has type {type(el)}.")
    return given_tuple, items


def _fresh(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """The tensors the user's function sees: with ``create_graph``, a view of each input that
    requires grad (the result stays connected to it); otherwise a detached leaf."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors, create_graph: bool):
    """Results handed back: detached unless the caller asked for a graph (nested tuples too)."""
    if isinstance(tensors[0], Tensor):
        return tensors if create_graph else tuple(t.detach() for t in tensors)
    return tuple(_finish(t, create_graph) for t in tensors)


def _unpack(res: tuple, given_tuple: bool):
    """Undo the tupling of an argument the caller gave bare."""
    return res if given_tuple else res[0]


def _check_v(v: tuple, against: tuple, against_tuple: bool) -> None:
    if len(v) != len(against):
        if against_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(against)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (a, b) in enumerate(zip(v, against)):
        if a.size() != b.size():
            prefix = f"Entry {idx} in " if against_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.size()} but got {a.size()}.")


def _strict_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """Strict mode's refusals of tensors that do not depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(_INDEPENDENT.format(i=i))
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(f"The hessian of the user-provided function with respect to input {i} is independent "
                               "of the input. This is not allowed in strict mode. You should ensure that your "
                               "function is thrice differentiable and that the hessian depends on the inputs.")
        if kind == "jacobian":
            raise RuntimeError("While computing the hessian, found that the jacobian of the user-provided function "
                               f"with respect to input {i} is independent of the input. This is not allowed in "
                               "strict mode. You should ensure that your function is twice differentiable and that "
                               "the jacobian depends on the inputs (this would be violated by a linear function for "
                               "example).")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                               "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(_STRICT_OUTPUT.format(i=i))


def _grad(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph: bool = False,
          retain_graph: bool | None = None) -> tuple:
    """``autograd.grad`` over the outputs that require grad (None for every input if none do)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


_ZERO_FILL = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
            "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in "
                  "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                   "in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _zero_filled(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Zeros where no gradient came back (strict mode refuses instead)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_FILL[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _given_v(v, against: tuple, against_tuple: bool, fn: str, create_graph: bool, what: str):
    if v is not None:
        _, v = _tupled(v, "v", fn)
        v = _fresh(v, create_graph, need_graph=False)
        _check_v(v, against, against_tuple)
        return v
    if len(against) != 1 or against[0].nelement() != 1:
        raise RuntimeError(f"The vector v can only be None if the {what} a single Tensor with a single element.")
    return None


def _single_output(outputs: tuple, outputs_tuple: bool, fn: str) -> None:
    if outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain a single element")


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product, shaped like the inputs."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", "vjp")
        _strict_requires_grad(outputs, "outputs", strict)
        v = _given_v(v, outputs, outputs_tuple, "vjp", create_graph, "user-provided function returns")
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        res = _zero_filled(_grad(outputs, inputs, v, create_graph=create_graph), inputs, strict, create_graph,
                           "back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(res, create_graph), inputs_tuple))


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)``: the Jacobian-vector product, shaped like the outputs (by the
    double-backward trick, as PyTorch computes it)."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _given_v(v, inputs, inputs_tuple, "jvp", create_graph, "input to the user-provided function is")
        outputs_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", "jvp")
        _strict_requires_grad(outputs, "outputs", strict)
        dummies = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _strict_requires_grad(grad_inputs, "grad_inputs", strict)
    with grad_mode.enable_grad() if create_graph else _same_mode():
        res = _zero_filled(_grad(grad_inputs, dummies, v, create_graph=create_graph), outputs, strict, create_graph,
                           "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(res, create_graph), outputs_tuple))


class _same_mode:
    """A context that changes nothing."""

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> bool:
        return False


def jacobian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j`` a tensor of shape
    ``output_i.shape + input_j.shape``, nested as the caller gave inputs and outputs."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
        raise Unsupported("forward-mode AD (jacobian(strategy='forward-mode'))")
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", "jacobian")
        _strict_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        result = []
        for i, out in enumerate(outputs):
            rows: list[list] = [[] for _ in inputs]
            for j in range(out.nelement()):
                got = _grad((out.reshape(-1)[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(got, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{k}. This is not allowed in strict mode.")
                        g = zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                           "This is not allowed in strict mode when create_graph=True.")
                    rows[k].append(g)
            result.append(tuple(joins.stack(r, 0).view(tuple(out.size()) + tuple(inputs[k].size()))
                                for k, r in enumerate(rows)))
        return _unpack_pair(_finish(tuple(result), create_graph), outputs_tuple, inputs_tuple)


def construct_standard_basis_for(tensors: tuple, tensor_numels: tuple) -> tuple:
    """PyTorch's private helper behind vectorized Jacobians: the ``N x N`` identity, ``N`` the sum
    of ``tensor_numels``, cut by columns into one chunk per tensor. Chunk ``i`` has shape
    ``(N, tensor_numels[i])`` and the dtype and device of ``tensors[i]``, with a one at row
    ``offset_i + k``, column ``k`` (``offset_i`` the numels before it) and zeros elsewhere."""
    if len(tensors) != len(tensor_numels):
        raise AssertionError(f"Expected tensors and tensor_numels to have the same length, but got "
                             f"{len(tensors)} and {len(tensor_numels)}")
    if len(tensors) == 0:
        raise AssertionError("Expected at least one tensor")
    total = sum(tensor_numels)
    chunks = []
    offset = 0
    for tensor, numel in zip(tensors, tensor_numels):
        chunk = tensor.new_zeros(total, numel)
        # the chunk's diagonal starting at row `offset` (a view): exact ones, no arithmetic
        chunk.diagonal(-offset).fill_(1)
        chunks.append(chunk)
        offset += numel
    return tuple(chunks)


def _unpack_pair(res: tuple, outer_tuple: bool, inner_tuple: bool):
    """``_unpack`` of a result nested per output, then per input."""
    if not inner_tuple:
        res = tuple(el[0] for el in res)
    return res if outer_tuple else res[0]


def hessian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a function returning one element: for inputs ``i`` and ``j`` a tensor of
    shape ``input_i.shape + input_j.shape``, nested as the caller gave the inputs."""
    inputs_tuple, inputs = _tupled(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        out_tuple, t_out = _tupled(out, "outputs of the user-provided function", "hessian")
        _strict_requires_grad(t_out, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(single_output, inp, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack_pair(res, inputs_tuple, inputs_tuple)


def _second_order(fn: str, func: Callable, inputs, v, create_graph: bool, strict: bool):
    """What ``vhp`` and ``hvp`` share: the fresh inputs, v, the output and its gradient."""
    inputs_tuple, inputs = _tupled(inputs, "inputs", fn)
    inputs = _fresh(inputs, create_graph, need_graph=True)
    v = _given_v(v, inputs, inputs_tuple, fn, create_graph, "input to the user-provided function is")
    outputs_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", fn)
    _strict_requires_grad(outputs, "outputs", strict)
    _single_output(outputs, outputs_tuple, fn)
    jac = _grad(outputs, inputs, create_graph=True)
    _strict_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, jac


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)`` for a function returning one element."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _second_order("vhp", func, inputs, v, create_graph,
                                                                             strict)
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        res = _zero_filled(_grad(jac, inputs, v, create_graph=create_graph), inputs, strict, create_graph,
                           "double_back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(res, create_graph), inputs_tuple))


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)`` for a function returning one element (by the double-backward
    trick, as PyTorch computes it)."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _second_order("hvp", func, inputs, v, create_graph,
                                                                             strict)
        dummies = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, dummies, create_graph=True)
        _strict_requires_grad(jac, "hessian", strict)
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        res = _zero_filled(_grad(double_back, dummies, v, create_graph=create_graph), inputs, strict, create_graph,
                           "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(res, create_graph), inputs_tuple))
