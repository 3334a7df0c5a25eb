"""The causes behind the fuzzer's divergences: a catalogue, and the rule that files each one.

A campaign groups failures by cause, not by program: each divergence (a program's root cause
and each divergence that changes nothing later, see ``compare``) is filed under the first
``Cause`` of ``CATALOGUE`` whose rule matches it. A rule looks at the divergence (its class,
the step's code, the two errors, the kind of value difference) and at the steps before it.
Rules are ordered from the most specific; what no rule claims is filed as ``unclassified``
under its signature, so a new cause shows up as such.

``where`` names the place in scalargrad (as of this branch) where the cause lives; ``issue``
says which bullet of issue 14 the cause confirms, or that the fuzzer found it.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from .compare import Divergence, libm_call
from .outcome import Outcome
from .program import GRAD_GRAPH, Program

__all__ = ["Cause", "CATALOGUE", "classify", "Ctx", "value_kind"]


def value_kind(a, b) -> str:
    """What kind of value difference: signed zero, nan, inf, dtype, None against a tensor..."""
    if isinstance(a, list) and isinstance(b, list) and a[:1] == b[:1] and a and a[0] in ("tuple", "list") \
            and len(a[-1]) == len(b[-1]):
        for x, y in zip(a[-1], b[-1]):
            if x != y:
                return value_kind(x, y)
    if not (isinstance(a, dict) and isinstance(b, dict)):
        def what(x):
            if isinstance(x, dict):
                return "tensor"
            return (str(x[0]) if x else "[]") if isinstance(x, list) else type(x).__name__
        return f"{what(a)} vs {what(b)}"
    if a.get("dtype") != b.get("dtype"):
        return f"dtype {a.get('dtype')} vs {b.get('dtype')}"
    if a.get("shape") != b.get("shape"):
        return f"shape {a.get('shape')} vs {b.get('shape')}"
    for x, y in zip(a.get("val") or [], b.get("val") or []):
        if x == y:
            continue
        if isinstance(x, str) and isinstance(y, str):
            fx, fy = float.fromhex(x) if x != "nan" else math.nan, float.fromhex(y) if y != "nan" else math.nan
            if fx == fy == 0:
                return "signed zero"
            if math.isnan(fx) or math.isnan(fy):
                return "nan vs number" if math.isnan(fx) else "number vs nan"
            if math.isinf(fx) or math.isinf(fy):
                return "inf vs finite"
            if fx == 0 or fy == 0:
                return "zero vs nonzero"
            return "close" if abs(fx - fy) <= 1e-6 * max(abs(fx), abs(fy)) else "different"
        return "integer/bool values"
    diffs = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return "fields " + ",".join(diffs)


def _error_text(e) -> str:
    return f"{e['type']}: {e['message']}" if isinstance(e, dict) and "type" in e else ""


class Ctx:
    """What a rule may look at: one divergence of one program."""

    def __init__(self, program: Program, d: Divergence, sg: Outcome | None = None, prior: tuple = ()) -> None:
        self.program = program
        self.sg = sg
        self.d = d
        self.prior = {p.cls for p in prior}  # classes of the program's earlier divergences
        self.step = program.steps[d.step]
        self.code = self.step.code
        self.op = self.step.op
        self.se = _error_text(d.sg)  # scalargrad's error, "" if none
        self.te = _error_text(d.torch)  # PyTorch's error, "" if none
        self.vk = "" if self.se or self.te else value_kind(d.sg, d.torch)
        self._before = "\n".join(s.code for s in program.steps[: d.step + 1])

    @property
    def values(self) -> bool:
        """A difference in values or flags: no error on either side."""
        return not self.se and not self.te

    def is_(self, *classes: str) -> bool:
        return self.d.cls in classes

    def before(self, pattern: str) -> bool:
        """Whether a step up to and including the divergent one matches ``pattern`` (regex)."""
        return re.search(pattern, self._before) is not None

    def at(self, pattern: str) -> bool:
        return re.search(pattern, self.code) is not None

    def _tensor(self, name: str) -> dict | None:
        """scalargrad's record of the tensor a step bound, if it was one."""
        if self.sg is not None:
            for i, s in enumerate(self.program.steps):
                if s.name == name:
                    rec = self.sg.record(i)
                    obs = rec.obs if rec is not None else None
                    return obs if isinstance(obs, dict) and "dtype" in obs else None
        return None

    def dtype(self, name: str) -> str | None:
        """The dtype scalargrad recorded for the tensor a step bound (``float32``...)."""
        t = self._tensor(name)
        return t["dtype"].replace("torch.", "") if t else None

    def requires_grad(self, name: str) -> bool | None:
        t = self._tensor(name)
        return t["rg"] if t else None

    def copies(self) -> list[tuple[str, str]]:
        """(target, source) of every ``target.copy_(source)`` up to the divergent step."""
        return re.findall(r"\b(v\d+)\.copy_\((v\d+)\)", self._before)

    def overwrites(self) -> bool:
        """fill_/zero_, or copy_ from a tensor that does not require grad: no graph node results."""
        return self.before(_FILL) or self.before(r"\.copy_\(torch\.tensor") or any(
            self.requires_grad(src) is False for _, src in self.copies())

    def copy_cycles(self) -> bool:
        """A copy_ whose source was computed from its target (the rebased target closes a cycle)."""
        return any(self.requires_grad(src) and self.depends(src, target) for target, src in self.copies())

    def depends(self, name: str, on: str) -> bool:
        """Whether the step that bound ``name`` read ``on``, directly or through other steps."""
        made = {s.name: s for s in self.program.steps if s.name}
        todo, seen = [name], set()
        while todo:
            n = todo.pop()
            if n == on:
                return True
            if n in seen or n not in made:
                continue
            seen.add(n)
            todo.extend(made[n].uses)
        return False

    def inplace_on_view(self) -> bool:
        """An in-place op on a view: ``v.view(1).add_(1)`` or a view bound first and changed later."""
        if self.before(_VIEW_INPLACE):
            return True
        views = set()
        for s in self.steps_before():
            if s.name and s.op == "view":
                views.add(s.name)
            elif not s.name and re.match(r"(v\d+)\.\w+_\(", s.code) and s.code.split(".")[0] in views:
                return True
        return False

    def hooked_then_inplace(self) -> bool:
        """A tensor hook or retain_grad registered on a tensor that is later changed in place."""
        text = self._before
        for m in re.finditer(r"(v\d+)\.(register_hook|retain_grad)\(", text):
            rest = text[m.end():]
            if re.search(rf"\b{m.group(1)}(\.\w+_\(| [-+*/]= )", rest):
                return True
        return False

    def steps_before(self):
        return self.program.steps[: self.d.step + 1]

    def mixes(self, pred, only_here: bool = False) -> bool:
        """Whether a step up to the divergent one (or only it) has tensor operands whose dtypes
        satisfy ``pred(dtypes, result dtype, step)``, e.g. an int64 tensor in a float op."""
        for s in ([self.step] if only_here else self.steps_before()):
            if s.name and len(s.uses) >= 1:
                dts = {self.dtype(u) for u in s.uses} - {None}
                out = self.dtype(s.name)
                if dts and out and pred(dts, out, s):
                    return True
        return False


@dataclass(frozen=True)
class Cause:
    key: str
    title: str
    where: str
    issue: str
    rule: Callable[[Ctx], bool]


_CREATE_GRAPH = r"create_graph=True"
_FILL = r"v\d+\.(fill_|zero_)\("  # on the tensor itself, not through .detach()/.data
_SELF_OPERAND = r"\b(v\d+)\.(mul_|div_|add_|sub_|copy_)\(\1\)|\b(v\d+) [-+*/]= \3\b"
_NO_GRAD_INPLACE = r"with torch\.no_grad\(\):\n\s+v\d+\.\w+_\("
_INPLACE_VIA_DETACH = r"\.detach\(\)\.\w+_\(|with torch\.no_grad\(\):\n\s+v\d+\.\w+_\("
_VIEW_INPLACE = r"(\.(view|unsqueeze|reshape|expand|squeeze)\([^()]*\)|\[[^\]]*\])\.\w+_\("
_CLASS_NAMES = re.compile(r"\b(Value|DataView|ShapedTensor|ShapedParameter)\b")
_ARG_PARSER = r"argument '\w+' \(position|received an invalid combination|must be Tensor, not|unsupported operand"
_BOOL_REFUSED = (r"with a bool tensor is not supported|with two bool tensors|on a bool tensor is not supported|"
                 r"not implemented for 'Bool'|Boolean inputs not supported")


def _int_into_float(dts: set, out: str, step) -> bool:
    return bool(dts & {"int64", "bool"}) and out.startswith("float")


def _clamp_with_tensor_bound(code: str) -> bool:
    """Whether ``code`` calls clamp/clamp_min/clamp_max/clip with a tensor as a bound."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("clamp", "clamp_min", "clamp_max", "clip", "clamp_")):
            continue
        on_torch = isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
        bounds = node.args[1:] if on_torch else node.args
        for b in list(bounds) + [k.value for k in node.keywords]:
            if isinstance(b, ast.Name) or (isinstance(b, ast.Call) and isinstance(b.func, ast.Attribute)
                                           and b.func.attr == "tensor"):
                return True
    return False


def _graph_names(c: Ctx) -> bool:
    return c.step.tag == GRAD_GRAPH or (c.is_("wrong_grad_graph") and c.before(_CREATE_GRAPH))


def died_in_rerun(c: Ctx) -> bool:
    """PyTorch died of a signal in the kernel rule's re-run (``compare._died``)."""
    return c.is_("pytorch_bug") and isinstance(c.d.torch, dict) and c.d.torch.get("type", "").startswith("SIG")


DIED = Cause("pytorch-died-in-rerun",
             "PyTorch dies of a signal (SIGSEGV) in the kernel rule's re-run under its TorchDispatchMode, on a "
             "program it runs to the end on its own (ops:9719:127: a double backward through norm(inf) and amin)",
             "(PyTorch)", "new: not a scalargrad fault; such programs are excluded", died_in_rerun)
"""One cause for both catalogues: the re-run is the same for every family."""

CATALOGUE: list[Cause] = [
    # ------------------------------------------------------------ PyTorch itself
    DIED,
    Cause("pytorch-internal-assert",
          "PyTorch fails an internal assertion (`False ** x` backward) or hands out a storage-less "
          "ZeroTensor (abs double backward)",
          "(PyTorch)", "new: not a scalargrad fault; such programs are excluded",
          lambda c: c.is_("pytorch_bug")),
    # ------------------------------------------------------------ rules on errors: hangs, hooks, versions, in place
    Cause("copy-graph-cycle",
          "copy_ from a value computed from the target (`z = y.sqrt(); y.copy_(z)`) makes the graph cyclic: "
          "backward raises \"Trying to backward through the graph a second time\" or never ends (PyTorch: 0.3536)",
          "value.py:_inplace (rebasing: the copy's source still points at the rebased Value)", "new",
          lambda c: c.is_("timeout") or c.copy_cycles() and (
              "backward through the graph a second time" in c.se and "second time" not in c.te
              or c.values and c.is_("silently_wrong_grad"))),
    Cause("hook-result-unchecked",
          "A tensor hook's result is not checked: another dtype or shape, or a non-tensor, is accepted "
          "(PyTorch: \"hook 'f' has changed the type of value\" / \"...the size of value\")",
          "autograd/engine.py:_tensor_hooks (and shaped.py's group hooks)",
          "confirms: a tensor hook returning another dtype or shape is accepted",
          lambda c: re.search(r"hook '.*' has changed the (type|size) of value|hook returned", c.te) is not None),
    Cause("post-accumulate-hook-return",
          "A post-accumulate-grad hook that returns a value, or one registered on a non-leaf, is not refused",
          "value.py:Value.register_post_accumulate_grad_hook, autograd/engine.py:_accumulate_leaf",
          "confirms: a post-accumulate hook returning a value is not refused",
          lambda c: "post accumulate grad hook" in c.te),
    Cause("inplace-without-graph-node",
          "An in-place op on a non-leaf that makes no graph node (fill_/zero_/copy_ of a value without grad, or "
          "any in-place op under no_grad) changes the value and moves the version stamp but keeps the old "
          "grad_fn: the engine then takes the node for a rebased one and skips it, and gradients flow through "
          "the overwritten value (PyTorch: FillBackward/ZeroBackward give 0, CopyBackwards keeps the old input "
          "with a zero gradient; under no_grad the node and its derivative stay)",
          "value.py:_inplace (the branch for a result without a graph node) with autograd/engine.py:_route; "
          "Value.fill_/copy_",
          "confirms: fill_/copy_/zero_ on a non-leaf",
          lambda c: (c.overwrites() or c.before(_NO_GRAD_INPLACE)) and (
              c.op in ("fill_", "zero_", "copy_") and c.is_("wrong_metadata", "wrong_requires_grad")
              or "modified by an inplace operation" in c.te and not c.se and c.overwrites()
              or c.values and c.is_("silently_wrong_grad", "wrong_grad_graph")
              or c.is_("wrong_requires_grad") and c.op in ("read_grad", "autograd.grad", "read"))),
    Cause("copy-drops-old-input",
          "copy_ from a tensor that requires grad drops the overwritten value's inputs: they get no gradient "
          "(None) where PyTorch's CopyBackwards sends them zeros (which then make -0. or nan on their way), and "
          "a node that saved the overwritten value is never reached, so its version error never comes",
          "value.py:Value.copy_ / _inplace (ToCopy has the source as its only input)", "new",
          lambda c: any(c.requires_grad(src) for _, src in c.copies()) and (
              c.values and c.is_("silently_wrong_grad")
              # the node that saved the overwritten value is never reached, so its version check never runs
              or "modified by an inplace operation" in c.te and not c.se)),
    Cause("integer-requires-grad",
          "An integer or bool tensor ends up requiring grad (copy_ into it from a tensor that requires grad), "
          "which PyTorch never allows: its graph node then misleads what follows",
          "value.py:_inplace (the rebased Value takes requires_grad whatever its dtype)", "new",
          lambda c: c.is_("wrong_requires_grad") and isinstance(c.d.sg, dict) and c.d.sg.get("rg")
          and c.d.sg.get("dtype") in ("torch.int64", "torch.bool")),
    Cause("version-via-detach",
          "An in-place change through `.detach()` (or under no_grad) of a tensor a node saved is not detected: "
          "backward uses the new value (PyTorch: version error)",
          "value.py:_inplace (a DataView write does not move the version stamp) and DataView",
          "confirms: in-place change of a saved tensor through .detach()",
          lambda c: "modified by an inplace operation" in c.te and not c.se and c.before(_INPLACE_VIA_DETACH)),
    Cause("version-self-operand",
          "An in-place op whose operand is the tensor itself (`x.mul_(x)`, `x.div_(x)`, `x *= x`) saves the value "
          "it overwrites; PyTorch's version check then refuses backward, scalargrad routes the saved operand to the "
          "old version and computes a gradient",
          "value.py:_inplace (the operand that is self is replaced by the snapshot) / autograd/engine.py:_route",
          "new",
          lambda c: "modified by an inplace operation" in c.te and not c.se and c.before(_SELF_OPERAND)),
    Cause("version-not-detected",
          "An in-place change of a tensor a node saved is not detected (other paths)",
          "autograd/engine.py:_route / value.py:_inplace",
          "new",
          lambda c: "modified by an inplace operation" in c.te and not c.se),
    Cause("version-check-too-strict",
          "A version error where PyTorch has none: every input's version is checked, where PyTorch checks only "
          "the tensors the node saved (e.g. `x / c` saves x only when c requires grad)",
          "autograd/engine.py:_route (op-level `saves_inputs` instead of the saved tensors)",
          "new",
          lambda c: "modified by an inplace operation" in c.se and not c.te),
    Cause("version-error-text",
          "The version error's text: always \"version 1\", the op named \"ToCopy\"/\"Pow1\"... where PyTorch names "
          "its node and counts every change",
          "autograd/engine.py:_route (_VERSION_ERROR)",
          "confirms: the version error always says \"version 1\"",
          lambda c: "modified by an inplace operation" in c.se and "modified by an inplace operation" in c.te),
    Cause("inplace-downcast-refused",
          "An in-place op whose result type is a wider float (float32 += float64 0-dim tensor) is refused; "
          "PyTorch casts within a category",
          "value.py:_inplace (promote_types check)",
          "new",
          lambda c: "can't be cast to the desired output type" in c.se and not c.te),
    Cause("leaf-view-inplace",
          "In place on a view of a leaf that requires grad is not refused",
          "value.py:_inplace (views of leaves)", "new",
          lambda c: "a view of a leaf Variable" in c.te),
    Cause("function-mark-dirty-leaf",
          "A custom Function's mark_dirty on a leaf input is not refused",
          "autograd/function.py:Function.apply", "confirms: mark_dirty on a leaf is not refused",
          lambda c: "has been used in an in-place operation" in c.te),
    # ------------------------------------------------------------ rules on errors: floor division, dtypes, numbers
    Cause("floordiv-reflected",
          "`number // tensor` is not defined (no __rfloordiv__): Python's TypeError",
          "value.py:Value (no __rfloordiv__)", "new",
          lambda c: re.search(r"for //: '\w+' and '(Value|DataView|Tensor|Shaped\w+)'", c.se) is not None
          and not c.te.startswith("TypeError")),
    Cause("floordiv-python-floor",
          "`//` is math.floor of a Python division: nan/inf raise ValueError/OverflowError, signed zeros and an "
          "infinite divisor differ from PyTorch's div_floor (`2.0 // -inf` is -1.0), integer division by zero",
          "value.py:Value.__floordiv__", "confirms: `//` raises OverflowError/ValueError, `2.0 // -inf`",
          lambda c: c.op in ("floor_divide", "int://") and (
              re.search(r"cannot convert float (NaN|infinity) to integer", c.se) is not None
              or c.is_("silently_wrong_value") and not c.vk.startswith("dtype"))),
    Cause("floordiv-no-grad",
          "A `//` result never requires grad (PyTorch: requires_grad with a NotImplemented node that refuses "
          "backward), so paths through it are dropped silently",
          "value.py:Value.__floordiv__ (returns a leaf)", "confirms: `//` results never require grad",
          lambda c: (c.op == "floor_divide" and c.is_("wrong_requires_grad"))
          or "derivative for aten::floor_divide" in c.te),
    Cause("bool-refusals",
          "Ops PyTorch refuses on bool tensors are accepted: `-`, negation, abs, relu, pow, clamp, // on bool",
          "value.py (no per-op dtype check; ops.py declares none)",
          "confirms: bool subtraction and negation accepted",
          lambda c: re.search(_BOOL_REFUSED, c.te) is not None),
    Cause("clamp-int-float-bounds",
          "clamp of an integer or bool tensor with float bounds keeps the integer dtype (PyTorch promotes to "
          "the default float dtype); a nan or inf bound then raises ValueError/OverflowError",
          "value.py:Value.clamp (rounds the bounds to the tensor's dtype)",
          "confirms: clamp(tensor(7), -0.5, 0.5) gives tensor(0); integer clamp with an infinite bound",
          lambda c: "clamp" in c.op and (re.search(r"dtype torch\.(int64|bool) vs torch\.float", c.vk) is not None
                                         or re.search(r"cannot convert float (NaN|infinity) to integer", c.se)
                                         is not None)),
    Cause("float-to-int-conversion",
          "Converting a float to int64 uses Python's int(): nan and inf raise ValueError/OverflowError "
          "(PyTorch: \"value cannot be converted to type int64_t without overflow\"), no range check",
          "dtypes.py:_round_int", "confirms: `2 ** int_tensor` raises OverflowError",
          lambda c: re.search(r"cannot convert float (NaN|infinity) to integer", c.se) is not None),
    Cause("int64-no-wrap",
          "int64 results do not wrap and out-of-range integers are accepted (Python ints grow: "
          "`tensor(2**62) * 4`, `tensor(2**63)`; huge powers run for minutes)",
          "dtypes.py:_round_int (int64 values are unbounded Python ints)",
          "confirms: int64 results do not wrap; torch.tensor(2**63) accepted",
          lambda c: c.vk == "integer/bool values" or "Overflow when unpacking long" in c.te
          or "without overflow" in c.te and ("int64" in c.te or "int6" in c.te)),
    Cause("float32-overflow-check",
          "A float32 fill value beyond float32's range is not refused (PyTorch: \"value cannot be converted to "
          "type float without overflow\"); clamp's check refuses where PyTorch accepts",
          "value.py:Value.fill_ / Value.clamp", "new",
          lambda c: "cannot be converted to type float without overflow" in (c.te or c.se)),
    # ------------------------------------------------------------ rules on errors: argument checks and messages
    Cause("number-where-tensor",
          "minimum/maximum (and other tensor-only arguments) accept Python numbers (PyTorch: \"maximum(): argument "
          "'other' (position 1) must be Tensor, not float\")",
          "value.py:Value.minimum/maximum via as_value; functional.py:_v",
          "confirms: maximum(t, 2.) accepted",
          lambda c: re.search(r"must be Tensor, not (float|int|bool)$", c.te) is not None and not c.se),
    Cause("clamp-mixed-bounds",
          "clamp with a tensor bound beside a number bound is accepted (PyTorch: TypeError, no such overload)",
          "value.py:Value.clamp", "new",
          lambda c: "clamp() received an invalid combination" in c.te and "str" not in c.te and not c.se),
    Cause("bool-flag-checks",
          "requires_grad / set_grad_enabled accept non-bools ('yes', 1, None)",
          "factories.py:tensor, value.py:requires_grad setter, autograd/grad_mode.py:set_grad_enabled",
          "confirms: requires_grad='yes' accepted",
          lambda c: re.search(r"argument '(requires_grad|enabled)'.* must be bool|requires_grad must be a bool",
                              c.te) is not None),
    Cause("grad-setter-checks",
          "Assigning a .grad of another dtype or size is not refused", "value.py:Value.grad setter", "new",
          lambda c: "attempting to assign a gradient" in c.te),
    Cause("grad-empty-inputs", "autograd.grad with empty inputs is accepted", "autograd/__init__.py:grad", "new",
          lambda c: "cannot be empty" in c.te),
    Cause("grad-outputs-checks",
          "autograd.grad/backward: grad_outputs of another shape or type get Python's or an internal message "
          "(PyTorch: \"Mismatch in shape: grad_output[0]...\", \"gradients can be either Tensors or None\")",
          "autograd/__init__.py:_root_grads", "new",
          lambda c: "Mismatch in shape" in c.te or "gradients can be either Tensors or None" in c.te),
    Cause("nonleaf-requires-grad-setter",
          "Setting requires_grad on a non-leaf is not refused (PyTorch refuses it, True included)",
          "value.py:Value.requires_grad setter", "new",
          lambda c: "you can only change requires_grad flags of leaf variables" in c.te and not c.se),
    Cause("dtype-argument",
          "A dtype argument that is not a torch.dtype: `dtype='float32'` raises AttributeError ('str' object has no "
          "attribute 'round'); Python's float/int/bool, which PyTorch accepts as float64/int64/bool, too",
          "factories.py:tensor/_dtype_of (no check or mapping of dtype arguments)",
          "confirms: torch.tensor(1., dtype='float32') raises AttributeError",
          lambda c: "has no attribute 'round'" in c.se),
    Cause("functions-on-numbers",
          "torch.* functions given only Python numbers (`torch.mul(2.0, 3.0)`, which PyTorch computes) raise "
          "AttributeError",
          "functional.py:_v / _first_tensor", "new",
          lambda c: "object has no attribute '_t'" in c.se),
    Cause("tensor-positional-dtype", "torch.tensor(v, torch.float32) (dtype given by position) is accepted",
          "factories.py:tensor (dtype is positional)", "new",
          lambda c: "tensor() takes 1 positional argument" in c.te),
    Cause("class-name-value",
          "The tensor class is named Value (DataView, ShapedTensor, ShapedParameter): type(t).__name__ and "
          "Python's own messages (round(), divmod()) say 'Value' where PyTorch says 'Tensor'",
          "value.py:Value (class name), DataView, shaped.py", "confirms: round() names \"Value\"",
          lambda c: (c.se and c.te and _CLASS_NAMES.sub("Tensor", c.se) == c.te)
          or (c.at(r"type\(") and c.is_("silently_wrong_value"))),
    Cause("reflected-operator-message",
          "`x (op) tensor` with an unsupported x names the operands in the wrong order: the reflected operator "
          "is the forward one (`__radd__ = __add__`)",
          "value.py:_arith", "new",
          lambda c: re.search(r"unsupported operand type\(s\) for \S+: '(\w+)' and 'Tensor'", c.te) is not None
          and re.search(r"unsupported operand type\(s\) for \S+: 'Tensor' and '(\w+)'", c.se) is not None),
    Cause("argument-parser-messages",
          "Wrong argument types get Python's or scalargrad's words (\"unsupported operand type(s)\", \"expected a "
          "Tensor or a Python number, but got list\") where PyTorch's argument parser says \"add(): argument "
          "'other' (position 1) must be Tensor, not list\" (PyTorch itself gives Python's operator message for "
          "str and object operands)",
          "value.py:as_value, functional.py:_v, the operators of value.py (no shared signature check)",
          "confirms (in part): wrong argument types give Python's \"unsupported operand type(s)\"",
          lambda c: (not c.se or c.se.startswith(("TypeError", "ValueError", "RuntimeError: torch.clamp")))
          and re.search(_ARG_PARSER, c.te) is not None),
    Cause("requires-grad-int-message",
          "requires_grad_() on an integer tensor: \"only Tensors of floating point dtype\" (PyTorch: \"... floating "
          "point and complex dtype ...\"); wrong requires_grad types checked in the wrong order",
          "value.py:Value.requires_grad_, factories.py:_require_grad", "new",
          lambda c: "can require gradients" in c.se and "must be bool" not in c.te
          and c.op in ("requires_grad_int", "factory")),
    Cause("load-multi-element",
          "load_state_dict fails on any multi-element parameter or buffer (\"a Tensor with 6 elements cannot be "
          "converted to Scalar\"): a plain round trip of nn.Linear(3, 2) fails",
          "nn/modules/loading.py:run_step (reads param._val of a ShapedTensor)", "new",
          lambda c: c.op == "load_state_dict" and "cannot be converted to Scalar" in c.se),
    Cause("load-assign-rollback",
          "load_state_dict(assign=True) with multi-element parameters: the rollback raises AttributeError "
          "(property '_rg' has no setter) half way and leaves earlier Parameters replaced",
          "nn/modules/loading.py:run_step (undo_assign)",
          "confirms: load_state_dict(assign=True) AttributeError and partial rollback",
          lambda c: "'_rg'" in c.se or c.is_("failed_load_changed_state")),
    Cause("load-copy-error-text",
          "A copy that fails inside load_state_dict raises bare, without PyTorch's \"Error(s) in loading state_dict "
          "... While copying the parameter named ...\" wrapper",
          "nn/modules/module.py:load_state_dict / loading.py:run_step", "new",
          lambda c: c.op == "load_state_dict" and "Error(s) in loading state_dict" in c.te),
    Cause("function-grad-shape",
          "A custom Function's gradient of another shape: one that expands to the input's shape (PyTorch sums it: "
          "(2,) for a 0-dim input, (2, 2) for (2,)) is refused, one that does not ((2, 1) for (2,)) is accepted; "
          "the refusal's words are scalargrad's (PyTorch: \"Function FBackward returned an invalid gradient at "
          "index 0 - got [3] but expected shape compatible with [2]\")",
          "autograd/function.py:_FunctionOp.backward / _backward_elementwise",
          "refutes in part: PyTorch sums a gradient that expands to the input; confirms for (2, 1)",
          lambda c: c.before(r"class F\(torch\.autograd\.Function\)") and (
              "cannot be converted to Scalar" in c.se or "Function backward returned a gradient of shape" in c.se
              or "returned an invalid gradient at index" in c.te)),
    Cause("no-version-attribute", "Tensor._version does not exist", "value.py:Value.__getattr__", "new",
          lambda c: "_version" in c.se),
    Cause("device-messages",
          "Devices: `device='cuda'` and `.to('float64')` (a string is a device) get scalargrad's message "
          "(PyTorch: \"Torch not compiled with CUDA enabled\", \"Invalid device string\", \"invalid type: 'x'\")",
          "factories.py:tensor, value.py:Value._to_dtype", "new",
          lambda c: "runs on the CPU only" in c.se),
    Cause("size-of-0dim",
          "size(0)/indexing of a 0-dim tensor: Python's IndexError text",
          "value.py:Value.size / __getitem__", "new",
          lambda c: c.se.startswith(("IndexError", "NotImplementedError: scalargrad supports indexing"))),
    Cause("complex-operands", "Complex Python numbers are refused with Python's TypeError (PyTorch promotes)",
          "value.py:as_value / _arith", "new",
          lambda c: "complex" in c.se),
    Cause("missing-operators",
          "`%`, `&`, `~`, divmod are not defined: Python's TypeError instead of a value or scalargrad's "
          "Unsupported error",
          "value.py:Value (no __mod__, __and__, __invert__)", "new",
          lambda c: re.search(r"unsupported operand type\(s\) for (%|&|divmod)|bad operand type for unary ~", c.se)
          is not None),
    Cause("unsupported-api",
          "Parts of the API scalargrad does not implement yet (raise Unsupported): Tensor.clamp_, floor_divide, "
          "exp_/neg_, int()/long()/bool(), numpy(), t(), torch.int32",
          "value.py:Value.__getattr__ (Unsupported)", "new: missing features",
          lambda c: c.is_("unsupported")),
    Cause("create-graph-disconnected",
          "create_graph: a gradient that depends on the inputs only through masks or constants (relu, maximum, "
          "clamp, abs, pow's exponent...) is a constant in scalargrad (requires_grad=False) where PyTorch records "
          "it (ThresholdBackwardBackward0, WhereBackward0; .grad gets CopyBackwards): a second backward through it "
          "raises \"element 0 of tensors does not require grad\", a second-order gradient is missing",
          "autograd/kernels.py:GraphKernel (constants from k.zero/k.const where PyTorch records a node)",
          "confirms: second order of abs/pow/rpow disconnected",
          lambda c: c.before(_CREATE_GRAPH) and c.op in ("autograd.grad", "read_grad", "sum_grads", "backward",
                                                        "graph_names")
          and (c.is_("wrong_requires_grad") or "does not require grad" in c.se
               or c.is_("silently_wrong_grad") and "wrong_requires_grad" in c.prior)),
    # ------------------------------------------------------------ multi-element tensors (--shapes; the redesign)
    Cause("shaped-ops-missing",
          "minimum/maximum, //, clamp and friends on multi-element tensors end in \"a Tensor with 6 elements "
          "cannot be converted to Scalar\"",
          "shaped.py (the ops that read ._val of a ShapedTensor)", "new (shapes)",
          lambda c: "cannot be converted to Scalar" in c.se and c.op in (
              "maximum", "minimum", "floor_divide", "clamp", "clamp_min", "clamp_max", "pow", "div", "sum", "mean")),
    Cause("shaped-inplace-checks",
          "In place on multi-element tensors: no check that the result's broadcast shape fits the output, nor of "
          "overlapping memory (expanded views)",
          "shaped.py / value.py:_inplace", "new (shapes)",
          lambda c: re.search(r"doesn't match the broadcast shape|refers? to a single memory location", c.te)
          is not None and not c.se),
    Cause("shaped-promotion",
          "Promotion ignores PyTorch's priority of dimensioned tensors over 0-dim ones within a category "
          "(float32 (2,) + float64 () is float32)",
          "dtypes.py:result_type", "new (shapes)",
          lambda c: c.vk.startswith("dtype torch.float64 vs torch.float32") and c.mixes(
              lambda dts, out, s: dts >= {"float32", "float64"}, only_here=True)),
    # ------------------------------------------------------------ rules on values (no error on either side)
    Cause("hook-before-inplace",
          "A tensor hook (or retain_grad's hook) registered before an in-place op stays, in PyTorch, with the "
          "version it was registered on and sees that version's gradient; scalargrad moves it to the new version",
          "value.py:_inplace (the _ext with the hooks moves to the rebased Value)", "new",
          lambda c: c.values and c.is_("silently_wrong_grad") and c.hooked_then_inplace()),
    Cause("view-inplace-not-shared",
          "A view of a 0-dim tensor (view, unsqueeze, [...]) is a copy: in place on it leaves the base's value and "
          "graph unchanged (PyTorch: the base changes, its grad_fn becomes CopySlices/AsStridedBackward0)",
          "value.py:_reshaped and Value.__getitem__ (views made with make(), not sharing storage)", "new",
          lambda c: c.inplace_on_view() and not c.se and not c.te),
    Cause("clamp-tensor-bounds",
          "clamp with tensor bounds is built from maximum/minimum: other grad_fn (MaximumBackward0 for "
          "ClampBackward0) and other gradients where the value ties a bound (PyTorch's clamp gives self the "
          "whole gradient when min <= self <= max; maximum splits a tie)",
          "value.py:Value.clamp (the branch for tensor bounds)", "new",
          lambda c: c.is_("wrong_metadata") and re.search(r"'fn': 'M(ax|in)imumBackward0'", str(c.d.sg)) is not None
          and re.search(r"'fn': 'Clamp", str(c.d.torch)) is not None
          or (c.values and c.is_("silently_wrong_grad") and not c.before(_CREATE_GRAPH)
              and any(_clamp_with_tensor_bound(s.code) for s in c.steps_before()))),
    Cause("create-graph-dtype",
          "With create_graph the gradient of a float32 input through a float64 op stays float64",
          "autograd/engine.py:_deliver_one (no cast to the input's dtype when run.graph)",
          "confirms: the gradient of a float32 input through a float64 op stays float64",
          lambda c: c.before(_CREATE_GRAPH) and c.vk.startswith("dtype torch.float64 vs torch.float32")),
    Cause("create-graph-masked-zero",
          "create_graph: a masked-out gradient is computed as `g * 0` (nan where g is inf or nan; PyTorch's "
          "where/masked_fill give 0)",
          "autograd/kernels.py:GraphKernel.zero", "confirms: masked zeros computed as g * 0",
          lambda c: c.before(_CREATE_GRAPH) and c.vk in ("nan vs number", "number vs nan")),
    Cause("grad-accumulation-graph",
          "Accumulating into a .grad that requires grad (backward through x.grad after create_graph) does not "
          "build PyTorch's graph (.grad stays a constant)",
          "autograd/engine.py:_store_grad", "new",
          lambda c: c.before(r"\.grad\.backward\(\)") and c.op == "read_grad"
          and c.is_("wrong_requires_grad", "silently_wrong_grad")),
    Cause("create-graph-primitive-nodes",
          "create_graph: first-order gradients are built from primitive Mul/Add nodes where PyTorch records "
          "TanhBackwardBackward0, SigmoidBackwardBackward0, ThresholdBackwardBackward0, WhereBackward0, "
          "MaskedFillBackward0, DivBackward1...: other grad_fn names and other float32 rounding",
          "autograd/kernels.py:GraphKernel and the ops' backward formulas in ops.py",
          "confirms: first-order gradients built from primitive nodes",
          lambda c: c.values and c.before(_CREATE_GRAPH)
          and (_graph_names(c) or c.is_("silently_wrong_grad", "wrong_grad_graph"))),
    Cause("bool-promotion",
          "Results on bool tensors keep bool where PyTorch promotes to int64 (sum, bool (op) int, square, pow)",
          "value.py:_number_type / Value.sum / unary(keep_int)", "new",
          lambda c: c.vk.startswith("dtype torch.bool vs torch.int64")
          or ("to the desired output type Bool" in c.te and not c.se)),
    Cause("int-operand-rounding",
          "An integer operand of a float op is not rounded to the float dtype first (int + float32 rounded once "
          "instead of twice; cos(int) of the exact integer; (-2.46) ** 16777217 keeps the odd exponent)",
          "value.py:binary / unary (the op runs on the raw int)",
          "confirms: an int times a float32 rounded once instead of twice",
          lambda c: c.values and not c.vk.startswith("dtype") and (
              c.is_("silently_wrong_value") and (c.mixes(_int_into_float, only_here=True)
                                                 or c.at(r"(\*\* |pow\((v\d+, )?)-?\d{8,}"))
              or c.is_("silently_wrong_grad") and c.mixes(_int_into_float))),
    Cause("mixed-float-backward",
          "Backward with operands of different float dtypes runs in the result dtype, where PyTorch evaluates "
          "terms in an operand's own dtype (pow of a float64 base by a float32 exponent: `exponent - 1` is "
          "rounded to float32)",
          "ops.py:Pow.backward (and the kernel choice by result dtype in autograd/engine.py)", "new",
          lambda c: c.is_("silently_wrong_grad") and c.vk in ("close", "different") and c.mixes(
              lambda dts, out, s: dts >= {"float32", "float64"} and libm_call(s.code) is not None)),
    Cause("pow-bool-exponent",
          "`x ** False`: PyTorch's backward treats a bool exponent as a number, grad * False * x ** (False - 1) "
          "(-0. for negative x, nan at 0 and nan); scalargrad's zero-exponent shortcut gives +0.",
          "ops.py:PowC.backward", "confirms: `x ** False` backward",
          lambda c: c.values and c.before(r"\*\* False|pow\(v\d+, False\)") and c.is_("silently_wrong_grad")),
    Cause("sum-negative-zero",
          "sum/mean of -0. give -0. (PyTorch's accumulator starts at +0.)",
          "value.py:Value.sum / Value.mean (pass the value through)",
          "confirms: torch.tensor(-0.).sum() gives -0.",
          lambda c: c.op in ("sum", "mean") and c.vk == "signed zero"),
    Cause("comparisons-give-bools",
          "Comparisons (`==`, `<`...) give Python bools, PyTorch gives bool tensors",
          "value.py:Value.__eq__/__lt__...", "new",
          lambda c: c.vk == "bool vs tensor"),
    Cause("libm-not-correctly-rounded",
          "float64 tanh (and some sin, cos, exp) take the C library's double result, which is not correctly "
          "rounded (mpmath), where PyTorch's differs",
          "ieee.py:tanh/sin/cos/exp (math.*)", "new",
          lambda c: c.is_("libm_last_bit")),
    Cause("node-names",
          "grad_fn names: clamp_min/clamp_max give ClampBackward1 (PyTorch: ClampMinBackward0/ClampMaxBackward0), "
          "clamp with tensor bounds gives Maximum/Minimum nodes (PyTorch: ClampBackward0), copy_ gives "
          "ToCopyBackward0/CopyBackwards (PyTorch: torch::autograd::CopyBackwards)",
          "ops.py (Clamp names) and value.py:Value.clamp, copy_",
          "confirms: clamp_min shows ClampBackward1",
          lambda c: c.is_("wrong_metadata", "wrong_grad_graph") and ("clamp" in c.op or "copy" in c.code
                                                                     or c.op in ("read", "read_grad"))),
    Cause("other-messages",
          "Other error texts that differ from PyTorch's (factory signatures, set_default_dtype, ones(-1), "
          "clamp_min(None), requires_grad on a non-leaf...)",
          "various", "new",
          lambda c: c.is_("wrong_message", "wrong_type")),
]

ISSUE_14_KINDS = ("graphs", "errors", "modules", "threads")


def classify(program: Program, d: Divergence, sg: Outcome | None = None, prior: tuple = ()) -> Cause | None:
    """The catalogue's cause of divergence ``d`` of ``program`` (None: unclassified); ``sg`` is
    scalargrad's outcome, ``prior`` the program's earlier divergences, which some rules read.
    Issue 22's families have their own catalogue (``causes_shaped``)."""
    ctx = Ctx(program, d, sg, prior)
    if program.kind in ISSUE_14_KINDS:
        catalogue = CATALOGUE
    else:
        from .causes_shaped import CATALOGUE as catalogue
    return next((cause for cause in catalogue if cause.rule(ctx)), None)
