"""``F.scaled_dot_product_attention`` and ``F.multi_head_attention_forward``, composed of tensor ops
as PyTorch 2.13 composes them (re-exported by ``nn.functional``).

scaled_dot_product_attention is ATen's math path (``_scaled_dot_product_attention_math``): with
``s = sqrt(scale)`` (``scale`` = 1/sqrt(E) unless given), ``(q * s) @ (k.mT * s)`` (MulBackward1,
UnsafeViewBackward0), the mask added in place (AddBackward0; a bool mask is 0 where True and -inf
where False; ``is_causal`` a lower-triangular one), a softmax that gives 0 on a row masked whole
(``_safe_softmax``, SafeSoftmaxBackward0), dropout, then ``@ v``. Differences a program can see:
PyTorch's CPU build picks a fused kernel (``_scaled_dot_product_flash_attention_for_cpu``) for 4-D
inputs without dropout, whose output's ``grad_fn`` is ``ScaledDotProductFlashAttentionForCpuBackward0``:
scalargrad records that node there too (``_flash``: the math path's values, computed without
recording); the fused kernel's values differ from the math path's in the last bits, as products
and softmax do between processors.

multi_head_attention_forward follows ``torch/nn/functional.py`` step by step (in-projection,
bias_k/bias_v, zero attention, key-padding mask, then ``baddbmm``/``bmm`` and softmax when the
weights are asked for, else scaled_dot_product_attention), with its checks and messages.
"""

from __future__ import annotations

import math
import warnings

from .._base import dtypes
from .._base.dtypes import TensorType
from .._base.errors import Unsupported
from .._base.grad_mode import is_grad_enabled, no_grad
from .._ops import arithmetic as AR
from .._ops import attention as AT
from .._tensor import factories as FA
from .._tensor import products
from .._tensor.attention import flash_layout
from .._tensor.elementwise import unary, with_number
from .._tensor.joins import cat
from .._tensor.softmax import softmax as tensor_softmax
from .._tensor.storage import dual_memory
from .._tensor.tensor import Tensor, make
from .activation_functions import softmax
from .dropout_functions import dropout
from .padding_functions import pad

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward", "canonical_mask", "none_or_dtype"]


def _short(dt) -> str:
    """ATen's name of a dtype in its messages (``float``, ``double``, ``long int``)."""
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}.get(str(dt).replace("torch.", ""), str(dt).replace("torch.", ""))


def _validate_sdpa(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None) -> None:
    """``validate_sdpa_input``: ATen's checks, in its order and words."""
    if not (query.dtype is key.dtype and query.dtype is value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_short(query.dtype)} key.dtype: {_short(key.dtype)} and value.dtype: "
                           f"{_short(value.dtype)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None:
        md = attn_mask.dtype
        if md is not dtypes.bool and md is not dtypes.float32 and md is not query.dtype:
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {_short(md)} and  query.dtype: {_short(query.dtype)} instead.")


def _bool_to_float_mask(mask: Tensor, dtype) -> Tensor:
    """``convert_boolean_attn_mask``: 0 where the mask is True, -inf where it is False."""
    if mask.dtype is not dtypes.bool:
        return mask
    return FA.zeros_like(mask, dtype=dtype).masked_fill_(mask.logical_not(), float("-inf"))


def _gqa(query: Tensor, key: Tensor, value: Tensor, enable_gqa: bool) -> tuple[Tensor, Tensor]:
    """``pre_process_group_query_attention_input``: key and value heads repeated to the query's."""
    if not enable_gqa:
        return key, value
    hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
    if hq == hk == hv:
        return key, value
    if hq % hk or hq % hv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return key.repeat_interleave(hq // hk, -3), value.repeat_interleave(hq // hv, -3)


def _safe_softmax(attn: Tensor) -> Tensor:
    """``at::_safe_softmax(attn, -1)``: softmax, with 0 on a row whose entries are all -inf, one
    SafeSoftmaxBackward0 node (its gradient softmax's, 0 times the incoming one on such a row)."""
    return tensor_softmax(attn, -1, safe=True)


def _fused(query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None, dropout_p: float,
           enable_gqa: bool) -> bool:
    """Whether PyTorch's CPU build takes its fused kernel (``use_flash_attention_cpp``, in its
    order): no dropout; 4-D query, key and value with one batch size and one number of heads
    (key's and value's dividing query's with enable_gqa); a mask that does not require grad,
    2-D or 4-D (one of fewer dims raises the IndexError of its size(-2)), broadcasting to
    (B, H, L, S) along its last two dims and matching B and H or 1 in its first two; one head
    dimension; nonzero L and S; stride 1 along the last dims. The choice reads neither grad
    mode nor requires_grad: forward-mode AD meets the fused kernel too."""
    if dropout_p > 0.0 or not query.dim() == key.dim() == value.dim() == 4:
        return False
    if not query.size(0) == key.size(0) == value.size(0):
        return False
    qh, kh, vh = query.size(1), key.size(1), value.size(1)
    if not (kh == vh and qh % kh == 0 if enable_gqa else qh == kh == vh):
        return False
    if mask is not None:
        if mask.requires_grad:
            return False
        if mask.dim() < 2:  # the check reads the mask's size(-2) first
            raise IndexError("Dimension specified as -2 but tensor has no dimensions" if not mask.dim() else
                             "Dimension out of range (expected to be in range of [-1, 0], but got -2)")
        if mask.size(-2) not in (query.size(2), 1) or mask.size(-1) not in (key.size(2), 1):
            return False
        if mask.dim() == 3 or mask.dim() > 4 or mask.dim() == 4 and (mask.size(0) not in (1, query.size(0))
                                                                  or mask.size(1) not in (1, qh)):
            return False
    if not query.size(-1) == key.size(-1) == value.size(-1) or query.size(-2) == 0 or key.size(-2) == 0:
        return False
    return all(t.stride(-1) == 1 for t in (query, key, value) + ((mask,) if mask is not None else ()))


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v over the last two dimensions (..., L, E) x (..., S, E) x
    (..., S, Ev) -> (..., L, Ev), with dropout ``dropout_p`` on the weights (see the module's note).
    Where PyTorch takes its fused CPU kernel: no forward-mode AD (PyTorch's error), and a
    recorded call is one ``SdpaFlash`` node (with enable_gqa over fewer key heads, the math path
    behind ``SdpaFlashGate``: ``_ops/attention.py``)."""
    _validate_sdpa(query, key, value, attn_mask)
    if _fused(query, key, value, attn_mask, dropout_p, enable_gqa):
        dual = dual_memory()
        if dual is not None and any(dual[2](t) is not None for t in (query, key, value)):
            raise NotImplementedError(
                "Trying to use forward AD with _scaled_dot_product_flash_attention_for_cpu that does not support it "
                "because it has not been implemented yet.\nPlease file an issue to PyTorch at "
                "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can "
                "prioritize its implementation or submit a PR adding the implementation to derivatives.yaml")
        if is_grad_enabled() and any(t.requires_grad for t in (query, key, value)):
            if enable_gqa and not query.size(1) == key.size(1) == value.size(1):
                query, key, value = (unary(AT.SdpaFlashGate, t) for t in (query, key, value))
            else:
                return _flash(query, key, value, attn_mask, is_causal, scale)
    return _math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _flash(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, is_causal: bool,
           scale: float | None) -> Tensor:
    """The fused kernel's node (``SdpaFlash``) over query, key and value: the math path's values
    (computed without recording), and what the node saves."""
    with no_grad():
        out = _math(query, key, value, attn_mask, 0.0, is_causal, scale, False)
        mask = _bool_to_float_mask(attn_mask, query.dtype) if attn_mask is not None else None
        if is_causal:
            mask = _bool_to_float_mask(FA.ones(query.size(-2), key.size(-2), dtype=dtypes.bool).tril(), query.dtype)
        negative = scale is not None and scale < 0.0
        base = abs(scale) if negative else (scale if scale is not None else 1.0 / math.sqrt(query.size(-1)))
        factor = math.sqrt(base)
        sign = -1.0 if negative else 1.0
        scores = products.matmul(with_number(AR.MulScalar, query, sign * factor),
                                 with_number(AR.MulScalar, key.transpose(-2, -1), factor))
        if mask is not None:
            scores = scores + mask
        lse = scores.logsumexp(-1)
        lse = flash_layout(lse.masked_fill(lse == float("-inf"), 0.0))  # the kernel's 0 for a row masked whole
    c = AT.SdpaFlashContext(mask if attn_mask is not None else None, is_causal, scale, mask, factor, sign, lse)
    return make(AT.SdpaFlash, TensorType(out.dtype, tuple(out.shape)), out._val, (query, key, value), c)


def _math(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
          is_causal: bool, scale: float | None, enable_gqa: bool) -> Tensor:
    """ATen's math path (``_scaled_dot_product_attention_math``), composed of tensor ops."""
    mask = _bool_to_float_mask(attn_mask, query.dtype) if attn_mask is not None else None
    negative = scale is not None and scale < 0.0
    base = abs(scale) if negative else (scale if scale is not None else 1.0 / math.sqrt(query.size(-1)))
    factor = math.sqrt(base)
    q = with_number(AR.MulScalar, query, -factor if negative else factor)
    if is_causal:
        if mask is not None and query.dim() == 4 and dropout_p == 0.0:
            raise Unsupported("scaled_dot_product_attention with both attn_mask and is_causal on 4-D inputs",
                              "PyTorch's fused CPU kernel applies both masks there; its math path refuses them")
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        ones = FA.ones(q.size(-2), key.size(-2), dtype=dtypes.bool)
        mask = _bool_to_float_mask(ones.tril(), q.dtype)
    k, v = _gqa(q, key, value, enable_gqa)
    attn = products.matmul(q, with_number(AR.MulScalar, k.transpose(-2, -1), factor))
    if mask is not None:
        attn.add_(mask)
    attn = _safe_softmax(attn)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return products.matmul(attn, v)


# ---------------------------------------------------------------------------------------------
# multi_head_attention_forward and its helpers (torch/nn/functional.py)


def canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True) -> Tensor | None:
    """A bool mask as a float one (-inf where True); other dtypes refused, as PyTorch's."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not dtypes.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=2)
    if not is_float:
        mask = FA.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def none_or_dtype(input: Tensor | None):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to none_or_dtype() must be None or torch.Tensor")


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the input is batched (3-D query) or not (2-D), with PyTorch's assertions."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


def _packed_rows(proj: Tensor, n: int, e: int) -> list:
    """``proj.unflatten(-1, (n, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()``, split."""
    p = proj.unflatten(-1, (n, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
    return [p[i] for i in range(n)]


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None) -> list:
    """q, k, v projected by one packed (3E, E) weight, as PyTorch shares the products."""
    e = q.size(-1)
    if k is v:
        if q is k:
            return _packed_rows(products.linear(q, w, b), 3, e)
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        return [products.linear(q, w_q, b_q)] + _packed_rows(products.linear(k, w_kv, b_kv), 2, e)
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [products.linear(q, w_q, b_q), products.linear(k, w_k, b_k), products.linear(v, w_v, b_v)]


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None) -> tuple:
    """Three separate projections, with PyTorch's shape assertions."""
    eq, ek, ev = q.size(-1), k.size(-1), v.size(-1)
    for what, wt, want in (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)), ("value", w_v, (eq, ev))):
        if tuple(wt.shape) != want:
            raise AssertionError(f"expecting {what} weights shape of {want}, but got {wt.shape}")
    for what, bt in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bt is not None and tuple(bt.shape) != (eq,):
            raise AssertionError(f"expecting {what} bias shape of {(eq,)}, but got {bt.shape}")
    return products.linear(q, w_q, b_q), products.linear(k, w_k, b_k), products.linear(v, w_v, b_v)


def _masks(query, attn_mask, key_padding_mask, is_causal: bool, need_weights: bool) -> tuple:
    """The masks made float (or the attention mask dropped for a causal hint), as PyTorch does."""
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention makes the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    return attn_mask, key_padding_mask, is_causal


def _shaped_attn_mask(attn_mask, tgt_len: int, src_len: int, bsz: int, num_heads: int):
    if attn_mask is None:
        return None
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _heads(x: Tensor, static, bsz: int, num_heads: int, head_dim: int, what: str) -> Tensor:
    """(S, N, E) -> (N * heads, S, head_dim), or the given static keys/values, checked."""
    if static is None:
        return x.view(x.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {what}.size(0) of {bsz * num_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {what}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def _pad1(mask):
    return None if mask is None else pad(mask, (0, 1))


def _projections(query, key, value, embed_dim: int, in_proj_weight, in_proj_bias, use_separate_proj_weight: bool,
                 q_proj_weight, k_proj_weight, v_proj_weight) -> tuple:
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return tuple(_in_projection_packed(query, key, value, in_proj_weight, in_proj_bias))
    for name, wt in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
        if wt is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
    b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    return _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)


def _weights_path(q, k, v, attn_mask, is_causal: bool, dropout_p: float) -> tuple:
    """The need_weights path: baddbmm/bmm of the scaled queries and keys, softmax, dropout, bmm."""
    q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    if attn_mask is not None:
        weights = products.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = products.bmm(q_scaled, k.transpose(-2, -1))
    weights = softmax(weights, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    return products.bmm(weights, v), weights


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
                                 bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True,
                                 key_padding_mask: Tensor | None = None, need_weights: bool = True,
                                 attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
                                 q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
                                 v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
                                 static_v: Tensor | None = None, average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple:
    """Multi-head attention of ``query`` (L, N, E) over ``key``/``value`` (S, N, E): (output, weights)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    attn_mask, key_padding_mask, is_causal = _masks(query, attn_mask, key_padding_mask, is_causal, need_weights)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    q, k, v = _projections(query, key, value, embed_dim, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                           q_proj_weight, k_proj_weight, v_proj_weight)
    attn_mask = _shaped_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad1(attn_mask), _pad1(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, bsz, num_heads, head_dim, "static_k")
    v = _heads(v, static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = cat([k, FA.zeros(zeros, dtype=k.dtype)], dim=1)
        v = cat([v, FA.zeros(zeros, dtype=v.dtype)], dim=1)
        attn_mask, key_padding_mask = _pad1(attn_mask), _pad1(key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        out, weights = _weights_path(q, k, v, attn_mask, is_causal, dropout_p)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = products.linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = products.linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None
