"""The channels-last memory format (issue 23: real programs use it), against live PyTorch 2.13.

scalargrad keeps elements in logical order and memory strides beside them, so a channels-last
tensor is a permuted-contiguous layout (``_tensor/memory_formats.py``): ``stride()``,
``is_contiguous(memory_format=...)``, ``contiguous``/``to``/``clone``/``Module.to`` with a
memory format, and the layout of what ops make from such a tensor (elementwise ops, convolution,
pooling, batch norm, upsampling, constant padding, cat, pixel shuffle) follow PyTorch's; the
values are those of the same op on a contiguous tensor, compared here with PyTorch's where its
kernels are the same on every processor (pooling, upsampling, padding, cat: data movement, sums
in a fixed order). Convolution and batch norm (machine-dependent kernels; batch norm's
channels-last statistics are summed per thread) are compared within a bound.
"""

from __future__ import annotations

import pytest
from program_outcome import outcome

import scalargrad
from scalargrad.errors import Unsupported

METHODS = """
y = torch.arange(120.0).reshape(2, 3, 4, 5)
cl = y.contiguous(memory_format=torch.channels_last)
out = [cl.stride(), cl.tolist() == y.tolist(), cl.contiguous(memory_format=torch.channels_last) is cl,
       cl.contiguous() is cl, cl.contiguous().stride(), cl.is_contiguous(),
       cl.is_contiguous(memory_format=torch.channels_last), cl.is_contiguous(memory_format=torch.channels_last_3d),
       cl.is_contiguous(memory_format=torch.contiguous_format), cl.is_contiguous(memory_format=torch.preserve_format),
       y.is_contiguous(memory_format=torch.channels_last), cl.to(torch.float64).stride(),
       cl.to(torch.float64, memory_format=torch.contiguous_format).stride(),
       y.to(memory_format=torch.channels_last) is y, cl.to(memory_format=torch.channels_last) is cl,
       y.to(memory_format=torch.contiguous_format) is y, y.double(memory_format=torch.channels_last).stride(),
       y.float(memory_format=torch.channels_last).stride(), y.float(memory_format=torch.channels_last) is y,
       y.float() is y, cl.clone().stride(), cl.clone(memory_format=torch.contiguous_format).stride(),
       y.clone(memory_format=torch.channels_last).stride(), cl.flatten(1).stride(),
       cl.permute(0, 2, 3, 1).is_contiguous(), cl.reshape(2, -1).stride(), cl.dim_order(),
       y.transpose(2, 3).to(memory_format=torch.contiguous_format).stride(),
       torch.ones(2, 1, 4, 5).is_contiguous(memory_format=torch.channels_last),
       torch.ones(2, 3, 1, 1).contiguous(memory_format=torch.channels_last).stride(),
       torch.ones(1, 2, 3, 4, 5).contiguous(memory_format=torch.channels_last_3d).stride(),
       torch.zeros(2, 3, 4, 5)[:, :, ::2].contiguous(memory_format=torch.channels_last).stride(),
       [torch.channels_last, torch.contiguous_format, torch.preserve_format, torch.channels_last_3d],
       isinstance(torch.channels_last, torch.memory_format), torch.channels_last == torch.channels_last,
       torch.channels_last == torch.contiguous_format, (cl + 1).stride(), torch.relu(cl).stride(),
       (cl * y).stride(), cl.sum(1).stride(), cl.sum(1, keepdim=True).stride(), torch.softmax(cl, 1).stride()]
x = torch.arange(24.0).reshape(1, 2, 3, 4).requires_grad_()
c = x.contiguous(memory_format=torch.channels_last)
out += [type(c.grad_fn).__name__, type(x.to(memory_format=torch.channels_last).grad_fn).__name__,
        type(x.clone(memory_format=torch.channels_last).grad_fn).__name__]
(c * torch.arange(24.0).reshape(1, 2, 3, 4)).sum().backward()
out += [x.grad.tolist(), x.grad.stride()]
xl = c.detach().requires_grad_()
(xl * 2).sum().backward()
out.append(xl.grad.stride())
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.Linear(2, 2))
out.append(m.to(memory_format=torch.channels_last) is m)
out.append([(n, p.stride(), p.is_contiguous(memory_format=torch.channels_last)) for n, p in m.named_parameters()])
m.to(torch.float64, memory_format=torch.channels_last)
out.append((m[0].weight.dtype, m[0].weight.stride(), m[0].weight.grad_fn))
for call in (lambda: torch.ones(2, 3).contiguous(memory_format=torch.channels_last),
             lambda: y.contiguous(memory_format=torch.channels_last_3d),
             lambda: y.transpose(1, 2).contiguous(memory_format=torch.preserve_format),
             lambda: y.is_contiguous(memory_format=3), lambda: y.contiguous(memory_format=3),
             lambda: torch.ones(2, 3).to(memory_format=torch.channels_last),
             lambda: torch.ones(2, 3).clone(memory_format=torch.channels_last), lambda: cl.view(2, -1)):
    try:
        call()
        out.append("no error")
    except (RuntimeError, TypeError) as e:
        out.append(f"{type(e).__name__}: {e}")
"""


def test_methods_formats_and_module_to(torch_ref):
    assert outcome(scalargrad, METHODS) == outcome(torch_ref, METHODS)


# ops on channels-last input whose every kernel is the same on every processor: values exact
EXACT = """
g = torch.Generator().manual_seed(0)
y = torch.randn(2, 4, 5, 6, generator=g)
cl = y.contiguous(memory_format=torch.channels_last)
y5 = torch.randn(2, 3, 4, 5, 6, generator=g)
c5 = y5.contiguous(memory_format=torch.channels_last_3d)
F = torch.nn.functional
results = [F.max_pool2d(cl, 2), F.max_pool2d(cl, 2, return_indices=True)[1], F.avg_pool2d(cl, 2),
           F.avg_pool2d(cl, 3, stride=2, padding=1), F.adaptive_avg_pool2d(cl, (2, 3)), F.adaptive_avg_pool2d(cl, 1),
           F.adaptive_max_pool2d(cl, 2), F.interpolate(cl, scale_factor=2),
           F.interpolate(cl, scale_factor=2, mode="bilinear"), F.pad(cl, (1, 1)), F.pad(cl, (1, 1), mode="reflect"),
           torch.cat([cl, cl], 1), torch.cat([cl, cl], 0), torch.cat([y, cl], 1),
           F.pixel_shuffle(torch.arange(16.0).reshape(1, 4, 2, 2).contiguous(memory_format=torch.channels_last), 2),
           torch.nn.Upsample(scale_factor=2)(cl), F.max_pool3d(c5, 2), F.avg_pool3d(c5, 2),
           F.adaptive_avg_pool3d(c5, 2), F.adaptive_avg_pool3d(c5, 1), F.adaptive_max_pool3d(c5, 2),
           F.interpolate(c5, scale_factor=2), F.pad(c5, (1, 1)), torch.cat([c5, c5], 1), c5 + 1,
           F.batch_norm(cl, torch.zeros(4) + 0.25, torch.ones(4) * 0.75, training=False)]
out = [(tuple(r.shape), r.stride(), r.tolist()) for r in results]
x = cl.clone().requires_grad_()
for make in (lambda t: F.adaptive_avg_pool2d(t, 1), lambda t: F.adaptive_avg_pool2d(t, (2, 3)),
             lambda t: F.max_pool2d(t, 2), lambda t: F.interpolate(t, scale_factor=2, mode="bilinear")):
    o = make(x)
    names = []
    node = o.grad_fn
    while node is not None and node.next_functions:
        names.append(type(node).__name__)
        node = node.next_functions[0][0]
    o.backward(torch.randn(o.shape, generator=g))
    out.append((names, o.stride(), x.grad.stride(), x.grad.tolist()))
    x.grad = None
"""


def test_ops_lay_out_a_channels_last_input_as_pytorch(torch_ref):
    assert outcome(scalargrad, EXACT) == outcome(torch_ref, EXACT)


# convolution and batch norm: the layout exactly, the values within a bound of float32 rounding
BOUNDED = """
g = torch.Generator().manual_seed(1)
y = torch.randn(2, 3, 6, 7, generator=g)
cl = y.contiguous(memory_format=torch.channels_last)
w = torch.randn(4, 3, 3, 3, generator=g)
F = torch.nn.functional
results = [F.conv2d(cl, w), F.conv2d(y, w.contiguous(memory_format=torch.channels_last)),
           F.conv2d(cl, w, torch.randn(4, generator=g), stride=2, padding=1),
           F.conv2d(cl, torch.randn(3, 1, 3, 3, generator=g), groups=3),
           F.conv_transpose2d(cl, torch.randn(3, 2, 3, 3, generator=g)),
           F.conv2d(cl[:1].double(), w.double()),
           F.batch_norm(cl, None, None, training=True)]
x = cl.clone().requires_grad_()
bn = torch.nn.BatchNorm2d(3).to(memory_format=torch.channels_last)
o = bn(x)
o.backward(torch.randn(o.shape, generator=g))
results += [o, x.grad]
out = [(tuple(r.shape), r.stride(), r.tolist()) for r in results]
"""


def _flat(v):
    return [a for b in v for a in _flat(b)] if isinstance(v, list) else [v]


def test_convolution_and_batch_norm_lay_out_as_pytorch(torch_ref):
    ours = outcome(scalargrad, BOUNDED, read=lambda env: env["out"])
    theirs = outcome(torch_ref, BOUNDED, read=lambda env: env["out"])
    assert [(s, st) for s, st, _ in ours] == [(s, st) for s, st, _ in theirs]
    for (_, _, a), (_, _, b) in zip(ours, theirs):
        assert _flat(a) == pytest.approx(_flat(b), rel=1e-5, abs=1e-5)


def test_what_is_not_reproduced_is_refused_by_name():
    cl = scalargrad.zeros(2, 3, 4, 5).contiguous(memory_format=scalargrad.channels_last)
    with pytest.raises(Unsupported, match="stack of channels_last"):
        scalargrad.stack([cl, cl])
    # PyTorch's conv3d lays out its result by backend: channels_last_3d for a float32 batch of two,
    # contiguous for a batch of one or float64 (measured)
    c5 = scalargrad.zeros(2, 2, 3, 4, 5).contiguous(memory_format=scalargrad.channels_last_3d)
    with pytest.raises(Unsupported, match="conv3d of a channels_last_3d"):
        scalargrad.nn.functional.conv3d(c5, scalargrad.zeros(3, 2, 2, 2, 2))
