"""Named differences: the ways a document's output may differ from what PyTorch 2.13 prints
without the computation being different, each a precise rule.

``compare`` applies the rules while it matches a document's text with scalargrad's, and
records every place it used one (the verdict lists them with the lines they excused):

- ``NODE_NAMES``: the document shows a name of a graph node as an older PyTorch printed it,
  where scalargrad prints its PyTorch 2.13 name, and ``HISTORICAL_NODE_NAMES`` says the older
  name is that node's (``LogBackward`` became ``LogBackward0`` in 1.10, ``ThAddBackward`` was
  0.4's ``AddBackward0``, every 1.x convolution backward is 2.x's ``ConvolutionBackward0``).
  No other name, and no other index: ``PowBackward0`` is not ``PowBackward1``.
- ``ANGLE_BRACKETS``: a ``<...>`` group of scalargrad's text (on one line) is missing from the
  document, as a page whose HTML swallowed it shows it (``grad_fn=`` for
  ``grad_fn=<AddBackward0>``). A document that has brackets there must match them.
- ``ORDERED_DICT``: the document shows ``OrderedDict(...)`` around a dict scalargrad prints
  plain (``Module._parameters`` and its kin were OrderedDicts before PyTorch 2.0).
  ``OrderedDict([('a', 1)])`` and ``OrderedDict({'a': 1})`` are one object spelled by two
  Pythons: that is no difference at all.
- ``MODULEDICT_ORDER``: the entries of a printed ModuleDict/ParameterDict in key order, as an
  older PyTorch sorted a plain dict given to them; the entries move whole, nothing else moves.
- ``DICT_KEYS_SORTED``: a notebook's displayed dict with its keys sorted, as IPython before
  version 5 did (with Python before 3.6); only a cell's displayed value, nothing it printed.
- ``WHITE_SPACE``: the white space between two tokens differs (indentation, blank lines,
  line breaks); a token is never joined with or split from another.
- ``UNSEEDED``: a number that differs between runs of the document from other unseeded
  generator states (the cell's output depends on a draw the document did not seed).
- ``UNINITIALISED``: the same, in a document that drew nothing unseeded but printed a tensor
  of uninitialised memory (``torch.empty``), which scalargrad fills with different numbers in
  each run, as PyTorch's memory holds anything.
- ``WARNINGS``: a warning PyTorch 2.13 gives where an older PyTorch gave none or another one,
  as ``WARNING_CHANGES`` lists them; any other difference of warnings is a difference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NODE_NAMES", "ANGLE_BRACKETS", "ORDERED_DICT", "ORDERED_DICT_SPELLING", "MODULEDICT_ORDER",
           "DICT_KEYS_SORTED", "WHITE_SPACE", "UNSEEDED", "UNINITIALISED", "WARNINGS", "EXPLANATIONS",
           "HISTORICAL_NODE_NAMES", "historical_node_name", "WarningChange", "WARNING_CHANGES", "warning_change"]

NODE_NAMES = "node names of an older PyTorch"
ANGLE_BRACKETS = "text in angle brackets dropped"
ORDERED_DICT = "OrderedDict printed as dict"
ORDERED_DICT_SPELLING = "OrderedDict spelled by another Python"
MODULEDICT_ORDER = "ModuleDict order"
DICT_KEYS_SORTED = "dict keys sorted"
WHITE_SPACE = "white space"
UNSEEDED = "unseeded random numbers"
UNINITIALISED = "uninitialised memory"
WARNINGS = "warnings differ"

EXPLANATIONS = {
    NODE_NAMES: "the document shows a graph node's name as an older PyTorch printed it (LogBackward became "
                "LogBackward0 in PyTorch 1.10; ThAddBackward was PyTorch 0.4's AddBackward0)",
    ANGLE_BRACKETS: "the page dropped a <...> group of the output, as HTML does (grad_fn=<AddBackward0> shown as "
                    "grad_fn=)",
    ORDERED_DICT: "before PyTorch 2.0 a module's _parameters, _buffers and _modules were OrderedDicts; "
                  "PyTorch 2.13 prints a plain dict",
    ORDERED_DICT_SPELLING: "Python 3.12 prints OrderedDict({'a': 1}) where older Pythons (and IPython's "
                           "display) print OrderedDict([('a', 1)]): the same object",
    MODULEDICT_ORDER: "an older PyTorch sorted the keys of a plain dict given to ModuleDict/ParameterDict; "
                      "PyTorch 2.13 keeps their order",
    DICT_KEYS_SORTED: "IPython before version 5 displayed a dict with its keys sorted",
    WHITE_SPACE: "the page's white space between tokens differs (indentation, blank lines, line breaks)",
    UNSEEDED: "the number differs between runs of the document from other unseeded generator states: the cell "
              "draws random numbers the document does not seed (PyTorch seeds its generator from the "
              "operating system)",
    UNINITIALISED: "the number differs between runs of the document: it was printed from a tensor whose memory "
                   "was not initialised (torch.empty, torch.Tensor(2, 3)), which holds anything",
    WARNINGS: "a warning of PyTorch 2.13 that an older PyTorch did not give, or gave in other words",
}


# ---------------------------------------------------------------- graph node names

# Names of single-formula ops, which PyTorch printed without an index until 1.10 (when every
# node name got the index of its formula: LogBackward became LogBackward0)
_BEFORE_1_10 = """
Abs Acos Asin Atan Atan2 Cos Cosh Sin Sinh Tan Tanh Exp Expm1 Log Log10 Log1p Log2 Sqrt Rsqrt Reciprocal Neg
Sigmoid Erf Erfinv Digamma Lgamma Floor Ceil Round Trunc Frac Sign Addmm Addmv Addbmm Baddbmm Addcmul Addcdiv Bmm
Mm Mv Dot T View UnsafeView Expand Clone Select Slice Index IndexSelect Gather Stack Cat Permute Repeat Flip Roll
AsStrided Diag Tril Triu Trace Cumsum Cumprod NllLoss NllLoss2D MseLoss L1Loss SmoothL1Loss BinaryCrossEntropy
BinaryCrossEntropyWithLogits KlDiv LogSoftmax Softmax Embedding EmbeddingBag NativeBatchNorm NativeLayerNorm
MaxPool2DWithIndices MaxPool1DWithIndices MaxPool3DWithIndices AvgPool2D AvgPool3D AdaptiveAvgPool2D
AdaptiveMaxPool2D Hardtanh LeakyRelu Elu Gelu Silu Softplus Softshrink Hardshrink Logsumexp Dist Sort Topk
Kthvalue Polygamma Unfold Narrow Split SplitWithSizes Unbind
""".split()

# Older names of PyTorch 2.13's nodes, with the versions that printed them
_RENAMED = {
    # PyTorch 0.4 named nodes of ops bound from TH after it
    "ThAddBackward": "AddBackward0", "ThSubBackward": "SubBackward0", "ThMulBackward": "MulBackward0",
    "ThDivBackward": "DivBackward0", "ThAddmmBackward": "AddmmBackward0", "ThAddmvBackward": "AddmvBackward0",
    "ThAddbmmBackward": "AddbmmBackward0", "ThBaddbmmBackward": "BaddbmmBackward0",
    "ThAddcmulBackward": "AddcmulBackward0", "ThAddcdivBackward": "AddcdivBackward0",
    # PyTorch 0.4.1 and 1.0 printed the nodes of add, sub and mul without an index (the
    # tutorials of those years show grad_fn=<AddBackward> beside <MeanBackward1>, <PowBackward0>)
    "AddBackward": "AddBackward0", "SubBackward": "SubBackward0", "MulBackward": "MulBackward0",
    # older PyTorch (0.4, early 1.x) numbered the mean over all elements 1 ("out = z.mean()")
    "MeanBackward1": "MeanBackward0",
    # every convolution's backward is ConvolutionBackward0 since PyTorch 1.11
    "ThnnConv2DBackward": "ConvolutionBackward0", "ThnnConv2DBackward0": "ConvolutionBackward0",
    "SlowConv2DBackward0": "ConvolutionBackward0", "MkldnnConvolutionBackward": "ConvolutionBackward0",
    "MkldnnConvolutionBackward0": "ConvolutionBackward0", "CudnnConvolutionBackward": "ConvolutionBackward0",
    "CudnnConvolutionBackward0": "ConvolutionBackward0", "ThnnConvDepthwise2DBackward": "ConvolutionBackward0",
    "ThnnConvDepthwise2DBackward0": "ConvolutionBackward0", "SlowConvDilated2DBackward": "ConvolutionBackward0",
    "ThnnConvTranspose2DBackward": "ConvolutionBackward0", "SlowConvTranspose2DBackward0": "ConvolutionBackward0",
    "CudnnConvolutionTransposeBackward": "ConvolutionBackward0",
    # batch normalisation on cuDNN; PyTorch 2.13's CPU node
    "CudnnBatchNormBackward": "NativeBatchNormBackward0", "CudnnBatchNormBackward0": "NativeBatchNormBackward0",
    # PyTorch 1.10 to 1.12 named reshape's node ReshapeAliasBackward0
    "ReshapeAliasBackward0": "ViewBackward0",
    # torch.where was SWhereBackward before 1.10; std/var over all elements were numbered 1
    "SWhereBackward": "WhereBackward0", "StdBackward1": "StdBackward0", "VarBackward1": "VarBackward0",
    # x.norm() was NormBackward0/1 before linalg.vector_norm
    "NormBackward0": "LinalgVectorNormBackward0", "NormBackward1": "LinalgVectorNormBackward0",
    # 0.3's max_pool2d
    "MaxPool2DBackward": "MaxPool2DWithIndicesBackward0",
}

HISTORICAL_NODE_NAMES: dict[str, str] = {f"{n}Backward": f"{n}Backward0" for n in _BEFORE_1_10}
HISTORICAL_NODE_NAMES.update(_RENAMED)


def historical_node_name(name: str) -> str | None:
    """PyTorch 2.13's name of the node an older PyTorch printed as ``name`` (None if the
    table has none)."""
    return HISTORICAL_NODE_NAMES.get(name)


# ---------------------------------------------------------------- warnings


@dataclass(frozen=True)
class WarningChange:
    """A warning PyTorch 2.13 gives (``now``, a pattern of "Category: message"), and what an
    older PyTorch gave instead: nothing (``silent_before``) or one of ``before`` (patterns)."""

    now: str
    before: tuple
    silent_before: bool
    why: str


_NON_FULL_HOOK = (r"Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated "
                  r"and will be removed in future versions\. This hook will be missing some grad_input\. Please use "
                  r"register_full_backward_hook to get the documented behavior\.")

WARNING_CHANGES = [
    WarningChange("FutureWarning: " + _NON_FULL_HOOK, ("UserWarning: " + _NON_FULL_HOOK,), True,
                  "register_backward_hook: PyTorch 1.7 and older gave no warning, 1.8 to 1.13 a UserWarning, "
                  "2.x a FutureWarning"),
    WarningChange(r"UserWarning: The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed\..*",
                  (), True, "reading .grad of a non-leaf tensor: PyTorch 1.6 and older gave no warning"),
]

# warnings an older PyTorch gave that PyTorch 2.13 does not
_WARNINGS_GONE = [
    (r"FutureWarning: You are using `torch\.load` with `weights_only=False`.*",
     "torch.load: PyTorch 2.4 and 2.5 warned about weights_only; 2.6 made it the default"),
]


def warning_change(shown: str | None, given: str | None) -> str | None:
    """Why a document's warning ``shown`` and scalargrad's ``given`` (either None: no warning
    there) are a named difference, or None if no rule explains them."""
    if given is not None:
        for change in WARNING_CHANGES:
            if re.fullmatch(change.now, given):
                if shown is None and change.silent_before:
                    return change.why
                if shown is not None and any(re.fullmatch(b, shown) for b in change.before):
                    return change.why
        return None
    if shown is not None:
        for pattern, why in _WARNINGS_GONE:
            if re.fullmatch(pattern, shown):
                return why
    return None
