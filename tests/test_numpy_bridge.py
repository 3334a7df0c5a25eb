"""NumPy arrays as data (``_tensor/numpy_bridge.py``, issue 23): construction from arrays and
NumPy scalars, ``Tensor.numpy()``, ``np.array(tensor)``, arithmetic between arrays and tensors,
indexing with arrays, DataLoader batches of arrays, each compared with live PyTorch 2.13; and
scalargrad's rule for the memory PyTorch shares between a tensor and an array (never silently
wrong), tested in both directions.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import warnings

import pytest

import scalargrad
from scalargrad._tensor import storage
from scalargrad.errors import Unsupported

np = pytest.importorskip("numpy")

# each is evaluated with ``torch`` bound to scalargrad and to PyTorch, ``np`` to NumPy; the
# outcome (repr and dtype, or the error's type and message) must be the same
CASES = [
    # torch.tensor of arrays keeps the array's dtype; NumPy scalars keep theirs
    "torch.tensor(np.array([1., 2.]))", "torch.tensor(np.array([1., 2.], dtype=np.float32))",
    "torch.tensor(np.array([[1, 2], [3, 4]]))", "torch.tensor(np.array([1, 2], dtype=np.int32))",
    "torch.tensor(np.array([1, 2], dtype=np.int16))", "torch.tensor(np.array([1, 2], dtype=np.int8))",
    "torch.tensor(np.array([1, 2], dtype=np.uint8))", "torch.tensor(np.array([True, False]))",
    "torch.tensor(np.array([1.5, 2], dtype=np.float16))", "torch.tensor(np.array(2.5))",
    "torch.tensor(np.zeros((2, 0)))", "torch.tensor(np.array([[1, 2], [3, 4]]), dtype=torch.float32)",
    "torch.tensor(np.array([1.5, -2.5]), dtype=torch.int64)", "torch.tensor(np.array([1., 2.]), requires_grad=True)",
    "torch.tensor(np.float64(1.5))", "torch.tensor(np.float32(1.5))", "torch.tensor(np.int32(3))",
    "torch.tensor(np.int64(3))", "torch.tensor(np.bool_(True))",
    "torch.tensor([np.float64(1.5), np.float64(2)])", "torch.tensor([np.float32(1.5), 2])",
    "torch.tensor([np.int32(1), np.int32(2)])", "torch.tensor([np.int64(1), 2.5])", "torch.tensor([np.bool_(True)])",
    "torch.tensor([[np.float32(1)]])", "torch.tensor([np.array([1., 2.]), np.array([3., 4.])])",
    "torch.tensor([np.array([1, 2]), np.array([3, 4], dtype=np.int32)])",
    "torch.tensor([np.array(1.), np.array(2.)])", "torch.tensor([[1, 2], np.array([3, 4])])",
    "torch.tensor(np.array(['a']))", "torch.tensor(np.array([1, 'a'], dtype=object))",
    # from_numpy and as_tensor
    "torch.from_numpy(np.array([1., 2.], dtype=np.float32))", "torch.from_numpy(np.array([[1, 2]]))",
    "torch.from_numpy(np.float64(2.))", "torch.from_numpy([1, 2])",
    "torch.from_numpy(np.array([1, 'a'], dtype=object))",
    "torch.as_tensor(np.array([1, 2]))", "torch.as_tensor(np.array([1, 2]), dtype=torch.float32)",
    # the legacy constructors cast to their dtype
    "torch.Tensor(np.array([1, 2]))", "torch.Tensor(np.array(2.))", "torch.LongTensor(np.array([1.5, 2]))",
    "torch.ByteTensor(np.array([1, 2]))", "torch.BoolTensor(np.array([1, 0]))",
    "torch.DoubleTensor(np.array([1, 2], dtype=np.float32))", "torch.FloatTensor(np.float64(2.))",
    "torch.Tensor([np.array([1., 2.])])", "torch.LongTensor([np.float64(1.5)])",
    # Tensor.numpy() and np.array(tensor)
    "torch.tensor([1., 2.]).numpy()", "torch.tensor([1, 2]).numpy()", "torch.tensor(3.).numpy()",
    "torch.tensor([True]).numpy()", "torch.tensor([[1., 2.], [3., 4.]]).t().numpy()",
    "torch.tensor([1.], requires_grad=True).numpy()", "torch.tensor([1.], requires_grad=True).numpy(force=True)",
    "torch.tensor([1.], dtype=torch.bfloat16).numpy()", "torch.tensor([1.], dtype=torch.float16).numpy()",
    "np.array(torch.tensor([1., 2.]), dtype=np.float64)", "np.asarray(torch.tensor([1, 2]))",
    "np.array(torch.tensor([1.], requires_grad=True))", "type(torch.tensor([1., 2.]).numpy()[0])",
    "torch.tensor([1., 2.]).__array_priority__",
    # arithmetic: a tensor (op) an array is NumPy's computation, wrapped back as a tensor
    "torch.tensor([1., 2.]) + np.array([1., 2.])", "torch.tensor([1., 2.]) * np.array(2.)",
    "torch.tensor([1, 2]) * np.array([1.5, 2], dtype=np.float32)", "torch.tensor([1., 2.]) ** np.array([2., 2.])",
    "torch.tensor([1., 2.]) @ np.array([2., 2.])", "np.array([1., 2.]) / torch.tensor([1., 2.])",
    "np.array([1., 2.]) + torch.tensor([1., 2.])", "np.array([1., 2.]) * torch.tensor([1., 2.])",
    "np.array([1., 2.]) - torch.tensor([1., 2.])", "np.array([1., 2.]) ** torch.tensor([2., 2.])",
    "torch.tensor([1., 3.]) < np.array([2., 2.])", "torch.tensor([1., 2.]) == np.array([2., 2.])",
    "np.array([1., 2.]) == torch.tensor([2., 2.])", "torch.tensor([1, 2]) == np.array([1.5, 2])",
    "torch.tensor([1., 2.], requires_grad=True) * np.array([1., 2.])", "np.sin(torch.tensor([0., 1.]))",
    "torch.add(torch.tensor([1., 2.]), np.array([1., 2.]))",
    # NumPy scalars are the Python numbers PyTorch's parser reads
    "np.float32(2) * torch.tensor([1., 2.])", "np.float64(2) * torch.tensor([1., 2.])",
    "torch.tensor([1., 2.]) * np.float64(2)", "np.int64(2) * torch.tensor([1, 2])",
    "np.float64(2) + torch.tensor([1, 2])", "torch.tensor([1, 2]) + np.float64(2)",
    "torch.tensor([1, 2]) * np.int32(2)", "torch.tensor([1, 2]) * np.float32(2)",
    "torch.tensor([1, 2]) * np.bool_(True)", "np.float64(2) < torch.tensor([1., 3.])",
    "torch.tensor([1., 2.]) > np.float32(1.5)", "torch.tensor([4., 2.]) / np.int64(2)",
    "np.float32(1) - torch.tensor([1., 2.])", "2 ** torch.tensor([1., 2.]) + np.float32(0.5)",
    "torch.stack([torch.tensor(1.), np.float32(2)])",
    # indexing with arrays and NumPy integers; an array indexed by a tensor
    "torch.tensor([1., 2., 3.])[np.array([0, 2])]", "torch.tensor([1., 2., 3.])[np.array([True, False, True])]",
    "torch.tensor([1., 2., 3.])[np.int64(1)]", "torch.tensor([[1., 2.], [3., 4.]])[np.array([0, 1]), np.array([1, 0])]",
    "torch.tensor([1., 2.])[np.array(0)]", "torch.zeros(3)[np.array([[0, 1], [1, 2]])]",
    "torch.tensor([[1., 2.], [3., 4.]])[np.int64(1), 1:]",
    "np.array([1., 2., 3.])[torch.tensor([0, 2])]", "np.array([1., 2., 3.])[torch.tensor(1)]",
    # sizes given as NumPy integers
    "torch.zeros(np.int64(2))", "torch.zeros(np.array(2))", "torch.ones(np.array([2, 3]).shape)",
    "torch.arange(6.).reshape(np.int64(2), 3)", "torch.tensor(np.array([0.1], dtype=np.float32)).item()",
    # NumPy scalars as the numbers and ints of other arguments
    "torch.full((2,), np.float32(1.5))", "torch.clamp(torch.tensor([1., 2.]), min=np.float32(1.5))",
    "torch.add(torch.tensor([1., 2.]), np.float32(2))", "torch.mul(torch.tensor([1, 2]), np.int64(2))",
    "torch.pow(torch.tensor([1., 2.]), np.float64(2))", "torch.tensor([1., 2.]).fill_(np.float32(3))",
    "torch.arange(np.int64(3))", "torch.linspace(np.float64(0), np.float64(1), np.int64(3))",
    "torch.tensor([1., 2.]).view(np.int64(2), 1).shape", "torch.tensor([[1., 2.]]).sum(np.int64(1))",
    "torch.tensor([[1., 2.]]).sum(axis=np.int64(1))", "torch.tensor([1., 2.]).mul_(np.float64(2))",
    "torch.tensor([1., 2.]).add_(np.float32(2))", "torch.tensor([[1., 2.]]).transpose(np.int64(0), 1).shape",
    "torch.tensor([1., 2., 3.])[np.int64(0):np.int64(2)]", "torch.cat([torch.ones(1), torch.ones(1)], dim=np.int64(0))",
    "torch.tensor([1., 2.]).max(np.int64(0))", "torch.topk(torch.tensor([1., 3., 2.]), np.int64(2))",
    "torch.tensor([1., 2.]).unsqueeze(np.int64(0)).shape", "torch.zeros((np.int64(2), np.int64(1))).shape",
    "torch.tensor([1., 2.]).repeat(np.int64(2))", "torch.nn.Linear(np.int64(2), np.int64(1)).weight.shape",
    "torch.nn.functional.one_hot(torch.tensor([0, 1]), np.int64(3))",
    # assigned values: np.float64 and NumPy integers are numbers there, other NumPy values refused
    *[f"(lambda t: (t.__setitem__({i}, {v}), t)[1])(torch.zeros(2))" for i in ("0", "np.array([0, 1])")
      for v in ("np.float64(5)", "np.int64(5)", "np.bool_(True)", "np.float32(5)", "np.array(5.)", "'a'")],
    "(lambda t: (t.__setitem__(np.array([True, False, True]), 5.), t)[1])(torch.ones(3))",
    "(lambda t: (t.__setitem__(0, torch.from_numpy(np.array([1., 2.]))), t)[1])(torch.zeros(2, 2))",
    # an array's layout: a shared array's strides as they are (a slice's too, so view() refuses it),
    # a copy's as .to(copy=True) makes them (dense kept, sliced made contiguous)
    "torch.from_numpy(np.arange(6.).reshape(2, 3).T).stride()",
    "torch.from_numpy(np.zeros((2, 3, 4)).transpose(2, 0, 1)).stride()",
    "(lambda a: torch.from_numpy(a[:, 0]).stride())(np.arange(30).reshape(2, 5, 3))",
    "(lambda a: torch.from_numpy(a[:, 0]).view(-1))(np.arange(30).reshape(2, 5, 3))",
    "(lambda a: torch.from_numpy(a[:, 0]).reshape(-1))(np.arange(30).reshape(2, 5, 3))",
    "torch.from_numpy(np.arange(6.).reshape(2, 3).T).view(-1)",
    "torch.from_numpy(np.arange(6.).reshape(2, 3).T).contiguous().view(-1)",
    "torch.tensor(np.arange(6.).reshape(2, 3).T).stride()",
    "torch.tensor(np.arange(6.).reshape(2, 3)[:, ::2]).stride()",
    "torch.as_tensor(np.arange(6.).reshape(2, 3)[:, ::2]).stride()",
    "torch.tensor(np.arange(6.).reshape(2, 3).T).is_contiguous()",
    # the legacy constructors share an array of their dtype (legacy_new_from_sequence), else copy it
    "(lambda a: (torch.LongTensor(a[:, 0]).stride(), torch.LongTensor(a[:, 0]).is_contiguous()))"
    "(np.arange(30).reshape(2, 5, 3))",
    "(lambda a: torch.LongTensor(a[:, 0]).view(-1))(np.arange(30).reshape(2, 5, 3))",
    "torch.DoubleTensor(np.arange(6.).reshape(2, 3)[:, ::2]).stride()",
    "torch.FloatTensor(np.arange(6.).reshape(2, 3)[:, ::2]).stride()",
    "torch.FloatTensor(np.arange(6.).reshape(2, 3).T).stride()",
    "torch.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3).T).reshape(-1)",
    "(lambda a: (lambda t: (a.__setitem__(0, 9), t * 1)[1])(torch.LongTensor(a)))(np.arange(3))",
    "(lambda a: (lambda t: (a.__setitem__(0, 9), t * 1)[1])(torch.Tensor(a)))(np.arange(3.))",
    "(lambda a: (lambda t: (a.__setitem__(0, 9), t * 1)[1])(torch.Tensor(a)))(np.arange(3., dtype=np.float32))",
    "(lambda a: (lambda t: (t.add_(1), a)[1])(torch.FloatTensor(a)))(np.ones(2, dtype=np.float32))",
    # writes through a strided array's tensor land on the array's elements, and back
    "(lambda a: (lambda t: (t.__setitem__((0, 1), 7.), t[:, 1].mul_(2), a)[2])(torch.from_numpy(a.T)))"
    "(np.arange(6.).reshape(2, 3))",
    "(lambda x: (lambda t: (t.add_(9), x.__setitem__((1, 0, 2), -1), t * 1)[2])(torch.LongTensor(x[:, 0])))"
    "(np.arange(30).reshape(2, 5, 3))",
]


def _outcome(torch, expr: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            v = eval(expr, {"torch": torch, "np": np})
        except Exception as e:  # the outcome compared is the error itself
            return "error", type(e).__name__, str(e)
    if isinstance(v, np.ndarray):
        return "array", repr(v), v.dtype.name, v.shape
    return "value", repr(v), type(v).__name__, str(getattr(v, "dtype", ""))


@pytest.mark.parametrize("expr", CASES)
def test_numpy_interop_is_pytorchs(torch_ref, expr):
    assert _outcome(scalargrad, expr) == _outcome(torch_ref, expr)


def test_refused_numpy_dtypes_are_named():
    # PyTorch converts these; scalargrad has neither complex nor wide unsigned dtypes
    for dt in ("uint16", "uint32", "uint64"):
        with pytest.raises(Unsupported, match=f"the dtype torch.{dt}"):
            scalargrad.tensor(np.array([1, 2], dtype=dt))
    with pytest.raises(Unsupported, match="complex numbers"):
        scalargrad.from_numpy(np.array([1 + 2j]))


_WARNING_PROGRAM = (
    "import numpy as np\n"
    "torch.tensor([np.array([1., 2.]), np.array([3., 4.])])\n"
    "torch.FloatTensor([np.array([1., 2.])])\n"  # once a process (TORCH_WARN_ONCE)
    "a = np.array([1., 2.]); a.flags.writeable = False\n"
    "torch.from_numpy(a)\n"
    "torch.as_tensor(a)\n"
)


def _stderr_of(module: str) -> str:
    code = f"import {module} as torch\n" + _WARNING_PROGRAM
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def test_numpy_warnings_are_pytorchs_on_the_programs_line(torch_ref):
    ours = _stderr_of("scalargrad")
    assert ours == _stderr_of("torch")
    assert ours.count("UserWarning") == 2 and "<string>:3: UserWarning: Creating a tensor from a list" in ours


# ---------------------------------------------------------------- shared memory
# PyTorch's from_numpy/as_tensor/numpy() share memory. scalargrad's rule: a write to the tensor
# (through any alias) is copied into the array; a write to a small array is seen by the next read
# of the tensors; a large array is read-only while a tensor of that memory lives, and writable
# again (if it was) once none does.

def _program(torch) -> list:
    out = []
    a = np.array([1., 2.])
    t = torch.from_numpy(a)
    t.add_(1)
    out.append(a.tolist())  # the tensor's write reached the array
    t2 = torch.tensor([1., 2., 3.])
    n, tail = t2.numpy(), t2[1:].numpy()
    t2.mul_(2)
    t2[2] = 10.
    out += [n.tolist(), tail.tolist()]
    c = np.array([[1., 2.], [3., 4.]])
    tc = torch.as_tensor(c)
    tc.t_()
    tc.add_(1)
    out.append(c.tolist())
    w = torch.nn.Parameter(torch.from_numpy(np.array([1., 2.], dtype=np.float32)))
    seen = w.detach().numpy()
    opt = torch.optim.SGD([w], lr=0.25)
    (w * w).sum().backward()
    opt.step()
    out.append(seen.tolist())  # the optimizer's step, through the parameter
    return out


def test_writes_to_the_tensor_reach_the_array_as_in_pytorch(torch_ref):
    assert _program(scalargrad) == _program(torch_ref) == [[2., 3.], [2., 4., 10.], [4., 10.],
                                                           [[2., 3.], [4., 5.]], [0.5, 1.0]]


def _writes_to_the_array(torch) -> list:
    """The tutorials' NumPy bridge (``np.add(n, 1, out=n)``) and writes through arrays into views,
    transposes, 0-dim elements, integer and bool memory, each read back through the tensors."""
    out = []
    n = np.ones(5)
    t = torch.from_numpy(n)
    np.add(n, 1, out=n)
    out.append(repr(t))
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = torch.from_numpy(a)
    row, tr, elem = t[1], t.t(), t[0, 2]
    a[1, 2] = -5.5
    a += 0.25
    out += [repr(t), repr(row), repr(tr), repr(elem), elem.item(), repr(t.sum()), repr(row * 2)]
    t.mul_(2)  # the tensor's write after the array's: both seen
    out.append(a.tolist())
    later = t[2:]
    a[2] = 100
    out.append(repr(later.mean()))
    part = row.numpy()
    part[0] = 9  # an array of a view, written: the base and the first array see it
    out += [repr(t), a.tolist()]
    i = np.array([1, 2, 3])
    ti = torch.from_numpy(i)
    np.multiply(i, 3, out=i)
    out.append(repr(ti + 1))
    b = np.array([True, False])
    tb = torch.from_numpy(b)
    b[1] = True
    out.append(repr(tb.all()))
    z = np.array(3.5)
    tz = torch.from_numpy(z)
    z[...] = 7
    out.append(tz.item())
    x = torch.ones(4)
    y = x.numpy()
    y[:] = [1, 2, 3, 4]
    out += [repr(x.pow(2)), x.argmax().item(), x._version]  # NumPy's writes move no version counter
    m = np.ones((2, 2))
    w = torch.from_numpy(m).requires_grad_()
    m[0, 0] = 3
    loss = (w * w).sum()
    loss.backward()
    out += [repr(w.grad), repr(loss)]
    return out


def test_writes_to_the_array_reach_the_tensor_as_in_pytorch(torch_ref):
    assert _writes_to_the_array(scalargrad) == _writes_to_the_array(torch_ref)


def test_a_large_shared_array_is_read_only_while_its_tensor_lives(monkeypatch):
    # Comparing an array with its last copy on every read would cost a copy of it per op, so an
    # array of more than WRITABLE_ARRAY_LIMIT elements is read-only while shared: NumPy refuses
    # the write rather than let the tensor diverge from it.
    monkeypatch.setattr(storage, "WRITABLE_ARRAY_LIMIT", 1)
    a = np.array([1., 2.])
    t = scalargrad.from_numpy(a)
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 5.
    assert t.tolist() == [1., 2.]
    n = t.numpy()
    with pytest.raises(ValueError, match="read-only"):
        n += 1
    del t
    gc.collect()
    assert a.flags.writeable and n.flags.writeable  # no tensor can see the memory any more
    a[0] = 5.
    assert a.tolist() == [5., 2.]



def test_the_array_a_large_shared_view_views_is_read_only_too(monkeypatch):
    # from_numpy(big[:, 0]): a write through ``big`` changes the view's memory, which the tensor
    # would not see (a large view's bytes are not compared); NumPy refuses it while the tensor lives,
    # the tensor's own writes still reach both, and ``big`` is writable again afterwards
    monkeypatch.setattr(storage, "WRITABLE_ARRAY_LIMIT", 1)
    big = np.zeros((3, 2))
    t = scalargrad.from_numpy(big[:, 0])
    u = scalargrad.from_numpy(big[:, 1])  # a second view of the same array
    with pytest.raises(ValueError, match="read-only"):
        big[0, 0] = 5.
    t[1] = 3.
    assert big[:, 0].tolist() == [0., 3., 0.] and t.tolist() == [0., 3., 0.]
    del t
    gc.collect()
    with pytest.raises(ValueError, match="read-only"):  # u still views it
        big[0, 1] = 5.
    del u
    gc.collect()
    big[0, 0] = 7.
    assert big.flags.writeable and big[0, 0] == 7.

def test_an_array_from_a_temporary_is_writable():
    layer = scalargrad.nn.Linear(2, 1)
    y = layer(scalargrad.ones(1, 2)).detach().numpy()
    gc.collect()
    y[y > -1e9] = 1.
    assert y.tolist() == [[1.]]


def test_an_array_that_was_read_only_is_never_written():
    a = np.array([1., 2.])
    a.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = scalargrad.from_numpy(a)
    with pytest.raises(Unsupported, match="a read-only NumPy array"):
        t.add_(1)
    assert t.tolist() == [1., 2.] and a.tolist() == [1., 2.]  # nothing half-applied
    del t
    gc.collect()
    assert not a.flags.writeable


def test_a_copy_does_not_share():
    a = np.array([1., 2.])
    t = scalargrad.tensor(a)
    assert a.flags.writeable
    t.add_(1)
    assert a.tolist() == [1., 2.]
    b = scalargrad.tensor([1., 2.]).numpy().astype("float64")
    assert b.flags.writeable


# ---------------------------------------------------------------- utils.data

def _batches(torch) -> list:
    class Points(torch.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return np.array([i, i + 0.5]), np.int64(i), np.float32(i / 4)

    out = []
    for x, y, z in torch.utils.data.DataLoader(Points(), batch_size=2):
        out.append((repr(x), repr(y), repr(z)))
    for x, y, z in torch.utils.data.DataLoader(Points(), batch_size=None):
        out.append((repr(x), repr(y), repr(z)))
        break
    data = torch.utils.data.TensorDataset(torch.from_numpy(np.arange(6.).reshape(3, 2)),
                                          torch.from_numpy(np.array([0, 1, 0])))
    out.append(repr(next(iter(torch.utils.data.DataLoader(data, batch_size=3)))))
    return out


def test_dataloader_batches_arrays_as_pytorch(torch_ref):
    assert _batches(scalargrad) == _batches(torch_ref)


# ---------------------------------------------------------------- NumPy stays optional

def test_scalargrad_imports_numpy_only_to_build_an_array():
    code = ("import sys, scalargrad as torch\n"
            "t = torch.tensor([1., 2.]) * 2; torch.nn.Linear(2, 1)(t)\n"
            "assert 'numpy' not in sys.modules, 'imported'\n"
            "sys.modules['numpy'] = None\n"
            "try:\n    t.numpy()\nexcept RuntimeError as e:\n    print(e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Numpy is not available\n"  # PyTorch's words when NumPy is missing
