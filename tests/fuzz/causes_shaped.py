"""The causes behind the divergences of issue 22's families (tensors of every shape, training).

As ``causes.CATALOGUE`` for issue 14's families: each ``Cause`` has a rule over one divergence
(its class, the step's code, the errors, the kind of value difference, the steps before) and
the first rule that matches files it. ``issue`` names the bullet of issue 22 a cause confirms
(``issue 22: ...``) or says the fuzzer found it (``new``). A cause is a mechanism, not a
program: the TRIAGE.md section of each shows a shrunk repro and how many programs it explains.
"""

from __future__ import annotations

import re

from .causes import DIED, Cause, Ctx

__all__ = ["CATALOGUE"]

_VERSION = "modified by an inplace operation"
_SUBSCRIPTED = re.compile(r"\bv\d+\[")


def _index_parts(code: str) -> list[list[str]]:
    """The top-level entries of every ``vN[...]`` subscript in ``code``."""
    out = []
    for m in _SUBSCRIPTED.finditer(code):
        depth, parts, cur = 0, [], ""
        for ch in code[m.end():]:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0:
                    break
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur.strip())
                cur = ""
            else:
                cur += ch
        out.append(parts + [cur.strip()])
    return out


def _two_none(c: Ctx) -> bool:
    """Whether an index up to the divergent step has two or more None entries."""
    return any(parts.count("None") >= 2 for s in c.steps_before() for parts in _index_parts(s.code))


def _bool_index(c: Ctx) -> bool:
    """Whether an index up to the divergent step has a Python bool entry."""
    return any(("True" in parts or "False" in parts) for s in c.steps_before() for parts in _index_parts(s.code))


def _multi_view_message(text: str) -> bool:
    return "returns multiple views" in text or "is a view and its base or another view" in text


CATALOGUE: list[Cause] = [
    DIED,
    Cause("pytorch-internal-assert",
          "PyTorch fails an internal assertion or hands out a storage-less ZeroTensor (sgn's derivative, read by "
          "tolist())", "(PyTorch)", "new: not a scalargrad fault; such programs are excluded",
          lambda c: c.is_("pytorch_bug")),
    Cause("timeout", "The program ran out of time on scalargrad", "(engine)", "new", lambda c: c.is_("timeout")),
    # ------------------------------------------------------------ indexing
    Cause("index-two-none",
          "Indexing with two or more None selects the wrong elements (`x[None, None, 1:3]` returns all of x; "
          "`y[None, None, ::2] = 0` zeroes every row) and the gradients follow the wrong selection",
          "_tensor/indexing.py (the None entries shift the dimension count)",
          "issue 22: indexing with two or more None",
          lambda c: _two_none(c) and (c.values or "too many indices" in c.se or "out of bounds" in c.se)),
    Cause("index-bool-scalar",
          "A Python bool in an index (`x[0, True]`, `x[..., False]`) is refused as too many indices, or selects "
          "other elements (PyTorch: a new dimension of size 1 or 0 that advanced indexing moves)",
          "_tensor/indexing.py", "new",
          lambda c: _bool_index(c) and (c.values or "too many indices" in c.se or c.se.startswith("IndexError"))),
    Cause("index-shape-mismatch-message",
          "Index tensors that do not broadcast together: the elementwise broadcast message, or no error at all, "
          "where PyTorch says \"shape mismatch: indexing tensors could not be broadcast together with shapes ...\"",
          "_tensor/indexing.py (the index tensors are broadcast with the elementwise rule)", "new",
          lambda c: "indexing tensors could not be broadcast" in c.te),
    Cause("index-out-of-bounds-message",
          "An index out of bounds names another dimension or wording than PyTorch (\"index 0 is out of bounds for "
          "dimension 2 with size 0\", \"index is out of bounds for dimension with size 0\")",
          "_tensor/indexing.py", "new",
          lambda c: "out of bounds" in c.se and ("out of bounds" in c.te or not c.te)),
    Cause("setitem-node-names",
          "Item assignment records `CopySlices` where PyTorch records `FillBackward3` / `IndexPutBackward0` (or the "
          "reverse), and its next_functions differ", "_tensor/inplace.py (item assignment)",
          "issue 22: item-assignment node names",
          lambda c: c.is_("wrong_metadata", "wrong_grad_graph") and c.before(r"\] = ")
          and re.search(r"CopySlices|FillBackward|IndexPut", str(c.d.sg) + str(c.d.torch)) is not None),
    Cause("setitem-value-shape",
          "Item assignment of a one-element tensor to a single element (`x[1] = torch.tensor([0.5])`) is refused "
          "(\"shape mismatch: value tensor of shape [1] cannot be broadcast to indexing result of shape []\")",
          "_tensor/indexing.py", "issue 22: x[1] = torch.tensor([0.5]) refused",
          lambda c: "cannot be broadcast to indexing result" in c.se and not c.te),
    Cause("setitem-dtype-check",
          "Item assignment with an index tensor and a value of another dtype is accepted (PyTorch: \"Index put "
          "requires the source and destination dtypes match\")", "_tensor/indexing.py", "new",
          lambda c: "Index put requires the source and destination dtypes match" in c.te),
    # ------------------------------------------------------------ views
    Cause("unbind-backward",
          "Backward through `unbind(...)[k]` fails inside scalargrad (`AttributeError: 'float' object has no "
          "attribute '_t'`, `'NoneType' object has no attribute 'ndim'`, or a TypeError from autograd.grad)",
          "_autograd/engine.py with the unbind node's backward (unused outputs' gradients are None or floats)",
          "issue 22: raw: backward through unbind(...)[k]",
          lambda c: c.before(r"\.unbind\(") and (re.search(r"object has no attribute '(_t|ndim)'", c.se)
                                                 or "expected Tensor as element" in c.se
                                                 or "'NoneType' object has no attribute" in c.se)),
    Cause("view-of-0dim-index-error",
          "unbind/select/indexing of a 0-dim tensor: Python's IndexError \"tuple index out of range\" (PyTorch: "
          "\"Dimension specified as 0 but tensor has no dimensions\", \"too many indices for tensor of dimension 0\")",
          "_tensor/views.py, _tensor/indexing.py", "new",
          lambda c: "tuple index out of range" in c.se),
    Cause("diagonal-beyond-2d",
          "diagonal of a tensor other than a matrix is refused as Unsupported", "_tensor/views.py", "new: missing",
          lambda c: c.is_("unsupported") and "diagonal" in c.se),
    Cause("diagonal-strides",
          "diagonal's result has contiguous strides and offset 0 where PyTorch's is a strided view (stride = sum "
          "of the two dims' strides, offset at the diagonal's start)", "_tensor/views.py (diagonal)", "new",
          lambda c: c.is_("wrong_layout", "wrong_metadata") and c.op == "diagonal"),
    Cause("view-or-copy",
          "`_base` and `_is_view()` differ: a view of a view keeps the intermediate tensor as its `_base` (PyTorch: "
          "the root), and reshape/flatten/contiguous view where PyTorch copies or the reverse", "_tensor/views.py",
          "new",
          lambda c: c.op == "is_view" and c.values),
    Cause("missing-view-ops", "movedim, logsumexp and other ops are refused as Unsupported", "_tensor/surface.py",
          "new: missing", lambda c: c.is_("unsupported") and re.search(r"movedim|logsumexp|tile", c.se) is not None),
    # ------------------------------------------------------------ custom Functions
    Cause("function-setup-context-defaults",
          "setup_context does not receive forward's default arguments (`forward(x, y, k=2.0)` applied to two "
          "arguments: PyTorch passes three inputs, so backward must return three gradients)",
          "_autograd/function.py (apply)", "issue 22: setup_context does not receive forward's default arguments",
          lambda c: c.before(r"def setup_context") and (c.is_("wrong_events") or "incorrect number of gradients"
                                                          in c.te or "NoneType" in c.se)),
    Cause("function-backward-and-vjp",
          "A Function defining both backward and vjp is accepted (PyTorch: \"Implementing both 'backward' and 'vjp' "
          "for a custom Function is not allowed\")", "_autograd/function.py",
          "issue 22: missing check (a Function defining both backward and vjp)",
          lambda c: "Implementing both 'backward' and 'vjp'" in c.te),
    Cause("function-integer-output",
          "An integer output of a Function requires grad and has the Function's node (PyTorch: integer outputs "
          "never require grad)", "_autograd/function.py", "new",
          lambda c: c.before(r"\(x > 0\)\.sum\(\)") and c.is_("wrong_requires_grad")),
    Cause("function-view-outputs",
          "Views and in-place results of a custom Function: a view (or an input returned as it is) changed in "
          "place gives another error or none, an in-place Function on a view of a leaf is accepted, a Function "
          "that marks x dirty and returns it twice loses x's gradient",
          "_autograd/function.py (outputs that are views or dirty inputs)",
          "issue 22: custom Functions (in place on a view of a leaf, (x, x) marked dirty, a false view error)",
          lambda c: c.before(r"class F\(") and (re.search(r"Output \d+ of F is a view|view of a leaf|modifies inplace"
                                                          r" an input that is a view", c.se + c.te) is not None
                                                or c.before(r"mark_dirty") and c.is_("silently_wrong_grad",
                                                                                     "wrong_requires_grad"))),
    Cause("function-gradient-checks",
          "A Function's backward returning too many gradients, or a gradient of another shape: Python's errors "
          "(TypeError, IndexError) or none where PyTorch names the Function (\"function FBackward returned an "
          "incorrect number of gradients\", \"returned an invalid gradient at index 0 - got [] but expected shape "
          "compatible with [3]\")", "_autograd/function.py", "new",
          lambda c: c.before(r"class F\(") and re.search(r"incorrect number of gradients|invalid gradient at index",
                                                         c.te) is not None),
    Cause("function-next-functions",
          "A Function's node lists other next_functions than PyTorch's (inputs that do not require grad, "
          "once_differentiable)", "_autograd/function.py", "issue 22: a once_differentiable node lists 1 next "
          "function instead of 3",
          lambda c: c.before(r"class (F|R)\(") and c.is_("wrong_metadata", "wrong_grad_graph")),
    Cause("function-materialize",
          "What a Function's backward receives for an unused output (None where PyTorch materialises zeros, or the "
          "reverse), and what it returns for inputs that need no gradient",
          "_autograd/function.py", "issue 22: backward receives tensor(0.) where PyTorch passes None",
          lambda c: c.before(r"class F\(") and (c.is_("wrong_events", "silently_wrong_grad")
                                                or c.values and c.op == "read_grad")),
    Cause("reentrant-depth",
          "Reentrant backward (a Function's backward calling backward) raises RecursionError at depth 200 "
          "(PyTorch handles 2,000)", "_autograd/engine.py (reentrant backward recurses in Python)",
          "issue 22: raw: reentrant backward RecursionError at depth 200",
          lambda c: "RecursionError" in c.se or c.before(r"class R\(")),
    # ------------------------------------------------------------ in place and versions
    Cause("multi-view-inplace",
          "In place on an output of split/unbind/chunk (a function returning several views) or on a view after its "
          "base changed: the error is missing, or its text or type differ (\"Output 0 of Split is a view and is "
          "being modified inplace...\")", "_tensor/inplace.py (the view's creation_meta)",
          "issue 22: in-place on split/unbind views (wrong errors)",
          lambda c: _multi_view_message(c.te) or _multi_view_message(c.se)),
    Cause("view-created-in-mode",
          "A view made under no_grad or inference_mode whose base is then changed in place with grad enabled is "
          "accepted (PyTorch: \"A view was created in no_grad mode and its base or another view of its base has "
          "been modified inplace with grad mode enabled...\")", "_tensor/inplace.py", "new",
          lambda c: "A view was created in" in c.te and not c.se),
    Cause("relu-then-setitem-view",
          "An in-place op that saves its result (relu_, sigmoid_, exp_, tanh_) followed by another change of the "
          "same memory (item assignment or an in-place op on a view): PyTorch raises its version error at backward, "
          "scalargrad returns a gradient", "_tensor/inplace.py with _autograd/engine.py's version check",
          "issue 22: relu_ then item assignment on a view of a non-leaf",
          lambda c: _VERSION in c.te and not c.se and c.before(r"\.(relu_|sigmoid_|exp_|tanh_)\(\)")),
    Cause("version-not-detected",
          "Another in-place change of a saved tensor that scalargrad's version check misses (through a view or a "
          "sibling view)", "_autograd/engine.py (version check) / _tensor/inplace.py", "new",
          lambda c: _VERSION in c.te and not c.se),
    Cause("version-message",
          "The version error names another node or version than PyTorch's", "_autograd/engine.py", "new",
          lambda c: _VERSION in c.te and _VERSION in c.se),
    Cause("grad-written-before-version-error",
          "A backward that fails the version check has already written into `.grad` (PyTorch checks every saved "
          "tensor before any gradient is accumulated)", "_autograd/engine.py",
          "issue 22: a backward that fails the version check has already written into .grad",
          lambda c: c.op in ("read_grad",) and c.values and "VersionFailed" in _prior_errors(c)),
    Cause("sibling-view-requires-grad",
          "An in-place op with an operand that requires grad on one view leaves the base's other views at "
          "requires_grad=False (PyTorch: every view of the base then requires grad, through AsStridedBackward0)",
          "_tensor/inplace.py (rebasing of the base, not of its other views)",
          "issue 22: sibling views' requires_grad",
          lambda c: c.is_("wrong_requires_grad", "wrong_metadata") and c.op in ("read", "read_base")
          and c.before(r"sibling|\.unbind\(0\)\[-1\]|\[-1\]")
          and re.search(r"AsStridedBackward0", str(c.d.torch)) is not None),
    Cause("view-inplace-node-names",
          "After an in-place op through a view, the base or the view shows the op's own node (MaskedFillBackward0, "
          "DivBackward0...) where PyTorch shows AsStridedBackward0 / CopySlices", "_tensor/inplace.py", "new",
          lambda c: c.is_("wrong_metadata", "wrong_grad_graph")
          and re.search(r"AsStridedBackward0|CopySlices", str(c.d.torch)) is not None),
    Cause("copy-number-source",
          "copy_ of a Python number is refused (\"argument 'src' must be Tensor, not float\"); PyTorch copies it",
          "_tensor/inplace.py (copy_)", "new",
          lambda c: "copy_(): argument 'src'" in c.se),
    Cause("inplace-overlap",
          "In place on an expanded tensor: refused where PyTorch writes (fill_, zero_, copy_), or accepted where it "
          "refuses (\"more than one element of the written-to tensor refers to a single memory location\")",
          "_tensor/inplace.py (the overlap check)", "issue 22: in-place on an expanded tensor accepted",
          lambda c: "refers to a single memory location" in c.se + c.te),
    Cause("leaf-view-message",
          "In place on a view of a leaf (or the leaf) gives the other of PyTorch's two messages (\"a view of a leaf "
          "Variable...\" against \"a leaf Variable...\")", "_tensor/inplace.py", "new",
          lambda c: "leaf Variable that requires grad is being used in an in-place operation" in c.se + c.te),
    # ------------------------------------------------------------ hooks
    Cause("post-accumulate-hook",
          "Post-accumulate-grad hooks: a hook that changes `.grad` in place is not seen by what follows, and the "
          "hook does not run under backward(inputs=...) (PyTorch runs it)",
          "_autograd/engine.py (accumulation of leaf gradients)",
          "issue 22: a post-accumulate-grad hook that changes .grad in place",
          lambda c: c.before(r"register_post_accumulate_grad_hook") and (c.is_("wrong_events", "silently_wrong_grad")
                                                                        or c.values)),
    Cause("prehook-autograd-grad",
          "Node pre-hooks under autograd.grad: a pre-hook runs twice or sees other gradients, and a backward that "
          "should not run does", "_autograd/engine.py (pre-hooks of the graph task's nodes)",
          "issue 22: node pre-hooks under autograd.grad",
          lambda c: c.before(r"register_prehook") and (c.is_("wrong_events", "silently_wrong_grad") or c.values)),
    Cause("hook-view-inplace-create-graph",
          "A hook on a view, then in place on it, under create_graph: the second-order gradient differs",
          "_autograd/engine.py with _tensor/inplace.py", "issue 22: a hook on a view, then exp_ under create_graph",
          lambda c: c.before(r"register_hook") and c.before(r"\.(exp_|mul_|relu_)\(") and c.before(r"create_graph")
          and c.values),
    Cause("node-hook-events",
          "Tensor, node or multi-grad hooks fire in another order, a different number of times, or see other "
          "gradients than PyTorch's", "_autograd/engine.py (hook order)", "new",
          lambda c: c.is_("wrong_events") and c.before(r"register_(hook|multi_grad_hook)")),
    # ------------------------------------------------------------ modes
    Cause("saved-hooks-pack",
          "Saved-tensor hooks whose pack is not the identity (`2 * x`, a tuple): the unpacked value is not the one "
          "backward uses, and double backward never reaches the leaf", "_tensor/saved_hooks.py",
          "issue 22: saved-tensor hooks with a pack hook that is not the identity",
          lambda c: c.before(r"saved_tensors_hooks\(lambda t: (2 \*|\(t, 1\)|t\.clone|t\.detach)")
          and (c.values or c.is_("wrong_events"))),
    Cause("disable-saved-hooks",
          "torch.autograd.graph.disable_saved_tensors_hooks inside saved_tensors_hooks does not raise its message",
          "autograd/graph.py", "new", lambda c: "no hooks here" in c.te),
    Cause("saved-hooks-events",
          "Pack and unpack hooks run another number of times or on other tensors than PyTorch's",
          "_tensor/saved_hooks.py", "new", lambda c: c.is_("wrong_events") and c.before(r"saved_tensors_hooks")),
    Cause("inference-mode-views",
          "Inference mode: a view or in-place result of a normal tensor made inside inference_mode becomes an "
          "inference tensor (gradients stop there), a view of an inference tensor outside the mode is not marked; "
          "flags differ after no_grad/enable_grad decorators", "_base/grad_mode.py and _tensor/views.py",
          "issue 22: inference mode views",
          lambda c: c.before(r"inference_mode|no_grad|enable_grad|set_grad_enabled")
          and (c.values or c.is_("wrong_requires_grad", "missing_error", "refused", "wrong_message", "wrong_type"))),
    # ------------------------------------------------------------ ops
    Cause("sign-negative-zero",
          "The sign of a zero gradient through sgn's derivative (sign(), sgn(), abs() and its double backward): "
          "sign()'s backward gives -0.0 where PyTorch's ZeroTensor materialises +0.0, and the reverse after abs",
          "_ops/elementwise.py (Sgn.backward, EfficientZero)",
          "issue 22: sign()'s backward gives -0.0",
          lambda c: c.vk == "signed zero" and c.before(r"\.(sign|sgn|abs)\(\)")),
    Cause("item-of-zero-grad",
          "`.item()` of a 0-dim zero gradient returns scalargrad's internal EfficientZero, not a float",
          "_autograd/kernels.py (EfficientZero)", "issue 22: .item() of a 0-dim zero gradient",
          lambda c: c.op == "item" and c.values),
    Cause("alpha-signed-zero",
          "add/sub with alpha: the sign of a zero result (`torch.add(-0., -0., alpha=2)` is +0. in scalargrad, "
          "-0. in PyTorch)", "_ops/elementwise.py (Add with alpha)", "issue 22: torch.add(-0., -0., alpha=2) is +0",
          lambda c: c.op == "alpha" and c.vk == "signed zero"),
    Cause("alpha-overflow",
          "add/sub with an alpha or result beyond the dtype (alpha=1e308 in float32, 1.8e308 in float64): scalargrad "
          "computes or raises OverflowError where PyTorch refuses \"value cannot be converted to type float without "
          "overflow\" or gives inf", "_ops/elementwise.py (Add with alpha)",
          "issue 22: raw: torch.add(x, x, alpha=2) at 1.8e308 (OverflowError)",
          lambda c: c.op == "alpha" or "value cannot be converted to type float without overflow" in c.te + c.se
          or ("OverflowError" in c.se and c.before(r"alpha="))),
    Cause("axis-keyword",
          "The `axis=` spelling of a reduction's dim is refused with Python's TypeError (\"got an unexpected keyword "
          "argument 'axis'\")", "_tensor/reduce.py", "issue 22: raw: sum(axis=)",
          lambda c: "unexpected keyword argument 'axis'" in c.se),
    Cause("maxdim-0dim",
          "max/min with a dim of a 0-dim tensor: backward raises AttributeError ('value_selecting_backward')",
          "_autograd/kernels.py", "issue 22: raw: max/min(dim) of a 0-dim tensor",
          lambda c: "value_selecting_backward" in c.se),
    Cause("softmax-empty",
          "softmax/log_softmax of an empty tensor: IndexError", "_tensor/softmax.py",
          "issue 22: raw: softmax/log_softmax of an empty tensor",
          lambda c: c.op in ("softmax",) and (c.se.startswith("IndexError") or c.values)),
    Cause("reduce-dim-0dim-create-graph",
          "A reduction over dim 0 or -1 of a 0-dim tensor under create_graph: scalargrad's backward expands to the "
          "wrong number of dimensions and raises (\"expand(torch.FloatTensor{[1]}, size=[])...\")",
          "_ops/reductions.py (sum_backward of a 0-dim input)", "issue 22: x.sum(-1) of a 0-dim tensor under "
          "create_graph", lambda c: "expand(torch." in c.se and "size=[]" in c.se),
    Cause("norm-overflow",
          "norm() of float32 numbers near 3.4e38 is finite where PyTorch's overflows to inf (and other norms' "
          "values)", "_ops/norms.py", "issue 22: norm() of 3.4e38 in float32",
          lambda c: c.before(r"\.norm\(") and c.values),
    Cause("clamp-bounds",
          "clamp with nan or out-of-range bounds (3.5e38 for float32): refused or other values than PyTorch's",
          "_ops/elementwise.py (Clamp)", "issue 22: clamp(x, 3.5e38, nan) raises",
          lambda c: c.op == "clamp" and (c.values or c.se)),
    Cause("mask-broadcast",
          "where/masked_fill with a mask that does not broadcast: accepted, or Python's IndexError",
          "_tensor/selection.py", "issue 22: masked_fill with a mask that does not broadcast",
          lambda c: c.op == "where" and ("must match the size" in c.te or c.se.startswith("IndexError") or c.values)),
    Cause("layout-strides",
          "Where a result lies in memory: strides of size-1 dimensions, of empty tensors, of clamp/where/dtype "
          "conversions of strided inputs (scalargrad keeps the input's strides or makes them contiguous where "
          "PyTorch does the other), `.grad` and autograd.grad results", "_base/layout.py and the ops' result layout",
          "issue 22: observable layout (strides of size-1 dimensions; conversions keep strides)",
          lambda c: c.is_("wrong_layout") or c.op == "convert" and c.values),
    Cause("create-graph-nodes",
          "create_graph: gradients' grad_fn names or next_functions differ (other node kinds for the same values)",
          "_autograd/engine.py (_graph_backward)", "issue 22: create_graph node names",
          lambda c: c.before(r"create_graph") and c.is_("wrong_grad_graph", "wrong_metadata")),
    Cause("next-functions",
          "next_functions list other nodes or input slots (a number operand's place, an empty tensor's node)",
          "_tensor/nodes.py", "new", lambda c: c.is_("wrong_metadata", "wrong_grad_graph")),
    # ------------------------------------------------------------ training
    Cause("iterable-dataset-workers",
          "DataLoader(IterableDataset, num_workers=2) loads everything in one process, in another order",
          "utils/data/dataloader.py", "issue 22: DataLoader(IterableDataset, num_workers=2)",
          lambda c: c.op == "iterable_loader"),
    Cause("missing-schedulers", "LinearLR and ReduceLROnPlateau are refused as Unsupported", "optim/lr_scheduler.py",
          "new: missing", lambda c: c.is_("unsupported") and "lr_scheduler" in c.se),
    Cause("unsupported", "Other parts of the API refused as Unsupported", "(various)", "new: missing",
          lambda c: c.is_("unsupported")),
    Cause("other-messages", "Other error texts or types that differ from PyTorch's", "(various)", "new",
          lambda c: c.is_("wrong_message", "wrong_type")),
    Cause("warnings", "Other warnings than PyTorch's (Tensor.T on other than 2-D tensors...)", "(various)", "new",
          lambda c: c.is_("wrong_warning")),
]


def _prior_errors(c: Ctx) -> str:
    """"VersionFailed" when both libraries raised the version error at an earlier step."""
    sg = c.sg
    if sg is None:
        return ""
    for r in sg.records:
        if r.index < c.d.step and r.error is not None and _VERSION in r.error.message:
            return "VersionFailed"
    return ""
