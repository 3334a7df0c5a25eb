"""SymPy proofs of the gradients scalargrad computes.

The engine keeps one node per tensor op; the proof is made element by element, on the graph
``graph`` expands it into: each node of a tensor with dimensions is seen as one element per
output element (a 0-dim node of 0-dim tensors is its own element, so a scalar program is
checked as cheaply as ever). ``to_sympy(v)`` writes a tensor as SymPy expressions of its
leaves' elements, built from each op's own ``sympy`` form (``_ops``): the symbolic check tests
the very rule the engine runs. ``sympy_check(out)`` compares the gradients ``autograd.grad``
returns, element by element, with the derivative SymPy proves, by one of two strategies:

* **whole** (small graphs): differentiate the whole expression w.r.t. each input element and
  evaluate it exactly at the leaves' values; the report shows each derivative (``q/x``).
* **local** (any size, linear time): for each op kind, differentiate its SymPy form once
  (cached) and, at every element, compare those partial derivatives, evaluated at the
  element's input values, with the local gradient the op's own ``backward`` formula gives on
  the element's numbers (the float kernel, as a 0-dim node runs it) for a unit incoming
  gradient; then redo the chain rule in float64 from the verified partials, element by element
  in reverse creation order, and compare with autograd. The check also proves each element's
  forward value against its SymPy form. Structural elements (sums, means, dot products, maxima,
  copies, picks) have partials declared beside their forms (``element_op.ElementOp``, one
  module per op family), proved against the form by SymPy once. Each node of a tensor with
  dimensions is then run as the engine runs it, its bulk ``backward`` on a probe gradient, and
  the result (a vector-Jacobian product) compared with the one the verified element partials
  give: a wrong bulk formula is found at its node.

The local pass always runs: it verifies the op rules, finds PyTorch's conventions at
non-differentiable points (``Op.convention``: the report says where calculus and PyTorch
part), hooks that change gradients on purpose, and custom ``autograd.Function`` nodes, and it
bounds the float rounding of autograd's result, which sets the comparison's tolerance.

A custom Function is proved like an op when its class declares its form with a static
``sympy(sp, *args)`` (see ``Function``); on tensors with dimensions the form is applied
element by element when the class says it holds so (``sympy_elementwise = True``: ``nn``'s
``BackwardHookFunction`` declares identity, so gradients through modules with full backward
hooks are proved). Without a usable form its inputs are reported unverifiable. The chain rule
goes through the derivative of the declared form; the user's backward is never called by the
check (it may print or record: a second call would change the program, and a custom backward
is often not linear in its gradient, e.g. clipping, so a unit-gradient probe would miss what
it does). Instead the engine's own call is compared, after it ran: what the Function's
backward returned against the declared form's partials times the gradient it received. Where
they part the inputs below get the status ``custom backward`` (a custom backward may deviate
on purpose), with both values.

``check_every_backward()`` cross-checks every backward call made inside it.

The modules, lowest first: ``element_op`` (structural element ops; ``derived``: those whose
value and partials come from their op-table form), ``graph`` (the element graph, and what each
family registers), one module per op family (``views``, ``reductions``,
``products``, ``scans``, ``moments``, ``norms``, ``losses``, ``softmax``, ``embedding``,
``convolution``, ``pooling``, ``normalization``, ``selection``, ``indexing``, ``scatter``,
``comparison``), ``forms`` (SymPy expressions), ``rules`` (per-op rules and tolerances),
``notes``, ``functions`` and ``bulk`` (parts of the local pass), ``local`` (the local pass),
``report``, ``check`` (``sympy_check``, ``check_every_backward``).
"""

from __future__ import annotations

# every family registers the elements of its ops' nodes on import
from . import (
    attention,
    comparison,
    convolution,
    distances,
    embedding,
    fold,
    gated,
    indexing,
    linalg,
    losses,
    medians,
    moments,
    normalization,
    norms,
    padding,
    pooling,
    products,
    reductions,
    rrelu,
    scans,
    scatter,
    selection,
    shuffle,
    softmax,
    triangular,
    upsampling,
    views,
)
from .attention import AttentionGradOf, AttentionOf
from .check import WHOLE_MAX_NODES, WHOLE_MAX_TREE, check_every_backward, sympy_check
from .element_op import ELEMENT_OPS, Const, ElementOp, Opaque, Same, opaque_op
from .embedding import EmbeddingPickOf, ScaledSumOf
from .forms import to_sympy
from .graph import NO_ELEMENT, Elem, ElementGraph, covers, element_index, shape_pick
from .losses import LOSS_ELEMENTS, MseOf, NllBackwardOf, NllOf, PointwiseLossOf
from .moments import MomentOf
from .normalization import NormalizedOf
from .norms import DistOf, NormOf
from .pooling import WindowMeanOf, WindowSpreadOf
from .products import AddmmOf, DotOf
from .reductions import LogsumexpOf, MaxOf, MeanOf, MinOf, SumOf
from .report import BackwardChecks, InputCheck, SymbolicMismatch, SymbolicReport
from .rules import element_proof
from .scans import ProdOf
from .scatter import LastOf
from .softmax import LogSoftmaxBackwardOf, LogSoftmaxOf, SoftmaxBackwardOf, SoftmaxOf

__all__ = ["to_sympy", "sympy_check", "SymbolicReport", "InputCheck", "SymbolicMismatch", "check_every_backward",
           "BackwardChecks", "WHOLE_MAX_NODES", "WHOLE_MAX_TREE", "element_proof",
           # the element graph and its structural element ops
           "Elem", "ElementGraph", "ElementOp", "ELEMENT_OPS", "Same", "Const", "Opaque", "opaque_op", "element_index",
           "NO_ELEMENT", "shape_pick", "covers", "SumOf", "MeanOf", "MaxOf", "MinOf", "DotOf", "AddmmOf", "ProdOf",
           "MomentOf", "NormOf", "DistOf", "PointwiseLossOf", "LOSS_ELEMENTS", "MseOf", "NllOf", "NllBackwardOf",
           "SoftmaxOf", "LogSoftmaxOf", "LogsumexpOf", "SoftmaxBackwardOf", "LogSoftmaxBackwardOf", "EmbeddingPickOf",
           "ScaledSumOf", "WindowMeanOf", "WindowSpreadOf", "NormalizedOf", "LastOf", "AttentionOf", "AttentionGradOf"]
