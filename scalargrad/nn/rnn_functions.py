"""The recurrent layers' computation, composed of tensor ops as ATen's CPU code composes it (RNN.cpp).

A cell is one step: ``tanh/relu(W_hh h + b_hh + W_ih x + b_ih)``; LSTM's gates i, f, g, o from one
product split in four (``c' = f * c + i * g``, ``h' = o * tanh(c')``, then ``W_hr h'`` with projections);
GRU's r, z, n from two products split in three (``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``,
``h' = (h - n) * z + n``). A layer applies ``W_ih x + b_ih`` to the whole sequence at once (ATen's CPU
path), runs the cell step by step and stacks the outputs (``StackBackward0``); the reverse direction
runs over the reversed steps, and a bidirectional layer concatenates both along the features. Layers
are stacked with dropout between them in training, drawn as ``at::dropout`` draws. Packed sequences
run step by step on the batch sizes, shrinking (forward) or growing (reverse) the hidden state.
Gradients come from the ops; the values of the products, ``tanh`` and ``sigmoid`` are
machine-dependent in PyTorch itself (MKL).
"""

from __future__ import annotations

from .._tensor import products
from .._tensor.joins import cat, stack
from .._tensor.tensor import Tensor
from . import functional as F

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "run_layers"]


class CellParams:
    """One direction of one layer: its weights, biases (or None) and LSTM's projection (or None)."""

    __slots__ = ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None) -> None:
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, x: Tensor) -> Tensor:
        return products.linear(x, self.w_ih, self.b_ih)

    def linear_hh(self, h: Tensor) -> Tensor:
        return products.linear(h, self.w_hh, self.b_hh)

    def matmul_hr(self, h: Tensor) -> Tensor:
        return h if self.w_hr is None else h.matmul(self.w_hr.t())


def _simple(act):
    def cell(x: Tensor, h: Tensor, p: CellParams, pre: bool = False) -> Tensor:
        return act(p.linear_hh(h) + (x if pre else p.linear_ih(x)))
    return cell


_tanh_step = _simple(lambda t: t.tanh())
_relu_step = _simple(lambda t: t.relu())


def _lstm_step(x: Tensor, hidden: tuple, p: CellParams, pre: bool = False) -> tuple:
    hx, cx = hidden
    gates = p.linear_hh(hx) + (x if pre else p.linear_ih(x))
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    hy = p.matmul_hr(o * cy.tanh())
    return hy, cy


def _gru_step(x: Tensor, h: Tensor, p: CellParams, pre: bool = False) -> Tensor:
    ig = (x if pre else p.linear_ih(x)).chunk(3, 1)
    hg = p.linear_hh(h).chunk(3, 1)
    r = (hg[0] + ig[0]).sigmoid()
    z = (hg[1] + ig[1]).sigmoid()
    n = (ig[2] + hg[2] * r).tanh()
    return (h - n) * z + n


STEPS = {"RNN_TANH": _tanh_step, "RNN_RELU": _relu_step, "LSTM": _lstm_step, "GRU": _gru_step}


def _check_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, gates: int, label: str = "0") -> None:
    """ATen's checks of a cell's operands, in its words."""
    hidden = w_hh.shape[1]
    if w_ih.shape[0] != gates * hidden:
        raise RuntimeError(f"weight_ih first dim must be {gates} * hidden_size = {gates * hidden}, "
                           f"but got {w_ih.shape[0]}")
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    if input.shape[0] != hx.shape[0]:
        raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{label} batch size {hx.shape[0]}")
    if hx.shape[1] != hidden:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.shape[1]}, expected {hidden}")


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """``torch.rnn_tanh_cell``: tanh(W_hh h + b_hh + W_ih x + b_ih) (TanhBackward0)."""
    _check_cell(input, hx, w_ih, w_hh, 1)
    return _tanh_step(input, hx, CellParams(w_ih, w_hh, b_ih, b_hh))


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """``torch.rnn_relu_cell``: relu(W_hh h + b_hh + W_ih x + b_ih) (ReluBackward0)."""
    _check_cell(input, hx, w_ih, w_hh, 1)
    return _relu_step(input, hx, CellParams(w_ih, w_hh, b_ih, b_hh))


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> tuple:
    """``torch.lstm_cell``: (h', c') with gates i, f, g, o (MulBackward0, AddBackward0)."""
    _check_cell(input, hx[0], w_ih, w_hh, 4, "0")
    _check_cell(input, hx[1], w_ih, w_hh, 4, "1")
    return _lstm_step(input, tuple(hx), CellParams(w_ih, w_hh, b_ih, b_hh))


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """``torch.gru_cell``: h' = (h - n) * z + n with gates r, z, n (AddBackward0)."""
    _check_cell(input, hx, w_ih, w_hh, 3)
    return _gru_step(input, hx, CellParams(w_ih, w_hh, b_ih, b_hh))


def _output(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _steps(step, inputs, hidden, p):
    outputs = []
    for x in inputs:
        hidden = step(x, hidden, p, True)
        outputs.append(_output(hidden))
    return outputs, hidden


def _full_layer(step, x: Tensor, hidden, p: CellParams, reverse: bool = False):
    """One direction over a (seq, batch, features) tensor: the stacked outputs and the last hidden."""
    inputs = p.linear_ih(x).unbind(0)
    if not inputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    outputs, hidden = _steps(step, inputs[::-1] if reverse else inputs, hidden, p)
    return stack(outputs[::-1] if reverse else outputs, 0), hidden


def _slice(hidden, start: int, end: int):
    if isinstance(hidden, tuple):
        return tuple(t.narrow(0, start, end - start) for t in hidden)
    return hidden.narrow(0, start, end - start)


def _concat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(cat([h[k] for h in hiddens], 0) for k in range(len(hiddens[0])))
    return cat(hiddens, 0)


def _packed_layer(step, data: Tensor, sizes: list, hidden, p: CellParams):
    """ATen's PackedLayer: the batch shrinks as sequences end; their last hiddens are kept."""
    xw, offset, last, outputs, finished = p.linear_ih(data), 0, sizes[0], [], []
    for size in sizes:
        x = xw.narrow(0, offset, size)
        offset += size
        if last > size:
            finished.append(_slice(hidden, size, last))
            hidden = _slice(hidden, 0, size)
        last = size
        hidden = step(x, hidden, p, True)
        outputs.append(_output(hidden))
    finished.append(hidden)
    return cat(outputs, 0), _concat(finished[::-1])


def _reversed_packed_layer(step, data: Tensor, sizes: list, initial, p: CellParams):
    """ATen's ReversedPackedLayer: from the last step back, the batch grows from the initial hidden."""
    xw, offset, last, outputs = p.linear_ih(data), data.shape[0], sizes[-1], []
    hidden = _slice(initial, 0, sizes[-1])
    for size in reversed(sizes):
        if size > last:
            hidden = _concat([hidden, _slice(initial, last, size)])
        x = xw.narrow(0, offset - size, size)
        offset -= size
        last = size
        hidden = step(x, hidden, p, True)
        outputs.append(_output(hidden))
    return cat(outputs[::-1], 0), hidden


def _layer(step, x, sizes, hiddens, params):
    """One layer, one or two directions: (output, [final hidden per direction])."""
    if sizes is None:
        out, h = _full_layer(step, x, hiddens[0], params[0])
        if len(params) == 1:
            return out, [h]
        rev, hr = _full_layer(step, x, hiddens[1], params[1], reverse=True)
        return cat([out, rev], out.dim() - 1), [h, hr]
    out, h = _packed_layer(step, x, sizes, hiddens[0], params[0])
    if len(params) == 1:
        return out, [h]
    rev, hr = _reversed_packed_layer(step, x, sizes, hiddens[1], params[1])
    return cat([out, rev], -1), [h, hr]


def run_layers(mode: str, x: Tensor, hx, params: list, num_layers: int, dropout: float, train: bool,
               bidirectional: bool, batch_sizes: list | None = None) -> tuple:
    """``_VF.rnn_tanh/rnn_relu/gru/lstm`` on a (seq, batch, features) tensor (or a packed one's data
    with its batch sizes): (output, h_n) or, for LSTM, (output, h_n, c_n), the hiddens stacked."""
    step, dirs = STEPS[mode], 2 if bidirectional else 1
    if mode == "LSTM":
        hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    else:
        hiddens = list(hx.unbind(0))
    finals = []
    for layer in range(num_layers):
        lo = layer * dirs
        x, h = _layer(step, x, batch_sizes, hiddens[lo:lo + dirs], params[lo:lo + dirs])
        finals.extend(h)
        if dropout != 0 and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    if mode == "LSTM":
        return x, stack([h[0] for h in finals], 0), stack([h[1] for h in finals], 0)
    return x, stack(finals, 0)
