"""``torch.func``'s differentiating transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd``, ``hessian``.

Each runs the user's function on fresh inputs (``levels.fresh``) and asks ``autograd.grad`` for
the products, with PyTorch 2.13's argument checks and messages (torch/_functorch/
eager_transforms.py). ``jvp`` and ``jacfwd`` use the double-backward trick of
``torch.autograd.functional.jvp`` (the vector-Jacobian product is linear in its cotangent ``u``;
differentiating it with respect to ``u`` along ``v`` gives ``J v``), so they compose with every
op that has a differentiable backward. ``jacrev`` takes one backward per output element (the rows
of PyTorch's vmap over the standard basis); ``hessian`` is ``jacfwd(jacrev(f))``, as PyTorch's.
Results at the top level are detached; nested in another transform they keep their graph.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from .._autograd import forward_ad
from .._autograd.api import grad as autograd_grad
from .._base.errors import Unsupported
from .._tensor import joins
from .._tensor.factories import zeros_like
from .._tensor.tensor import Tensor
from . import levels
from .pytree import flatten, same_structure, unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"]


def _argnum(a, n: int) -> int:
    if not isinstance(a, int):
        raise RuntimeError(f"argnum must be int, got: {type(a)}")
    if 0 <= a < n:
        return a
    if -n <= a < 0:
        return a + n
    raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")


def _argnums(argnums, n: int):
    if isinstance(argnums, int):
        return _argnum(argnums, n)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    out = tuple(_argnum(a, n) for a in argnums)
    if not out:
        raise RuntimeError("argnums must be non-empty")
    if len(set(out)) != len(out):
        raise RuntimeError(f"argnums elements must be unique, got {out}")
    return out


def _prepare(args: tuple, argnums, nested: bool, watch: bool, api: str):
    """``(args with the differentiated ones fresh, their leaves, their tree spec)``."""
    argnums, leaves, spec = _picked(args, argnums)
    if watch:
        levels.refuse_outer_grad(api, leaves)
    new = [levels.fresh(x, nested) for x in leaves]
    return _replaced(args, argnums, unflatten(new, spec)), new, spec


def _picked(args: tuple, argnums) -> tuple:
    """``(argnums checked, the leaves of args[argnums], their tree spec)``."""
    argnums = _argnums(argnums, len(args))
    picked = args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)
    return (argnums, *flatten(picked))


def _replaced(args: tuple, argnums, tree) -> tuple:
    """``args`` with ``args[argnums]`` replaced by ``tree`` (one argument, or a tuple of them)."""
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = tree
    else:
        for i, t in zip(argnums, tree):
            args[i] = t
    return tuple(args)


def _grads(outputs: list, inputs: list, cotangents: list | None, create: bool) -> list:
    """d(outputs . cotangents)/d(inputs); zeros where an input is unused or nothing requires grad."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents or [None] * len(outputs)) if o.requires_grad]
    got = [None] * len(inputs)
    if pairs:
        got = list(autograd_grad([o for o, _ in pairs], inputs, None if cotangents is None else [c for _, c in pairs],
                                 retain_graph=True, create_graph=create, allow_unused=True))
    return [zeros_like(x) if g is None else g for g, x in zip(got, inputs)]


def _out(x: Any, top: bool) -> Any:
    """A result handed back: detached at the top, kept whole (graph included) when nested."""
    if not top:
        return x
    leaves, spec = flatten(x)
    return unflatten([t.detach() if isinstance(t, Tensor) else t for t in leaves], spec)


def _split_aux(output, has_aux: bool, api: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def grad_and_value(func: Callable, argnums=0, has_aux: bool = False) -> Callable:
    """A function returning ``(gradient of func's scalar output w.r.t. args[argnums], output)``
    (``((gradient, (output, aux))`` with ``has_aux``)."""

    @wraps(func)
    def wrapper(*args, **kwargs):
        top = levels.depth() == 0
        with levels.level() as watch:
            args, mine, spec = _prepare(args, argnums, not top, watch, "grad")
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            if watch:
                levels.check_closed_over("grad", [output])
            g = unflatten(_grads([output], mine, None, not top), spec)
        value = (output, aux) if has_aux else output
        return _out(g, top), _out(value, top)

    return wrapper


def grad(func: Callable, argnums=0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of ``func``'s scalar output w.r.t. ``args[argnums]``
    (``(gradient, aux)`` with ``has_aux``)."""
    gv = grad_and_value(func, argnums, has_aux)

    @wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def _tensor_outputs(flat: list, api: str) -> None:
    if not flat or (len(flat) == 1 and flat[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {flat})")
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def vjp(func: Callable, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)`` (and ``aux``); ``vjp_fn(cotangents)`` is the tuple of the
    vector-Jacobian products, one per primal, in the primals' structure."""
    top = levels.depth() == 0
    with levels.level() as watch:
        args, mine, spec = _prepare(primals, tuple(range(len(primals))), not top, watch, "vjp")
        output, aux = _split_aux(func(*args), has_aux, "vjp(f, *primals)")
        flat, out_spec = flatten(output)
        _tensor_outputs(flat, "vjp(f, *primals)")
        for o in flat:
            if not o.dtype.is_floating_point:
                raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {o.dtype}")
        if watch:
            levels.check_closed_over("vjp", flat)

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        flat_ct, ct_spec = flatten(cotangents)
        if not same_structure(ct_spec, out_spec):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               "to the function.")
        with levels.level():
            g = _grads(flat, mine, flat_ct, not top)
        return _out(unflatten(g, spec), top)

    result = (_out(output, top), vjp_fn)
    return result + (_out(aux, top),) if has_aux else result


def _dual_run(func: Callable, args: tuple, argnums, tangents: list, nested: bool, kwargs: dict, has_aux: bool,
              api: str):
    """``(output, flat primal outputs, flat output tangents, output spec, aux)``: ``func`` run
    once in a dual level with ``tangents`` (flat) on the leaves of ``args[argnums]``: forward-mode
    AD, each op's tangent by its forward formula (``_autograd/forward_ad.py``), as PyTorch's jvp."""
    argnums, leaves, spec = _picked(args, argnums)
    if forward_ad.current_level() >= 0:  # scalargrad's forward AD has one level, as PyTorch's own API
        raise Unsupported("a forward-mode transform (jvp, jacfwd) inside another, or inside a dual level",
                          "scalargrad's forward-mode AD has one level; use jacrev for the inner one "
                          "(hessian is jacfwd(jacrev))")
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x if nested and x.requires_grad else x.detach(), t)
                 for x, t in zip(leaves, tangents)]
        args = _replaced(args, argnums, unflatten(duals, spec))
        output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
        flat, out_spec = flatten(output)
        _tensor_outputs(flat, api)
        unpacked = [forward_ad.unpack_dual(o) for o in flat]
        primals = [p for p, _ in unpacked]
        tans = [zeros_like(p) if t is None else t for p, t in unpacked]
        if has_aux:
            aux_leaves, aux_spec = flatten(aux)
            aux = unflatten([forward_ad.unpack_dual(a).primal if isinstance(a, Tensor) else a for a in aux_leaves],
                            aux_spec)
    return unflatten(primals, out_spec), primals, tans, out_spec, aux


def _leaves_checked(tree, api: str, what: str) -> list:
    leaves, _ = flatten(tree)
    if not leaves:
        raise RuntimeError(f"{api}: Expected {what} to contain at least one Tensor.")
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{api}: Expected {what} to only contain Tensors, got {type(x)}")
    return leaves


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J tangents)`` (and ``aux``): the Jacobian-vector product by forward-mode AD."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    if strict:
        raise Unsupported("torch.func.jvp(strict=True)", "PyTorch's check that every output depends on the inputs is "
                          "not implemented")
    if not same_structure(flatten(primals)[1], flatten(tangents)[1]):
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be.")
    _leaves_checked(primals, api, "primals")
    flat_t = _leaves_checked(tangents, api, "tangents")
    top = levels.depth() == 0
    with levels.level() as watch:
        if watch:
            levels.refuse_outer_grad("jvp", flatten(primals)[0])
        output, primals_out, tans, out_spec, aux = _dual_run(func, primals, tuple(range(len(primals))), flat_t,
                                                             not top, {}, has_aux, api)
        if watch:
            levels.check_closed_over("jvp", primals_out + tans)
    result = (_out(output, top), _out(unflatten(tans, out_spec), top))
    return result + (_out(aux, top),) if has_aux else result


def _basis(x: Tensor, k: int) -> Tensor:
    e = zeros_like(x).reshape(-1)
    e[k] = 1
    return e.reshape(x.shape)


def _block(columns: list, o_shape: tuple, x_shape: tuple, like: Tensor, by_column: bool) -> Tensor:
    """d output / d input, of shape ``o_shape + x_shape``, from its flattened columns (forward
    mode: one per input element) or rows (reverse mode: one per output element)."""
    if not columns:
        return zeros_like(like).reshape(-1)[:0].reshape(o_shape + x_shape) if 0 in o_shape + x_shape \
            else zeros_like(like).reshape(o_shape + x_shape)
    return joins.stack([c.reshape(-1) for c in columns], dim=1 if by_column else 0).reshape(o_shape + x_shape)


def _jacobian(api: str, func: Callable, argnums, has_aux: bool, forward: bool) -> Callable:
    where = f"{api}(f, ...)(*args)"

    @wraps(func)
    def wrapper(*args, **kwargs):
        top = levels.depth() == 0
        with levels.level() as watch:
            blocks = []  # blocks[i][j]: d output i / d input j
            if forward:
                picked = _argnums(argnums, len(args))
                leaves, spec = flatten(args[picked] if isinstance(picked, int) else tuple(args[i] for i in picked))
                for x in leaves:
                    if not isinstance(x, Tensor):
                        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
                if watch:
                    levels.refuse_outer_grad(api, leaves)
                cols: list = [[] for _ in leaves]
                zero_run = None
                for j, x in enumerate(leaves):
                    for k in range(x.numel()):
                        ts = [_basis(x, k) if m is x else zeros_like(m) for m in leaves]
                        output, outs, tans, out_spec, aux = _dual_run(func, args, argnums, ts, not top, kwargs,
                                                                      has_aux, where)
                        if watch:
                            levels.check_closed_over(api, outs + tans)
                        cols[j].append(tans)
                        zero_run = zero_run or (output, outs, out_spec, aux)
                if zero_run is None:  # no input element: run once for the output's shapes
                    zero_run = _dual_run(func, args, argnums, [zeros_like(m) for m in leaves], not top, kwargs,
                                         has_aux, where)
                    zero_run = (zero_run[0], zero_run[1], zero_run[3], zero_run[4])
                output, outs, out_spec, aux = zero_run
                blocks = [[_block([c[i] for c in cols[j]], tuple(o.shape), tuple(x.shape), o, True)
                           for j, x in enumerate(leaves)] for i, o in enumerate(outs)]
            else:
                args, mine, spec = _prepare(args, argnums, not top, watch, api)
                output, aux = _split_aux(func(*args, **kwargs), has_aux, where)
                flat, out_spec = flatten(output)
                _tensor_outputs(flat, where)
                if watch:
                    levels.check_closed_over(api, flat)
                for o in flat:
                    rows = [_grads([o], mine, [_basis(o, k)], not top) for k in range(o.numel())]
                    blocks.append([_block([r[j] for r in rows], tuple(o.shape), tuple(x.shape), x, False)
                                   for j, x in enumerate(mine)])
        jac = unflatten([unflatten(row, spec) for row in blocks], out_spec)
        return (_out(jac, top), _out(aux, top)) if has_aux else _out(jac, top)

    return wrapper


def jacrev(func: Callable, argnums=0, *, has_aux: bool = False, chunk_size: int | None = None,
           _preallocate_and_copy: bool = False) -> Callable:
    """A function returning the Jacobian of ``func`` w.r.t. ``args[argnums]`` by reverse mode
    (one backward per output element); ``chunk_size`` only batches PyTorch's work: same values."""
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian("jacrev", func, argnums, has_aux, False)


def jacfwd(func: Callable, argnums=0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    """A function returning the Jacobian of ``func`` w.r.t. ``args[argnums]`` by forward mode
    (one forward-mode pass per input element, the columns PyTorch's vmap computes at once)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    return _jacobian("jacfwd", func, argnums, has_aux, True)


def hessian(func: Callable, argnums=0) -> Callable:
    """``jacfwd(jacrev(func, argnums), argnums)``, as PyTorch defines it."""
    return jacfwd(jacrev(func, argnums), argnums)
