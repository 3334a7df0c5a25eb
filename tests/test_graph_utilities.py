"""torch.autograd.graph: register_multi_grad_hook ("all" and "any"), GradientEdge /
get_gradient_edge (also as autograd.grad inputs), increment_version, Node."""

from __future__ import annotations

import pytest

import scalargrad as torch
from scalargrad.autograd import graph


def test_all_mode_waits_for_every_gradient_this_call_computes():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    d = a * b
    seen = []
    handle = graph.register_multi_grad_hook((a, b, c, d), lambda gs: seen.append(
        [None if g is None else g.tolist() for g in gs]))
    c.sum().backward(retain_graph=True)  # d is not in this graph: None, and not waited for
    assert seen == [[[3.0, 4.0], [1.0, 2.0], [1.0, 1.0], None]]
    c.sum().backward(inputs=(a,), retain_graph=True)  # b's gradient is not computed
    assert seen[-1] == [[3.0, 4.0], None, [1.0, 1.0], None]
    handle.remove()
    c.sum().backward(retain_graph=True)
    assert len(seen) == 2


def test_any_mode_fires_once_per_backward_call():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = a * 1
    seen = []
    graph.register_multi_grad_hook((a, c), lambda g: seen.append(g.tolist()), mode="any")
    (c * 2).sum().backward(retain_graph=True)  # c's gradient comes first
    (a * 3).sum().backward()
    assert seen == [[2.0, 2.0], [3.0, 3.0]]
    with pytest.raises(ValueError, match=r"^Expects mode to be one of \('all', 'any'\) but got some$"):
        graph.register_multi_grad_hook((a,), print, mode="some")


def test_gradient_edges_and_versions():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    m = w * 3
    loss = (m * m).sum()
    edge = graph.get_gradient_edge(m)
    assert edge.node.name() == "MulBackward0" and edge.output_nr == 0
    # d loss / d m = 2 m = [6, 12]; d loss / d w = 3 * 2 m = [18, 36]
    assert torch.autograd.grad(loss, edge, retain_graph=True)[0].tolist() == [6.0, 12.0]
    assert torch.autograd.grad(loss, graph.get_gradient_edge(w))[0].tolist() == [18.0, 36.0]
    s = torch.tensor([1.0, 2.0], requires_grad=True)
    t = s * s
    graph.increment_version(s)
    assert s._version == 1
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        t.sum().backward()


def test_matches_pytorch(torch_ref):
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location("graph_utilities_cases",
                                                  pathlib.Path(__file__).parent / "graph_utilities_cases.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    assert cases.run(torch) == cases.run(torch_ref)
