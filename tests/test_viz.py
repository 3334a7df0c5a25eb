"""scalargrad.viz: make_dot's DOT text (torchviz 0.0.3's conventions), the hook notes and the
order a recorded backward fired them, rendering with Graphviz, and ``scalargrad run --graph``.

Expected graphs are derived by hand from torchviz's drawing rules (a depth-first walk from the
output: output tensor green, grad_fn nodes grey and named by class, leaves blue and named from
``params``, one edge per ``next_functions`` entry) and from PyTorch's hook order; the
conformance tests run the same program on PyTorch with torchviz itself and compare the DOT text.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import scalargrad as torch
from scalargrad import nn
from scalargrad.runner import torch_alias
from scalargrad.viz import GraphvizUnavailable, HookRecorder, make_dot, record_hooks

_STMT = re.compile(r'^\t(?P<tail>[\w]+)(?: -> (?P<head>[\w]+))?(?: \[(?P<attrs>.*)\])?$', re.S)
_ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^ \]]+)')


def canonical(source: str) -> list[str]:
    """The DOT text's statements with object ids renamed N0, N1... in order of appearance
    (ids differ between runs and between libraries, the structure must not)."""
    ids: dict = {}

    def sub(m):
        return ids.setdefault(m.group(0), f"N{len(ids)}")

    body = source.split("\n", 3)[3].rsplit("}", 1)[0]
    return [re.sub(r"(?<![\w])\d{6,}\b", sub, s) for s in re.split(r"\n(?=\t)", body.strip("\n"))]


def parse(source: str) -> tuple[dict, list]:
    """{node id: {attr: value}} (later statements add to earlier ones, as in DOT) and the edges
    as (tail, head, attrs)."""
    nodes: dict = {}
    edges = []
    for stmt in re.split(r"\n(?=\t)", source.split("\n", 3)[3].rsplit("}", 1)[0].strip("\n")):
        m = _STMT.match(stmt)
        assert m, stmt
        attrs = {k: v[1:-1] if v.startswith('"') else v for k, v in _ATTR.findall(m["attrs"] or "")}
        if m["head"]:
            edges.append((m["tail"], m["head"], attrs))
        else:
            nodes.setdefault(m["tail"], {}).update(attrs)
    return nodes, edges


# ---------------------------------------------------------------- the DOT text


def test_make_dot_log_of_power_nodes_edges_and_labels():
    x = torch.tensor(5.0, requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    z = torch.log(x ** q)
    dot = make_dot(z, params={"x": x, "q": q})
    assert dot.source.startswith('digraph {\n\tgraph [size="12,12"]\n\tnode [align=left fontname=monospace '
                                 'fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]\n')
    # torchviz's walk: the output, its grad_fn, then depth first along next_functions
    assert canonical(dot.source) == [
        '\tN0 [label="\n ()" fillcolor=darkolivegreen1]',
        "\tN1 [label=LogBackward0]",
        "\tN2 -> N1",
        "\tN2 [label=PowBackward1]",
        "\tN3 -> N2",
        '\tN4 [label="x\n ()" fillcolor=lightblue]',
        "\tN4 -> N3",
        "\tN3 [label=AccumulateGrad]",
        "\tN5 -> N2",
        '\tN6 [label="q\n ()" fillcolor=lightblue]',
        "\tN6 -> N5",
        "\tN5 [label=AccumulateGrad]",
        "\tN1 -> N0",
    ]
    nodes, edges = parse(dot.source)
    assert nodes[str(id(x))]["label"] == "x\n ()" and nodes[str(id(z))]["fillcolor"] == "darkolivegreen1"
    assert (str(id(z.grad_fn)), str(id(z)), {}) in edges


def test_make_dot_shared_input_is_drawn_once_with_two_edges():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x + x  # MulBackward0 takes x twice, AddBackward0 once more
    nodes, edges = parse(make_dot(y, params={"x": x}).source)
    acc = [n for n, a in nodes.items() if a.get("label") == "AccumulateGrad"]
    assert len(acc) == 1
    assert sorted(nodes[h]["label"] for t, h, _ in edges if t == acc[0]) == ["AddBackward0", "MulBackward0",
                                                                             "MulBackward0"]


def test_make_dot_tuple_of_outputs_and_unnamed_leaf_and_size():
    a = torch.tensor([1.5], requires_grad=True)  # one element, shape [1]
    b = a * 2.0
    c = a.exp()
    nodes, edges = parse(make_dot((b, c)).source)
    green = [n for n, at in nodes.items() if at.get("fillcolor") == "darkolivegreen1"]
    assert [nodes[n]["label"] for n in green] == ["\n (1)", "\n (1)"]
    assert nodes[str(id(a))] == {"label": "\n (1)", "fillcolor": "lightblue"}
    assert {nodes[n]["label"] for n in nodes if "fillcolor" not in nodes[n]} == {"MulBackward0", "ExpBackward0",
                                                                                "AccumulateGrad"}


def test_make_dot_size_grows_with_the_graph():
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(40):
        y = y * 1.5
    dot = make_dot(y)
    # 1 output + 40 nodes and 40 edges + leaf, its edge and AccumulateGrad + final edge = 85 lines
    assert len(dot.body) == 85
    assert 'graph [size="12.75,12.75"]' in dot.source


def test_make_dot_rejects_params_that_are_not_tensors():
    x = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(TypeError, match="params must map names to tensors"):
        make_dot(x * 2, params={"x": 3.0})


def test_make_dot_walks_a_deep_chain_without_recursion():
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y + 1.0
    assert len(make_dot(y).body) == 2 * 5000 + 5


# ---------------------------------------------------------------- hooks on the picture


class PowModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.powParam = nn.Parameter(torch.tensor(1.0))

    def forward(self, x, q):
        return self.powParam * x ** q


class LogModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.logParam = nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        return self.logParam * torch.log(x)


class PowLogModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.powModel = PowModel()
        self.logModel = LogModel()

    def forward(self, x, q):
        return self.logModel(self.powModel(x, q))


def notes_of(source: str) -> dict:
    """{label of the annotated node: the note's lines}."""
    nodes, edges = parse(source)
    out = {}
    for t, h, attrs in edges:
        if t.startswith("hooks_"):
            assert attrs == {"arrowhead": "none", "color": "darkgoldenrod", "style": "dashed"}
            out.setdefault(nodes[h]["label"], []).extend(nodes[t]["label"].split("\\l")[:-1])
    return out


def hooked_pow_log(calls: list):
    m = PowLogModel()

    def full_hook(module, grad_input, grad_output):
        calls.append("full_hook")

    def pre_hook(module, grad_output):
        calls.append("pre_hook")

    def on_x(grad):
        calls.append("on_x")

    def on_node(grad_inputs, grad_outputs):
        calls.append("on_node")

    m.powModel.register_full_backward_hook(full_hook)
    m.logModel.register_full_backward_pre_hook(pre_hook)
    x = torch.tensor(5.0, requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    x.register_hook(on_x)
    z = m(x, q)
    z.grad_fn.register_hook(on_node)
    return m, x, q, z


def test_hook_notes_without_a_recorded_backward():
    m, x, q, z = hooked_pow_log([])
    notes = notes_of(make_dot(z, params={"x": x, "q": q}).source)
    # LogModel's output node carries its backward pre-hook (a post-hook of that node) and the
    # node hook registered on z.grad_fn; PowModel's input node its full backward hook
    assert notes == {
        "BackwardHookFunctionBackward": ["module backward pre-hook pre_hook of LogModel", "node post-hook on_node",
                                         "module full backward hook full_hook of PowModel"],
        "x\n ()": ["tensor hook on_x"],
    }
    assert notes_of(make_dot(z, show_hooks=False).source) == {}


def test_firing_order_is_numbered_as_the_hooks_fired():
    calls: list = []
    m, x, q, z = hooked_pow_log(calls)
    with record_hooks() as rec:
        z.backward()
    # PyTorch's order: the output node's post-hooks (pre-hook first: registered by the module
    # call, before z.grad_fn.register_hook), PowModel's input node, then x's AccumulateGrad
    assert calls == ["pre_hook", "on_node", "full_hook", "on_x"]
    assert [s.text for s in rec.last.fired] == ["module backward pre-hook pre_hook of LogModel",
                                                "node post-hook on_node",
                                                "module full backward hook full_hook of PowModel",
                                                "tensor hook on_x"]
    notes = notes_of(make_dot(z, params={"x": x}, hook_order=rec).source)
    assert notes == {
        "BackwardHookFunctionBackward": ["#1 module backward pre-hook pre_hook of LogModel",
                                         "#2 node post-hook on_node",
                                         "#3 module full backward hook full_hook of PowModel"],
        "x\n ()": ["#4 tensor hook on_x"],
    }
    assert x.grad.item() == pytest.approx(0.6) and q.grad.item() == pytest.approx(1.6094379)


def test_recorder_puts_every_hook_back_and_keeps_what_hooks_return():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * x  # dy/dx = 6

    def double(grad):
        return grad * 2

    handle = x.register_hook(double)
    before = dict(x._ext.hooks)
    with HookRecorder() as rec:
        y.backward(retain_graph=True)
        y.backward()
    assert x._ext.hooks == before and x._ext.hooks[handle.id] is double
    assert x.grad.item() == 24.0  # 2 * 6, twice
    assert [len(c.fired) for c in rec.calls] == [1, 1]
    assert rec.calls[0].roots == [] and rec.calls[1].roots == [y]  # only the last keeps its graph


def test_recorder_after_a_backward_that_raised():
    x = torch.tensor(3.0, requires_grad=True)

    def bad(grad):
        raise ValueError("hook failed")

    x.register_hook(bad)
    with HookRecorder() as rec:
        with pytest.raises(ValueError, match="hook failed"):
            (x * 2).backward()
        assert [s.text for s in rec.last.fired] == ["tensor hook bad"]
    assert list(x._ext.hooks.values()) == [bad]


def test_hook_not_fired_is_marked():
    x = torch.tensor(3.0, requires_grad=True)
    w = torch.tensor(2.0, requires_grad=True)
    w.register_hook(lambda g: None)
    y = x * w
    with record_hooks() as rec:
        torch.autograd.grad(y, [x])  # w's gradient is not computed, its hook does not fire
    assert notes_of(make_dot(y, params={"w": w}, hook_order=rec).source) == {
        "w\n ()": ["(not fired) tensor hook <lambda>"]}


def test_legacy_module_backward_hook_and_post_accumulate_hook():
    m = PowLogModel()

    def legacy(module, grad_input, grad_output):
        return None

    with pytest.warns(FutureWarning):
        m.powModel.register_backward_hook(legacy)
        x = torch.tensor(5.0, requires_grad=True)
        q = torch.tensor(3.0, requires_grad=True)
        q.register_post_accumulate_grad_hook(lambda t: None)
        z = m(x, q)
    with record_hooks() as rec:
        z.backward()
    notes = notes_of(make_dot(z, params={"q": q}, hook_order=rec).source)
    # the legacy hook sits on the module's last node (powParam * x ** q: MulBackward0); q's
    # post-accumulate hook fires after its gradient was accumulated, last
    assert notes == {"MulBackward0": ["#1 module backward hook (legacy) legacy of PowModel"],
                     "q\n ()": ["#2 post-accumulate-grad hook <lambda>"]}


# ---------------------------------------------------------------- PyTorch's order, torchviz's DOT

HOOKED_PROGRAM = """
import torch
calls = []
class PowModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.powParam = torch.nn.Parameter(torch.tensor(1.0))
    def forward(self, x, q):
        return self.powParam * x ** q
class LogModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.logParam = torch.nn.Parameter(torch.tensor(1.0))
    def forward(self, x):
        return self.logParam * torch.log(x)
pm, lm = PowModel(), LogModel()
pm.register_full_backward_hook(lambda mod, gi, go: calls.append("pm full"))
pm.register_full_backward_pre_hook(lambda mod, go: calls.append("pm pre"))
lm.register_full_backward_pre_hook(lambda mod, go: calls.append("lm pre"))
x = torch.tensor(5.0, requires_grad=True)
q = torch.tensor(3.0, requires_grad=True)
x.register_hook(lambda g: calls.append("x hook"))
q.register_post_accumulate_grad_hook(lambda t: calls.append("q post-acc"))
y = pm(x, q)
y.register_hook(lambda g: calls.append("y hook"))
z = lm(y)
z.grad_fn.register_prehook(lambda go: calls.append("z pre"))
"""


def test_recorded_order_is_pytorchs_order(torch_ref):
    """The hooks' own log of the order they ran, under PyTorch, equals the recorder's order
    under scalargrad (each hook appends its name; the recorder knows them by registration)."""
    ns_torch: dict = {}
    exec(HOOKED_PROGRAM, ns_torch)
    ns_torch["z"].backward()
    with torch_alias():
        ns: dict = {}
        exec(HOOKED_PROGRAM, ns)
        with record_hooks() as rec:
            ns["z"].backward()
    assert ns["calls"] == ns_torch["calls"]
    assert len(rec.last.fired) == len(ns_torch["calls"]) == 7
    kinds = [s.kind for s in rec.last.fired]
    assert kinds == ["node pre-hook", "module backward pre-hook", "tensor hook", "module backward pre-hook",
                     "module full backward hook", "tensor hook", "post-accumulate-grad hook"]
    assert ns_torch["calls"] == ["z pre", "lm pre", "y hook", "pm pre", "pm full", "x hook", "q post-acc"]


CONFORMANCE = {
    "multi-element tensor": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
OUT = (x * 2).sum()
PARAMS = {"x": x}
""",
    "log of a power": """
x = torch.tensor(5.0, requires_grad=True)
q = torch.tensor(3.0, requires_grad=True)
OUT = torch.log(x ** q)
PARAMS = {"x": x, "q": q}
""",
    "module with a legacy backward hook": """
class PowModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.powParam = torch.nn.Parameter(torch.tensor(1.0))
    def forward(self, x, q):
        return self.powParam * x ** q
class LogModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.logParam = torch.nn.Parameter(torch.tensor(1.0))
    def forward(self, x):
        return self.logParam * torch.log(x)
class PowLogModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.powModel = PowModel()
        self.logModel = LogModel()
    def forward(self, x, q):
        return self.logModel(self.powModel(x, q))
m = PowLogModel()
m.powModel.register_backward_hook(lambda mod, gi, go: None)
x = torch.tensor(5.0, requires_grad=True)
q = torch.tensor(3.0, requires_grad=True)
OUT = m(x, q)
PARAMS = dict(m.named_parameters())
""",
    "one-element tensors, reductions and a tensor hook": """
x1 = torch.tensor([0.6476], requires_grad=True)
x2 = torch.tensor([0.22494], requires_grad=True)
W = torch.nn.Parameter(torch.Tensor([5]))
W.register_hook(lambda g: None)
out = x1 * x2 * W
OUT = out.sum() + torch.tanh(out).mean() * 2.0 - out.exp().sum() / x1.sum()
PARAMS = {"x1": x1, "x2": x2, "W": W}
""",
    "custom Function without saved tensors, two outputs, a detached leaf": """
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * x
    @staticmethod
    def backward(ctx, g):
        return 2 * g
x = torch.tensor(3.0, requires_grad=True)
y = Square.apply(x) + 1
y2 = y.detach().requires_grad_()
OUT = (y * y2, y)
PARAMS = {"x": x, "y2": y2}
""",
    "relu, sigmoid, division and a number": """
a = torch.tensor(-1.5, requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
OUT = torch.relu(a) + torch.sigmoid(b) / (a - 2.0) ** 2 - 3.0 / b
PARAMS = {"a": a}
""",
    "module with a full backward hook": """
lin = torch.nn.Identity()
lin.register_full_backward_hook(lambda mod, gi, go: None)
x = torch.tensor(2.0, requires_grad=True)
OUT = lin(x * 3.0)
PARAMS = {"x": x}
""",
    "custom Function with saved tensors": """
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g
x = torch.tensor(3.0, requires_grad=True)
OUT = Square.apply(x) + 1
PARAMS = {"x": x}
""",
}


def _both_dots(program: str, make_dot_torch, **kwargs) -> tuple[list, list]:
    ns_torch: dict = {"torch": sys.modules["torch"]}
    exec(program, ns_torch)
    want = canonical(make_dot_torch(ns_torch["OUT"], params=ns_torch["PARAMS"], **kwargs).source)
    with torch_alias():
        ns: dict = {"torch": torch}
        exec(program, ns)
        got = canonical(make_dot(ns["OUT"], params=ns["PARAMS"], show_hooks=False, **kwargs).source)
    return want, got


@pytest.fixture
def torchviz(torch_ref):
    return pytest.importorskip("torchviz", reason="torchviz is not installed (pip install -e '.[conformance]')")


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("name", list(CONFORMANCE))
def test_make_dot_matches_torchviz_on_pytorch(torchviz, name):
    want, got = _both_dots(CONFORMANCE[name], torchviz.make_dot)
    assert got == want


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_make_dot_show_saved_and_attrs_match_torchviz(torchviz):
    want, got = _both_dots(CONFORMANCE["log of a power"], torchviz.make_dot, show_saved=True, show_attrs=True)
    assert got == want


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_make_dot_repr_is_torchvizs_digraph_repr(torchviz):
    """A notebook cell ending in ``make_dot(y)`` prints the Digraph's repr (an address aside)."""
    want, got = (repr(f(OUT)) for f, OUT in ((torchviz.make_dot, sys.modules["torch"].ones(1, requires_grad=True) * 2),
                                              (make_dot, torch.ones(1, requires_grad=True) * 2)))
    address = re.compile(r" at 0x[0-9a-f]+>$")
    assert address.search(got) and address.sub(">", got) == address.sub(">", want)


# ---------------------------------------------------------------- rendering

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")


@needs_dot
def test_render_png_and_svg(tmp_path):
    pytest.importorskip("graphviz", reason="the graphviz package is not installed (pip install -e '.[viz]')")
    x = torch.tensor(5.0, requires_grad=True)
    dot = make_dot(torch.log(x * x), params={"x": x})
    assert dot.pipe(format="png").startswith(b"\x89PNG\r\n\x1a\n")
    svg = dot.pipe(format="svg").decode()
    assert "LogBackward0" in svg and "AccumulateGrad" in svg
    out = dot.render(outfile=str(tmp_path / "g.svg"))
    assert (tmp_path / "g.svg").read_text().lstrip().startswith("<?xml")
    assert out == str(tmp_path / "g.svg")


def test_render_without_the_graphviz_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz now fails
    x = torch.tensor(5.0, requires_grad=True)
    dot = make_dot(x * 2)
    assert "MulBackward0" in dot.source  # the DOT text needs nothing
    with pytest.raises(GraphvizUnavailable, match=r"pip install 'scalargrad\[viz\]'.*DOT text is in .source"):
        dot.pipe(format="png")


def test_hooks_of_a_multi_element_tensor_are_drawn_once_and_numbered():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2.0
    seen = []
    x.register_hook(lambda g: seen.append("x"))
    y.register_hook(lambda g: seen.append("y"))
    with record_hooks() as rec:
        y.sum().backward()
    assert seen == ["y", "x"]  # one call each, with the whole gradient
    assert [s.text for s in rec.last.fired] == ["tensor hook <lambda>", "tensor hook <lambda>"]
    notes = notes_of(make_dot(y, params={"x": x}, hook_order=rec).source)
    assert notes == {"MulBackward0": ["#1 tensor hook <lambda>"], "x\n (3)": ["#2 tensor hook <lambda>"]}


# ---------------------------------------------------------------- scalargrad run --graph


def test_run_graph_writes_the_last_backward(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent("""
        import torch
        a = torch.tensor(2.0, requires_grad=True)
        (a * 3).backward()
        b = torch.tensor(5.0, requires_grad=True)
        b.register_hook(lambda g: print("hook", g))
        loss = torch.log(b * a)
        loss.backward()
        print("done")
    """))
    out = tmp_path / "g.dot"
    proc = subprocess.run([sys.executable, "-m", "scalargrad", "run", "--graph", str(out), str(prog)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hook tensor(0.2000)\ndone\n"
    nodes, edges = parse(out.read_text())
    labels = sorted(a["label"] for a in nodes.values())
    # the last backward's graph, its tensors named after the program's variables, b's hook numbered
    assert labels == sorted(["#1 tensor hook <lambda>\\l", "loss\n ()", "AccumulateGrad", "AccumulateGrad",
                             "LogBackward0", "MulBackward0", "a\n ()", "b\n ()"])


def test_run_graph_without_a_backward(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("print('no graph')\n")
    out = tmp_path / "g.svg"
    proc = subprocess.run([sys.executable, "-m", "scalargrad", "run", "--graph", str(out), str(prog)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert proc.stdout == "no graph\n"
    assert "no backward call to draw" in proc.stderr and not out.exists()


@needs_dot
def test_run_graph_png_and_torchviz_import(tmp_path):
    pytest.importorskip("graphviz", reason="the graphviz package is not installed (pip install -e '.[viz]')")
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent("""
        import torch
        from torchviz import make_dot  # resolves to scalargrad.viz under scalargrad run
        x = torch.tensor(5.0, requires_grad=True)
        y = torch.log(x * x)
        print(make_dot(y, params={"x": x}).source.count("AccumulateGrad"))
        y.backward()
    """))
    out = tmp_path / "g.png"
    proc = subprocess.run([sys.executable, "-m", "scalargrad", "run", "--graph", str(out), str(prog)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "1\n"
    assert out.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_a_hook_removed_after_the_recorded_backward_is_still_drawn():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x

    def watch(grad):
        return None

    handle = x.register_hook(watch)
    with record_hooks() as rec:
        y.backward()
    handle.remove()
    assert notes_of(make_dot(y, params={"x": x}).source) == {}  # nothing on the graph now
    assert notes_of(make_dot(y, params={"x": x}, hook_order=rec).source) == {"x\n ()": ["#1 tensor hook watch"]}
