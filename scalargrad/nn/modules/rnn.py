"""``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells, with PyTorch 2.13's parameters and checks.

The parameters are created in PyTorch's order and names (``weight_ih_l0``, ``weight_hh_l0``,
``bias_ih_l0``, ``bias_hh_l0``, then ``_reverse`` for the second direction, ``weight_hr_l0`` with
LSTM's projections) and drawn as ``reset_parameters`` draws them: uniform(-1/sqrt(hidden_size),
1/sqrt(hidden_size)) over ``self.parameters()`` in order, so ``torch.manual_seed(s)`` then
``nn.LSTM(...)`` gives PyTorch's numbers. The forward is ``rnn_functions.run_layers``: ATen's CPU
algorithm composed of tensor ops, so the gradients are the ops' own.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ..._base import dtypes
from ..._base.grad_mode import no_grad
from ..._base.warn_once import first_time
from ..._tensor.factories import empty, zeros
from ..._tensor.tensor import Tensor
from ..._tensor.tensor import defaults as _defaults
from .. import rnn_functions as R
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_PROJ_ONEDNN = ("LSTM with projections is not supported with oneDNN. Using default implementation. (Triggered "
                "internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)")
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


def _check_sizes(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size) -> None:
    """RNNBase's checks of its arguments, in PyTorch's order and words."""
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                      f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if name == "input_size" and input_size <= 0:
            raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, their initialisation, the checks, the repr."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None) -> None:
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.bidirectional, self.proj_size = bias, batch_first, bidirectional, proj_size
        self.dropout = float(dropout) if isinstance(dropout, numbers.Number) else dropout
        _check_sizes(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        dt = dtype if dtype is not None else _defaults["dtype"]
        dirs = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(dirs):
                layer_input = input_size if layer == 0 else real_hidden * dirs
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input)), ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(empty(shape, dtype=dt)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n) if hasattr(self, n) else None for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op on the CPU, as PyTorch's (it packs the weights for cuDNN)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        with no_grad():
            for weight in self.parameters():
                weight.uniform_(-stdv, stdv)

    def check_input(self, input: Tensor, batch_sizes) -> None:
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                             f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        dirs = 2 if self.bidirectional else 1
        return (self.num_layers * dirs, mini_batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation):
        return hx if permutation is None else _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _params(self) -> list:
        """One CellParams per layer and direction, from the current parameters."""
        out = []
        for names in self._all_weights:
            ws = [getattr(self, n) for n in names]
            w_hr = ws.pop() if self.proj_size > 0 else None
            b_ih, b_hh = (ws[2], ws[3]) if self.bias else (None, None)
            out.append(R.CellParams(ws[0], ws[1], b_ih, b_hh, w_hr))
        return out

    def _run(self, input: Tensor, hx, batch_sizes) -> tuple:
        """The layers on a (seq, batch, features) tensor or a packed one's data."""
        x = input
        if batch_sizes is None and self.batch_first:
            x = input.transpose(0, 1)
        sizes = None if batch_sizes is None else [int(b) for b in batch_sizes.tolist()]
        result = R.run_layers(self.mode, x, hx, self._params(), self.num_layers, self.dropout, self.training,
                              self.bidirectional, sizes)
        if batch_sizes is None and self.batch_first:
            # ATen's lstm transposes its output back out of place (TransposeBackward0), _rnn_impl
            # (RNN, GRU) in place (TransposeBackward1)
            out = result[0].transpose(0, 1) if self.mode == "LSTM" else result[0].transpose_(0, 1)
            result = (out, *result[1:])
        return result

    def _zeros(self, batch: int, size: int, like: Tensor) -> Tensor:
        dirs = 2 if self.bidirectional else 1
        return zeros(self.num_layers * dirs, batch, size, dtype=like.dtype)

    def _forward_one_hidden(self, input, hx, name: str):
        """RNN's and GRU's forward (one hidden state)."""
        orig = input
        if isinstance(orig, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            hx = self._zeros(int(batch_sizes[0]), self.hidden_size, input) if hx is None \
                else self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                                 f"{'tensor ' if name == 'RNN' else ''}instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                                           "tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            batch = input.size(0) if self.batch_first else input.size(1)
            if hx is None:
                hx = self._zeros(batch, self.hidden_size, input)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, hx, batch_sizes)
        if isinstance(orig, PackedSequence):
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), \
                self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output, hidden = output.squeeze(batch_dim), hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNN(RNNBase):
    """An Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_one_hidden(input, hx, "RNN")


class GRU(RNNBase):
    """A gated recurrent unit: gates r, z, n; h_t = (1 - z) * n + z * h_{t-1}."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_one_hidden(input, hx, "GRU")


class LSTM(RNNBase):
    """A long short-term memory: gates i, f, g, o; c_t = f * c_{t-1} + i * g, h_t = o * tanh(c_t)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: tuple, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: tuple, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        orig = input
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            batch = int(batch_sizes[0])
            hx = (self._zeros(batch, real_hidden, input), self._zeros(batch, self.hidden_size, input)) \
                if hx is None else self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            batch = input.size(0) if self.batch_first else input.size(1)
            if hx is None:
                hx = (self._zeros(batch, real_hidden, input), self._zeros(batch, self.hidden_size, input))
            else:
                d = 3 if is_batched else 2
                if hx[0].dim() != d or hx[1].dim() != d:
                    raise RuntimeError(f"For {'batched 3-D' if is_batched else 'unbatched 2-D'} input, hx and cx "
                                       f"should also be {d}-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                if not is_batched:
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, batch_sizes)
        if self.proj_size > 0 and input.dtype is dtypes.float32 and input.numel() != 0 \
                and first_time("lstm_proj_onednn"):  # ATen's TORCH_WARN_ONCE, on every x86-64 build
            warnings.warn(_PROJ_ONEDNN, UserWarning, stacklevel=1)
        output, h, c = self._run(input, hx, batch_sizes)
        if isinstance(orig, PackedSequence):
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), \
                self.permute_hidden((h, c), unsorted_indices)
        if not is_batched:
            output, h, c = output.squeeze(batch_dim), h.squeeze(1), c.squeeze(1)
        return output, (h, c)


class RNNCellBase(Module):
    """What the cells share: weight_ih, weight_hh, bias_ih, bias_hh, drawn as the layers' are."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        dt = dtype if dtype is not None else _defaults["dtype"]
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), dtype=dt))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), dtype=dt))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dt))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dt))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        with no_grad():
            for weight in self.parameters():
                weight.uniform_(-stdv, stdv)

    def _batched(self, input: Tensor, hx, name: str, what: str = "hidden"):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        hs = hx if isinstance(hx, tuple) else (hx,)
        for i, h in enumerate(hs):
            if h is not None and h.dim() not in (1, 2):
                label = f"hx[{i}]" if isinstance(hx, tuple) else what
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {h.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hs = (z, z) if name == "LSTMCell" else (z,)
        elif not is_batched:
            hs = tuple(h.unsqueeze(0) for h in hs)
        return input, hs, is_batched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, (h,), is_batched = self._batched(input, hx, "RNNCell")
        if self.nonlinearity == "tanh":
            ret = R.rnn_tanh_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = R.rnn_relu_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM: (h', c') from (x, (h, c))."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple:
        input, hs, is_batched = self._batched(input, None if hx is None else tuple(hx), "LSTMCell")
        h, c = R.lstm_cell(input, hs, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One step of a GRU: h' = (1 - z) * n + z * h."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, (h,), is_batched = self._batched(input, hx, "GRUCell")
        ret = R.gru_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
