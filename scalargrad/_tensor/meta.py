"""The meta device (``device='meta'``): tensors with a shape, strides and a dtype and no data.

PyTorch uses them to build a module without memory (``with torch.device("meta"):``) and then
load real tensors into it (``load_state_dict(..., assign=True)``, ``to_empty``). scalargrad's
meta tensor holds ``NO_DATA`` (``_base/meta_data.py``) as its elements, so an op with no meta
kernel here refuses it by name instead of computing. What has one:

* the factories ``empty``, ``zeros``, ``ones``, ``full``, ``tensor``, ``rand``, ``randn``, their
  ``*_like`` and ``Tensor.new_*`` forms (``factories.factory_device`` says when to make one);
* the in-place initialisers ``fill_``, ``zero_``, ``uniform_``, ``normal_`` and ``copy_`` into a
  meta tensor, which change nothing but the version counter, draw no random numbers (PyTorch's
  meta kernels leave the CPU generator alone) and keep PyTorch's checks;
* everything that only passes the elements along (``detach``, ``.data``, ``nn.Parameter``,
  ``requires_grad_``, ``state_dict``) and the attributes (``shape``, ``dtype``, ``device``,
  ``is_meta``), ``repr`` (``tensor(..., device='meta', size=(2, 3))``) and PyTorch's errors of
  ``item()``, ``tolist()`` and ``numpy()``.
"""

from __future__ import annotations

from .._base.dtypes import TensorType
from .._base.meta_data import NO_DATA
from .inplace import check_inplace
from .operands import broadcast_shapes
from .storage import write_version
from .tensor import Tensor, leaf

__all__ = ["meta_tensor", "is_meta", "changed_in_place", "copy_into_meta", "meta_repr", "refuse_reading"]


def meta_tensor(shape: tuple, dtype) -> Tensor:
    """A new meta leaf of ``shape`` and ``dtype`` (contiguous)."""
    return leaf(NO_DATA, TensorType(dtype, tuple(shape)))


def is_meta(t: Tensor) -> bool:
    """Whether ``t`` is on the meta device."""
    return t._val is NO_DATA


def changed_in_place(t: Tensor) -> Tensor:
    """An in-place initialiser on the meta tensor ``t``: PyTorch's refusals of the change (a
    leaf that requires grad in grad mode), then only the version counter moves on."""
    check_inplace(t)
    write_version(t)
    return t


def copy_into_meta(self: Tensor, src: Tensor) -> Tensor:
    """``self.copy_(src)`` where ``self`` is a meta tensor: ``src`` must broadcast to it."""
    shape = tuple(self._t.shape)
    if broadcast_shapes(shape, src._t.shape) != shape:
        raise RuntimeError(f"The size of tensor a ({shape[-1] if shape else 1}) must match the size of tensor b "
                           f"({src._t.shape[-1]}) at non-singleton dimension {len(shape) - 1}")
    return changed_in_place(self)


def refuse_reading(t: Tensor, what: str) -> None:
    """PyTorch's error where a meta tensor's numbers are read out (``item``, ``tolist``, ``numpy``)."""
    if t._val is not NO_DATA:
        return
    if what == "item":
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    if what == "numpy":
        raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                        "host memory first.")
    raise NotImplementedError("Cannot copy out of meta tensor; no data!")


def meta_repr(t: Tensor, grad_fn: str | None, default_dtype) -> str:
    """PyTorch's repr of a meta tensor: no data, its device and size, then the dtype when not
    implied, then grad_fn or requires_grad."""
    parts = ["...", "device='meta'", f"size={tuple(t._t.shape)}"]
    dt = t._t.dtype
    if dt is not default_dtype:  # with no numbers shown, an int64 or bool dtype is not implied either
        parts.append(f"dtype={dt!r}")
    if grad_fn is not None:
        parts.append(f"grad_fn=<{grad_fn}>")
    elif t._rg:
        parts.append("requires_grad=True")
    return "tensor(" + ", ".join(parts) + ")"
