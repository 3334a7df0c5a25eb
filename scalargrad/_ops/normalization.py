"""Normalisation: ``native_batch_norm`` (``NativeBatchNormBackward0``), ``native_layer_norm``
(``NativeLayerNormBackward0``) and ``native_group_norm`` (``NativeGroupNormBackward0``), each one
node over (input[, weight[, bias]]).

The node's ``_c`` is a ``Norm``: which elements are normalised together (``groups``: flat
input positions; a batch norm's channel, a layer norm's row), which weight element each
output element takes (``param_of``), and the statistics the forward computed (``mean``,
``invstd`` per group), which PyTorch saves as ``result1``/``result2``. An output element is

    (x - mean) * invstd * weight + bias,   mean and variance (population) over its group,

or, for a batch norm in evaluation, with the running statistics as constants. The tensor layer
computes the values and the backward (``_tensor/normalization.py``).
"""

from __future__ import annotations

from .table import Op, register

__all__ = ["Norm", "BatchNorm", "LayerNorm", "GroupNorm", "NORMALIZATION_OPS"]


class Norm:
    """What a normalisation node keeps (see the module docstring). ``training``: the statistics
    are the group's own (else ``mean``/``invstd`` come from the running statistics and are
    constants); ``affine``: 0, 1 (weight) or 2 (weight and bias) parameter inputs."""

    __slots__ = ("groups", "group_of", "param_of", "mean", "invstd", "eps", "training", "affine", "result1",
                 "result2", "running_mean", "running_var", "normalized_shape", "channels_last", "layer", "weight",
                 "bias", "shape", "num_groups", "batch", "channels", "hxw")

    def __init__(self, groups: list, param_of: list, eps: float, training: bool, affine: int, layer: bool) -> None:
        self.groups = groups
        self.param_of = param_of
        self.group_of = [0] * len(param_of)
        for g, idx in enumerate(groups):
            for i in idx:
                self.group_of[i] = g
        self.eps = eps
        self.training = training
        self.affine = affine
        self.layer = layer
        self.mean = None
        self.invstd = None
        self.result1 = None
        self.result2 = None
        self.running_mean = None
        self.running_var = None
        self.normalized_shape = None
        self.channels_last = False
        self.weight = None
        self.bias = None
        self.shape = None
        self.num_groups = None
        self.batch = self.channels = self.hxw = None


def normalized_form(sp, x, group, mean=None, invstd=None, eps=None, weight=1, bias=0):
    """(x - mean) / sqrt(var + eps) * weight + bias over ``group`` (which contains ``x``), or
    with the constants ``mean`` and ``invstd`` when given (evaluation)."""
    if mean is None:
        n = len(group)
        m = sp.Add(*group) / n
        var = sp.Add(*[(a - m) ** 2 for a in group]) / n
        return (x - m) / sp.sqrt(var + eps) * weight + bias
    return (x - mean) * invstd * weight + bias


@register
class BatchNorm(Op):
    """native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)."""

    name = "NativeBatchNormBackward0"
    saved = (("eps", "c.eps"), ("input", 0), ("result1", "c.result1"), ("result2", "c.result2"),
             ("running_mean", "c.running_mean"), ("running_var", "c.running_var"), ("training", "c.training"),
             ("weight", "c.weight"))
    # input, weight, bias: native_batch_norm_backward(grad, input, weight, running_mean, running_var, result1,
    #   result2, training, eps, grad_input_mask)
    backward = staticmethod(lambda k, g, v: k.batch_norm_backward(g, v))
    sympy = staticmethod(normalized_form)


@register
class BatchNormAffine1(BatchNorm):
    """batch norm with a weight but no bias (a (None, 0) edge for it)."""

    extra_none = 1


@register
class BatchNormAffine0(BatchNorm):
    """batch norm without weight and bias (two (None, 0) edges)."""

    extra_none = 2


@register
class LayerNorm(Op):
    """native_layer_norm(input, normalized_shape, weight, bias, eps)."""

    name = "NativeLayerNormBackward0"
    saved = (("bias", "c.bias"), ("input", 0), ("normalized_shape", "c.normalized_shape"),
             ("result1", "c.result1"), ("result2", "c.result2"), ("weight", "c.weight"))
    # input, weight, bias: native_layer_norm_backward(grad, input, normalized_shape, result1, result2, weight,
    #   bias, grad_input_mask)
    backward = staticmethod(lambda k, g, v: k.layer_norm_backward(g, v))
    sympy = staticmethod(normalized_form)


@register
class LayerNormAffine1(LayerNorm):
    extra_none = 1


@register
class LayerNormAffine0(LayerNorm):
    extra_none = 2


@register
class GroupNorm(Op):
    """native_group_norm(input, weight, bias, N, C, HxW, group, eps): each (sample, group of
    C / group channels) normalised by its own statistics, then scaled and shifted per channel."""

    name = "NativeGroupNormBackward0"
    saved = (("C", "c.channels"), ("HxW", "c.hxw"), ("N", "c.batch"), ("eps", "c.eps"), ("group", "c.num_groups"),
             ("input", 0), ("result1", "c.result1"), ("result2", "c.result2"), ("weight", "c.weight"))
    # input, weight, bias: native_group_norm_backward(grad, input, result1, result2, weight, N, C, HxW, group,
    #   grad_input_mask)
    backward = staticmethod(lambda k, g, v: k.group_norm_backward(g, v))
    sympy = staticmethod(normalized_form)


@register
class GroupNormAffine1(GroupNorm):
    extra_none = 1


@register
class GroupNormAffine0(GroupNorm):
    extra_none = 2


NORMALIZATION_OPS = [BatchNorm, BatchNormAffine1, BatchNormAffine0, LayerNorm, LayerNormAffine1, LayerNormAffine0,
                     GroupNorm, GroupNormAffine1, GroupNormAffine0]
