"""im2col / col2im (``F.unfold`` / ``F.fold``) on tensors, and their backward (each other).

Pure data movement and additions in a fixed order: im2col copies, col2im adds the column
elements into a zeroed image in the column tensor's order (ATen's ``col2im`` loop over
channel-kernel position, then block row, then block column), so the values are PyTorch's bits
on every machine."""

from __future__ import annotations

from .._base.dtypes import TensorType
from .._ops import fold as FO
from .tensor import Tensor, leaf, make
from .tensor_kernel import graph_helper, helper

__all__ = ["im2col", "col2im", "pair"]


def pair(v) -> tuple:
    """``_pair``: an int for both spatial dimensions, or the two given."""
    return (v, v) if isinstance(v, int) else tuple(v)


def _blocks(image: tuple, kernel, dilation, padding, stride) -> tuple:
    """(blocks along height, along width) of an (H, W) image."""
    return tuple((image[i] + 2 * padding[i] - (dilation[i] * (kernel[i] - 1) + 1)) // stride[i] + 1 for i in (0, 1))


def _source(n: int, c: int, image: tuple, kernel, dilation, padding, stride, blocks) -> list:
    kh, kw = kernel
    oh, ow = blocks
    h, w = image
    src = []
    for b in range(n):
        for c_col in range(c * kh * kw):
            w_off, h_off, c_im = c_col % kw, (c_col // kw) % kh, c_col // (kh * kw)
            for hc in range(oh):
                hi = hc * stride[0] - padding[0] + h_off * dilation[0]
                for wc in range(ow):
                    wi = wc * stride[1] - padding[1] + w_off * dilation[1]
                    src.append(((b * c + c_im) * h + hi) * w + wi if 0 <= hi < h and 0 <= wi < w else -1)
    return src


def _settings_check(kernel, dilation, padding, stride) -> None:
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} "
                           f"pad_width: {padding[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} "
                           f"stride_width: {stride[1]}")


def _blocks_check(image, kernel, dilation, padding, blocks) -> None:
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({image[0]}, {image[1]}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
                           f"{padding[1]}), calculated shape of the array of sliding blocks as ({blocks[0]}, "
                           f"{blocks[1]}), but its components must be at least one.")


def im2col(x: Tensor, kernel, dilation, padding, stride) -> Tensor:
    """``F.unfold``: the sliding blocks of a (N, C, H, W) or (C, H, W) input as columns."""
    _settings_check(kernel, dilation, padding, stride)
    shape = tuple(x._t.shape)
    if 0 < len(shape) < 3:  # ATen reads input.size(2) first
        raise IndexError(f"Dimension out of range (expected to be in range of [-{len(shape)}, {len(shape) - 1}], "
                         "but got 2)")
    if len(shape) not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: [{', '.join(str(s) for s in shape)}]")
    batched = len(shape) == 4
    n = shape[0] if batched else 1
    c, h, w = shape[-3:]
    blocks = _blocks((h, w), kernel, dilation, padding, stride)
    _blocks_check((h, w), kernel, dilation, padding, blocks)
    src = _source(n, c, (h, w), kernel, dilation, padding, stride, blocks)
    col_shape = ((n,) if batched else ()) + (c * kernel[0] * kernel[1], blocks[0] * blocks[1])
    xv = x._val
    out = [xv[s] if s >= 0 else 0.0 for s in src]
    blk = FO.Blocks(kernel, dilation, padding, stride, src, shape, col_shape)
    return make(FO.Im2Col, TensorType(x._t.dtype, col_shape), out, (x,), blk)


def col2im(x: Tensor, output_size, kernel, dilation, padding, stride) -> Tensor:
    """``F.fold``: columns of sliding blocks summed into a (N, C, H, W) or (C, H, W) image."""
    _settings_check(kernel, dilation, padding, stride)
    shape = tuple(x._t.shape)
    if len(shape) not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: [{', '.join(str(s) for s in shape)}]")
    kk = kernel[0] * kernel[1]
    if shape[-2] % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={shape[-2]} and kernel_size=({kernel[0]}, {kernel[1]}).")
    h, w = output_size
    blocks = _blocks((h, w), kernel, dilation, padding, stride)
    _blocks_check((h, w), kernel, dilation, padding, blocks)
    if blocks[0] * blocks[1] != shape[-1]:
        raise RuntimeError(f"Given output_size=({h}, {w}), kernel_size=({kernel[0]}, {kernel[1]}), "
                           f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), "
                           f"stride=({stride[0]}, {stride[1]}), expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, "
                           f"but got input.size(2)={shape[-1]}.")
    batched = len(shape) == 3
    n = shape[0] if batched else 1
    c = shape[-2] // kk
    src = _source(n, c, (h, w), kernel, dilation, padding, stride, blocks)
    image_shape = ((n,) if batched else ()) + (c, h, w)
    dt = x._t.dtype
    out = _scatter_sum(x._val, src, n * c * h * w, dt.round)
    blk = FO.Blocks(kernel, dilation, padding, stride, src, image_shape, shape)
    return make(FO.Col2Im, TensorType(dt, image_shape), out, (x,), blk)


def _scatter_sum(vals: list, src: list, size: int, r) -> list:
    out = [0.0] * size
    for v, s in zip(vals, src):
        if s >= 0:
            out[s] = r(out[s] + v)
    return out


def im2col_backward(g: Tensor, v: Tensor) -> Tensor:
    """col2im of the gradient: each image element the sum of the columns that copied it."""
    c = v._c
    dt = g._t.dtype
    n = 1
    for s in c.image_shape:
        n *= s
    gv = g._val if g._t.ndim else [g._val]
    return leaf(_scatter_sum(gv, c.source, n, dt.round), TensorType(dt, c.image_shape))


def col2im_backward(g: Tensor, v: Tensor) -> Tensor:
    """im2col of the gradient: each column element the gradient of the image element it adds to."""
    c = v._c
    gv = g._val if g._t.ndim else [g._val]
    return leaf([gv[s] if s >= 0 else 0.0 for s in c.source], TensorType(g._t.dtype, c.col_shape))


def _im2col_graph(g: Tensor, v: Tensor) -> Tensor:
    c = v._c
    return col2im(g, c.image_shape[-2:], c.kernel_size, c.dilation, c.padding, c.stride)


def _col2im_graph(g: Tensor, v: Tensor) -> Tensor:
    c = v._c
    return im2col(g, c.kernel_size, c.dilation, c.padding, c.stride)


helper(im2col_backward)
helper(col2im_backward)
graph_helper("im2col_backward", _im2col_graph)
graph_helper("col2im_backward", _col2im_graph)
