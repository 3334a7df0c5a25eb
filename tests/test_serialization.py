"""torch.save / torch.load: scalargrad's plain-data format (no pickle), round trips, and refusals.

The round trips need no PyTorch: what is loaded must equal what was saved, value for value
(bit patterns included: -0.0, nan, float16, bfloat16, int64 extremes), type for type (int keys
of an optimizer's state, tuples, OrderedDict and its ``_metadata``), with memory sharing and
object identity kept. The conformance tests run the same program on PyTorch and scalargrad and
compare what each prints about the loaded objects.
"""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
from collections import Counter, OrderedDict

import pytest

import scalargrad as torch
from scalargrad import nn
from scalargrad.errors import Unsupported


def _round_trip(obj, **load_kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_kwargs)


def _bits(t) -> list:
    """Each element's IEEE bit pattern (float) or value (int/bool): equality that tells -0.0 and nan apart."""
    vals = t.reshape(-1).tolist()
    if t.dtype.is_floating_point:
        return [struct.pack("<d", v) for v in vals]
    return vals


def _same_tensor(a, b) -> None:
    assert type(a) is type(b)
    assert a.dtype is b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
    assert a.is_leaf and a.grad_fn is None
    assert _bits(a) == _bits(b)


def test_state_dict_round_trip_keeps_keys_values_and_metadata():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    sd = model.state_dict()
    back = _round_trip(sd, weights_only=True)
    assert type(back) is OrderedDict
    assert list(back) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for k in sd:
        _same_tensor(back[k], sd[k])
    assert back._metadata == sd._metadata == OrderedDict([("", {"version": 1}), ("0", {"version": 1}),
                                                          ("1", {"version": 1}), ("2", {"version": 1})])
    other = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    assert str(other.load_state_dict(back)) == "<All keys matched successfully>"
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), other.parameters()))


def test_optimizer_state_dict_round_trip_keeps_int_keys_and_tuples():
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))
    for _ in range(2):
        opt.zero_grad()
        model(torch.tensor([[1.0, -2.0]])).pow(2).sum().backward()
        opt.step()
    sd = opt.state_dict()
    back = _round_trip(sd)
    assert list(back["state"]) == [0, 1] and all(type(k) is int for k in back["state"])
    assert back["param_groups"] == sd["param_groups"]
    assert back["param_groups"][0]["betas"] == (0.8, 0.9) and type(back["param_groups"][0]["betas"]) is tuple
    for i in (0, 1):
        for k in ("step", "exp_avg", "exp_avg_sq"):
            _same_tensor(back["state"][i][k], sd["state"][i][k])
    # the loaded state resumes training exactly where the saved one was
    opt2 = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))
    opt2.load_state_dict(back)
    assert opt2.state_dict()["param_groups"] == sd["param_groups"]


def test_checkpoint_dict_with_a_computed_loss_loads_it_as_a_leaf():
    w = torch.tensor([1.5, -2.0], requires_grad=True)
    loss = (w * w).sum()
    ckpt = {"epoch": 7, "loss": loss, "lr": 0.1, "name": "run-1", "best": None, "done": False}
    back = _round_trip(ckpt)
    assert back["epoch"] == 7 and back["lr"] == 0.1 and back["name"] == "run-1"
    assert back["best"] is None and back["done"] is False
    # PyTorch too loads a saved non-leaf as a leaf that requires grad: tensor(6.2500, requires_grad=True)
    assert back["loss"].is_leaf and back["loss"].requires_grad and back["loss"].item() == 6.25
    assert repr(back["loss"]) == "tensor(6.2500, requires_grad=True)"


@pytest.mark.parametrize("dtype, values", [
    ("float32", [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, 3.4028234663852886e38]),
    ("float64", [0.1, -0.0, math.nan, 5e-324, 1.7976931348623157e308]),
    ("float16", [0.0, -0.0, 65504.0, 5.960464477539063e-08, math.inf]),
    ("bfloat16", [1.0, -0.0, 3.3895313892515355e38, 9.183549615799121e-41]),
    ("int64", [-(2 ** 63), 2 ** 63 - 1, 0]),
    ("int32", [-(2 ** 31), 2 ** 31 - 1]),
    ("int16", [-32768, 32767]),
    ("int8", [-128, 127]),
    ("uint8", [0, 255]),
    ("bool", [True, False]),
])
def test_every_dtype_round_trips_bit_for_bit(dtype, values):
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    _same_tensor(_round_trip(t), t)


def test_raw_bytes_are_little_endian_ieee_as_documented():
    buf = io.BytesIO()
    torch.save({"a": torch.tensor([1.0, -2.0]), "b": torch.tensor([1, 256], dtype=torch.int16)}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        assert z.read("scalargrad/format") == b"scalargrad-save 1\n"
        header = json.loads(z.read("scalargrad/object.json"))
        # 1.0 = 0x3f800000, -2.0 = 0xc0000000 (binary32), little-endian; int16 1 and 256
        assert z.read("scalargrad/data/0") == bytes.fromhex("0000803f000000c0")
        assert z.read("scalargrad/data/1") == bytes.fromhex("01000001")
    assert header["storages"] == [{"dtype": "float32", "numel": 2}, {"dtype": "int16", "numel": 2}]
    assert header["object"] == {"kind": "dict", "items": [["a", {"kind": "tensor", "index": 0}],
                                                          ["b", {"kind": "tensor", "index": 1}]]}
    assert "pickle" not in buf.getvalue().decode("latin-1")


def test_saving_the_same_object_twice_writes_the_same_bytes():
    torch.manual_seed(0)
    sd = nn.Linear(2, 2).state_dict()
    a, b = io.BytesIO(), io.BytesIO()
    torch.save(sd, a)
    torch.save(sd, b)
    assert a.getvalue() == b.getvalue()


def test_plain_values_round_trip_with_their_types():
    obj = [1, 2.5, -0.0, math.inf, -math.inf, "ü", None, True, (1, (2,)), {3: "x", "y": [4]}, {1, 2},
           frozenset({"a"}), b"\x00\xff", torch.float64, torch.int64, torch.Size([2, 3]), torch.device("cpu"),
           2 ** 70]
    back = _round_trip(obj)
    assert back[:3] == obj[:3] and struct.pack("<d", back[2]) == struct.pack("<d", -0.0)
    assert back[3:] == obj[3:]
    assert [type(v) for v in back] == [type(v) for v in obj]
    assert math.isnan(_round_trip(math.nan))
    assert repr(back[15]) == "torch.Size([2, 3])" and back[13] is torch.float64


def test_a_counter_round_trips_as_a_counter_under_weights_only():
    # PyTorch's weights_only loader allows collections.Counter (MultiStepLR keeps its milestones in one)
    milestones = Counter([30, 80, 80])
    for weights_only in (True, False):
        back = _round_trip({"milestones": milestones}, weights_only=weights_only)["milestones"]
        assert type(back) is Counter and back == milestones and list(back) == [30, 80]


def test_parameters_load_as_parameters_and_identity_is_kept():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    frozen = nn.Parameter(torch.tensor([3.0]), requires_grad=False)
    back = _round_trip([p, p, frozen])
    assert type(back[0]) is nn.Parameter and back[0] is back[1]
    assert back[0].requires_grad and not back[2].requires_grad
    assert repr(back[0]) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


def test_views_share_memory_again_after_loading():
    x = torch.arange(6.0).reshape(2, 3)
    back_x, back_row, back_t = _round_trip([x, x[1], x.t()])
    assert back_t.stride() == (1, 3) and not back_t.is_contiguous()
    back_row[0] = 100.0
    assert back_x.tolist() == [[0.0, 1.0, 2.0], [100.0, 4.0, 5.0]]
    assert back_t.tolist() == [[0.0, 100.0], [1.0, 4.0], [2.0, 5.0]]
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # the saved tensor is untouched
    # a state_dict's entries share memory with the model's parameters; loaded alone, each is its own
    sd = _round_trip(nn.Linear(2, 1).state_dict())
    sd["bias"].zero_()
    assert sd["weight"].abs().sum().item() > 0


def test_grad_is_not_saved():
    t = torch.tensor([1.0], requires_grad=True)
    t.sum().backward()
    assert _round_trip(t).grad is None


def test_save_and_load_through_a_path(tmp_path):
    path = tmp_path / "ckpt.pt"
    torch.save({"w": torch.tensor([0.5])}, path)
    assert torch.load(path)["w"].tolist() == [0.5]
    assert torch.load(str(path), map_location="cpu", mmap=True)["w"].tolist() == [0.5]
    assert torch.load(path, map_location=torch.device("cpu"))["w"].tolist() == [0.5]
    assert torch.load(path, map_location=lambda storage, loc: storage)["w"].tolist() == [0.5]
    assert torch.load(path, map_location={"cuda:0": "cpu"})["w"].tolist() == [0.5]


def test_whole_optimizers_and_local_functions_are_refused():
    # a whole Module is saved as data (test_save_whole_module.py); an optimizer object is not
    model = nn.Linear(1, 1)
    buf = io.BytesIO()
    with pytest.raises(Unsupported, match=r"torch.save of a whole optimizer \(SGD\)"):
        torch.save({"opt": torch.optim.SGD(model.parameters(), lr=0.1)}, buf)
    with pytest.raises(AttributeError, match=r"^Can't pickle local object 'test_whole_optimizers_and_local_functions"
                                             r"_are_refused.<locals>.<lambda>'$"):
        torch.save({"f": lambda: 0}, buf)
    assert buf.getvalue() == b""  # nothing half written
    loop: list = []
    loop.append(loop)
    with pytest.raises(Unsupported, match="contains itself"):
        torch.save(loop, buf)


def test_bad_files_and_arguments_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        torch.load(tmp_path / "missing.pt")
    with pytest.raises(RuntimeError, match=f"Parent directory {tmp_path / 'no'} does not exist."):
        torch.save(torch.tensor(1.0), tmp_path / "no" / "x.pt")
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like object"):
        torch.save(torch.tensor(1.0), 5)
    with pytest.raises(AttributeError, match="'int' object has no attribute 'seek'. You can only torch.load"):
        torch.load(5)
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        torch.load(io.BytesIO(), mmap=True)
    with pytest.raises(EOFError):
        torch.load(io.BytesIO())
    with pytest.raises(RuntimeError, match="neither a zip archive nor a pickle stream"):
        torch.load(io.BytesIO(b"garbage"))
    buf = io.BytesIO()
    torch.save(torch.tensor(1.0), buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match=r"Attempting to deserialize object on a CUDA device but "
                                           r"torch.cuda.is_available\(\) is False"):
        torch.load(buf, map_location="cuda")


def test_pytorchs_pickle_formats_are_recognised_not_read():
    fake = io.BytesIO()
    with zipfile.ZipFile(fake, "w") as z:  # PyTorch's layout: <name>/data.pkl beside data/<k>
        z.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
        z.writestr("archive/data/0", b"\x00\x00\x80\x3f")
    fake.seek(0)
    with pytest.raises(Unsupported, match=r"written by PyTorch's torch.save \(a zip archive whose objects are "
                                          r"pickled \(data.pkl\)\)"):
        torch.load(fake)
    with pytest.raises(Unsupported, match=r"a pickle stream \(PyTorch's format before 1.6\)"):
        torch.load(io.BytesIO(b"\x80\x02\x8a\nl\xfc\x9cF\xf9 j\xa8P\x19."))


def test_runs_under_the_torch_alias(tmp_path):
    from scalargrad.runner import run_path

    prog = tmp_path / "prog.py"
    prog.write_text("import io, torch\nfrom torch.serialization import save, load\nb = io.BytesIO()\n"
                    "save([torch.tensor(2.0)], b)\nb.seek(0)\nassert load(b)[0].item() == 2.0\n")
    assert run_path(str(prog)).ok


# ---------------------------------------------------------------- against PyTorch


def _program(torch_mod, nn_mod) -> str:
    """One program, run with either library: what it prints about the loaded objects."""
    out = []
    torch_mod.manual_seed(0)
    model = nn_mod.Sequential(nn_mod.Linear(3, 2), nn_mod.Tanh(), nn_mod.Linear(2, 1))
    opt = torch_mod.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch_mod.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    buf = io.BytesIO()
    torch_mod.save({"epoch": 1, "model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(),
                    "loss": loss, "shapes": [torch_mod.Size([2, 3]), (torch_mod.float64, None)]}, buf)
    buf.seek(0)
    ckpt = torch_mod.load(buf, weights_only=True)
    out.append(repr(ckpt))
    out.append(repr(ckpt["model_state_dict"]._metadata))
    model2 = nn_mod.Sequential(nn_mod.Linear(3, 2), nn_mod.Tanh(), nn_mod.Linear(2, 1))
    out.append(str(model2.load_state_dict(ckpt["model_state_dict"])))
    opt2 = torch_mod.optim.SGD(model2.parameters(), lr=0.5)
    opt2.load_state_dict(ckpt["optimizer_state_dict"])
    out.append(repr(opt2.state_dict()))
    out.append(repr(model2(x)))
    t = torch_mod.arange(6.0).reshape(2, 3)
    buf = io.BytesIO()
    torch_mod.save([t, t[1], t.t(), nn_mod.Parameter(torch_mod.tensor([1.0]))], buf)
    buf.seek(0)
    a, row, tt, p = torch_mod.load(buf)
    row.mul_(10)
    out.append(repr((a, tt, tt.stride(), p, p.requires_grad)))
    return "\n".join(out)


def test_loaded_checkpoints_print_as_pytorchs(torch_ref):
    assert _program(torch, nn) == _program(torch_ref, torch_ref.nn)


def test_pytorchs_own_files_are_refused_by_name(torch_ref, tmp_path):
    path = tmp_path / "pytorch.pt"
    torch_ref.save(torch_ref.nn.Linear(2, 1).state_dict(), path)
    with pytest.raises(Unsupported, match=r"torch.load of a file written by PyTorch's torch.save \(a zip archive "
                                          r"whose objects are pickled \(data.pkl\)\)"):
        torch.load(path)
    torch_ref.save(torch_ref.tensor([1.0]), path, _use_new_zipfile_serialization=False)
    with pytest.raises(Unsupported, match=r"a pickle stream \(PyTorch's format before 1.6\)"):
        torch.load(path)


def test_missing_file_error_is_pytorchs(torch_ref, tmp_path):
    missing = str(tmp_path / "nope.pt")
    with pytest.raises(FileNotFoundError) as ours:
        torch.load(missing)
    with pytest.raises(FileNotFoundError) as theirs:
        torch_ref.load(missing)
    assert str(ours.value) == str(theirs.value)


def test_safe_globals_are_recorded_and_need_nothing():
    from scalargrad import serialization

    serialization.clear_safe_globals()
    with serialization.safe_globals([OrderedDict]):
        assert serialization.get_safe_globals() == [OrderedDict]
        assert _round_trip(OrderedDict(a=1), weights_only=True) == OrderedDict(a=1)
    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([dict])
    assert serialization.get_safe_globals() == [dict]
    serialization.clear_safe_globals()


def test_a_name_of_torch_serialization_not_built_is_unsupported_by_name():
    """torch.serialization.skip_data (a docstring example) is named, not a bare AttributeError."""
    with pytest.raises(Unsupported, match=r"torch\.serialization\.skip_data"):
        torch.serialization.skip_data()
    assert not hasattr(torch.serialization, "__no_such_dunder__")
