"""Elementwise ops: each output element is a function of the elements at the same position of
the (broadcast) inputs. This module holds what every elementwise family shares (the base
classes, the spellings helper, PyTorch's bool refusals); the ops are declared by their families:
``arithmetic.py`` (+ - * / ** // % and the bitwise ops), ``unary.py`` (log, exp, sqrt, tanh,
sigmoid, relu, abs, sin...), ``comparison.py`` (== < ..., where, minimum/maximum, clamp),
``pointwise.py``, ``rounding.py``, ``angles.py``, ``activations.py``.

Besides the base's declarations (see ``table.py``), an elementwise op says how its result
dtype follows from its inputs' (``result``: "same" as the promoted inputs, "float" where an
integer input gives the default float dtype, "bool" for comparisons), and may name a C-level
function (``fast``) that computes its float64 elements in bulk; ``forward`` stays the IEEE-
safe reference that handles what ``fast`` raises on (division by zero, overflow, log(0)).

The formulas follow PyTorch's ``derivatives.yaml`` / ``FunctionsManual.cpp`` term for term,
in the same evaluation order, so float32 gradients round exactly as PyTorch's do.
"""

from __future__ import annotations

from .table import Api, Op

__all__ = ["Elementwise", "Unary", "Binary", "WithNumber", "spellings", "BOOL_SUB", "BOOL_SUB2", "BOOL_NEG",
           "NUMBER_OTHER", "NUMBER_EITHER", "TENSOR_OTHER"]


class Elementwise(Op):
    """An op computed element by element over broadcast inputs."""

    result = "same"  # "same" | "float" | "bool"
    fast = None  # a C function of the double elements, for bulk float64 (None: use forward)
    fast64 = None  # the same for float64 alone, where ``fast`` is not correctly rounded
    with_number = None  # the declaration of ``tensor (op) number``, if the op has one
    number_first = None  # the declaration of ``number (op) tensor``
    numbers_only = False  # ``torch.mul(2.0, 3.0)``: the function takes two Python numbers
    bool_error = None  # PyTorch's refusal of bool operands, if any
    bool_kernel = None  # the ATen kernel that refuses a bool computation ('"abs_cpu" not implemented')
    float_only_kernel = None  # the ATen kernel that refuses integer tensors ('"frac_cpu" not implemented for 'Long'')
    integer_kernel = None  # the ATen kernel of an op built for integers and bool alone (bitwise ops)
    arity = 1
    uses_c = False  # forward and backward read the node's constant ``_c``
    # how PyTorch allocates ``tensor (op) number``'s result: None keeps the input's strides (a
    # binary TensorIterator with a 0-dim operand); "unary": row-major for a contiguous input, also
    # at dims of size 1 (TensorIterator's fast setup of one operand); "contiguous": always row-major
    number_layout = None
    bulk_number = None  # (dtype, elements, number) -> rounded elements, for ``tensor (op) number``
    takes_alpha = False  # add/sub: ``alpha`` multiplies the other operand
    other_tensor_only = False  # the other operand must be a tensor (minimum, maximum)
    other_name = "other"  # PyTorch's name of the second operand, in keywords and messages (heaviside: values)
    # the torch function's Python signatures as PyTorch lists them when none takes a call, where it
    # has several (a Number overload): the TypeError of _tensor/arg_parser.py; () for one signature;
    # a dict {spelling: signatures} where only some spellings list theirs (subtract, not sub)
    signatures: tuple | dict = ()
    # (elements, _c) -> the size of the terms an intermediate rounding touches, for ops that
    # round inside one element (addcmul): the SymPy check's forward tolerance scales with it
    magnitude = None
    # ``by_position(dt, columns, n, c)`` -> the n rounded elements, for the kernels whose vectorised
    # and scalar code round differently (``forward`` is the scalar code): None for most ops
    by_position = None
    # the declaration ``x.op_()`` runs, where PyTorch's in-place form is a node of its own
    # (``AsinhBackward1``, with no derivative): None for the op itself
    inplace_op = None
    same_dtype_error = None  # PyTorch's refusal of two tensors of different dtypes (heaviside)


class Unary(Elementwise):
    arity = 1


class Binary(Elementwise):
    arity = 2
    grad_order = (1, 0)  # (self, other), (self, exponent), (self, min): the second one's first


class WithNumber(Elementwise):
    """``tensor (op) number``: one tensor input, the number in ``_c``."""

    arity = 1
    uses_c = True
    extra_none = 1


def spellings(method, inplace=True, function=True, aliases=(), functional=None) -> Api:
    """An elementwise op's spellings: ``x.op()``, ``x.op_()`` and ``torch.op`` by default."""
    # an alias is a spelling of the function too (torch.subtract, torch.multiply)
    return Api(method=method, aliases=aliases, inplace=(method + "_") if inplace else None,
               function=(method,) + tuple(aliases) if function is True else function, functional=functional)


BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")
BOOL_SUB2 = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.")
BOOL_NEG = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")


# PyTorch's listings of binary ops with a Scalar overload (native_functions.yaml's .Scalar and
# .Scalar_Tensor variants; with or without an out= form)
TENSOR_OTHER = "(Tensor input, Tensor other, *, Tensor out = None)"
NUMBER_OTHER = (TENSOR_OTHER, "(Tensor input, Number other, *, Tensor out = None)")  # eq, fmod, copysign
NUMBER_EITHER = (TENSOR_OTHER, "(Number self, Tensor other)",
                 "(Tensor input, Number other, *, Tensor out = None)")  # remainder, bitwise ops
