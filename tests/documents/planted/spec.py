"""The synthetic documents of the planted-error suite: their code, written for this suite.

``capture.py`` runs each document's cells on PyTorch 2.13 (as Jupyter would: the last
expression of a notebook cell shown by IPython's pretty printer, warnings on stderr, an
error's type and message) and writes the documents with the outputs PyTorch gave; the tests
(``tests/test_documents_planted.py``) plant errors in those outputs. A cell is (code, how a
Markdown page shows its output: "fence", "text", "label-python", "label-zh-python",
"label-ja", "comment-python", or None for no output block).
"""

from __future__ import annotations

AUTOGRAD = [
    ("import torch\n", None),
    ("x = torch.tensor(5.0, requires_grad=True)\nq = torch.tensor(3.0, requires_grad=True)\nz = torch.log(x ** q)\n"
     "z.backward()\nprint('x.grad', x.grad)\nprint('q.grad', q.grad)\nz\n", "fence"),
    ("a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\nb = (a * a).sum()\nb.backward()\nprint(a.grad)\n"
     "print(b.grad_fn)\nb.grad_fn.next_functions\n", "label-python"),
    ("w = torch.tensor(2.0, requires_grad=True)\ny = w ** 3 + 2 * w\nprint(y)\ny.backward()\nprint(w.grad)\n",
     "label-zh-python"),
    ("seen = []\nh = w.register_hook(lambda g: seen.append(('hook', g.item())) or g * 10)\n"
     "y = (w * 4).sin()\ny.backward()\nprint(seen)\nprint(w.grad)\nh.remove()\n", "text"),
    ("p = torch.tensor([0.5, -1.5], requires_grad=True)\nr = torch.relu(p).pow(2).mean()\nr.backward()\n"
     "print(r, p.grad)\n", "comment-python"),
    ("print('before the error', y)\ny.backward()\n", "fence"),
    ("torch.tensor(1.0).backward()\n", "fence"),
]

FUNCTIONS = [
    ("import torch\n", None),
    ("class Cube(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
     "        ctx.save_for_backward(x)\n        return x ** 3\n\n    @staticmethod\n    def backward(ctx, g):\n"
     "        x, = ctx.saved_tensors\n"
     "        return 3 * x ** 2 * g\n\nx = torch.tensor([1.0, -2.0], requires_grad=True)\nc = Cube.apply(x)\n"
     "c.sum().backward()\nprint(c)\nprint(x.grad)\n", "fence"),
    ("torch.autograd.gradcheck(Cube.apply, (torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True),))\n",
     "label-ja"),
    ("c.grad_fn\n", None),
    ("class Scale(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, k):\n"
     "        ctx.save_for_backward(x, k)\n        return x * k\n\n    @staticmethod\n    def backward(ctx, g):\n"
     "        return g * 2, None\n\nprint(Scale.apply(torch.tensor(3.0), 127.0))\n", "fence"),
]

MODULES = [
    ("import torch\nfrom torch import nn\n", None),
    ("torch.manual_seed(0)\nlin = nn.Linear(3, 2)\nprint(lin)\nprint(lin.weight)\n", "fence"),
    ("lin.state_dict()\n", "text"),
    ("out = lin(torch.ones(1, 3)).sum()\nout.backward()\nprint(out)\nprint(lin.weight.grad)\nprint(lin.bias.grad)\n",
     "label-python"),
    ("box = nn.ModuleDict({'relu': nn.ReLU(), 'act': nn.Tanh()})\nbox\n", "fence"),
    ("sum(p.numel() for p in lin.parameters())\n", "fence"),
    ("import io\nbuffer = io.BytesIO()\ntorch.save(lin.state_dict(), buffer)\nbuffer.seek(0)\n"
     "again = nn.Linear(3, 2)\nprint(again.load_state_dict(torch.load(buffer)))\nprint(again.bias)\n", "fence"),
    ("class Twice(nn.Module):\n    def forward(self, x):\n        return x * 2 + 1\n\nm = Twice()\n"
     "m.register_backward_hook(lambda mod, gi, go: None)\nv = torch.tensor(1.5, requires_grad=True)\nm(v).backward()\n"
     "print(v.grad)\n", None),
]

RANDOM = [
    ("import torch\nfrom torch import nn\n", None),
    ("a = torch.rand(3)\nprint(a)\n", "fence"),
    ("layer = nn.Linear(3, 2)\nsum(p.numel() for p in layer.parameters())\n", "fence"),
    ("k = torch.tensor(3.0, requires_grad=True)\n(k * k).backward()\nk.grad\n", "fence"),
    ("out = layer(torch.ones(3))\nprint(out.shape, out.grad_fn)\nout\n", "text"),
    ("layer.weight.grad is None, layer.bias.requires_grad\n", "fence"),
    ("n = torch.randn(4)\nprint(n)\nprint('total', torch.ones(4).sum())\n", "fence"),
    ("torch.manual_seed(1)\ntorch.randn(2, 3)\n", "label-python"),
]

DOCUMENTS = {"autograd": AUTOGRAD, "functions": FUNCTIONS, "modules": MODULES, "random": RANDOM}
