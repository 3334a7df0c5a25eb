"""scalargrad: PyTorch's autograd and nn.Module in pure Python, every gradient proved by SymPy.

``import scalargrad as torch`` runs a PyTorch program and prints what PyTorch prints.

The package is built in layers, each importing only the ones below it (``tests/test_layers.py``):
``_base`` (numbers, dtypes, layouts, grad mode), ``_ops`` (the op table), ``_tensor`` (the
Tensor and its surface), ``_autograd`` (kernels, engine, Function); then the public modules
(``autograd``, ``nn``, ``random``...), ``symbolic``, and the command line on top.
"""

from __future__ import annotations

from . import _C, __future__, autograd, cuda, random  # torch.__future__: the module, not Python's
from . import _autograd as _autograd_layer  # binds Tensor.backward and the kernels
from ._autograd import api as _api
from ._base.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from ._base.determinism import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled,
    use_deterministic_algorithms,
)
from ._base.dtypes import (  # torch's names
    Size,
    bfloat16,
    bool,
    cdouble,
    cfloat,
    chalf,
    complex32,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
)
from ._base.errors import Unsupported as _Unsupported
from ._base.formatting import set_printoptions
from ._base.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ._base.missing_api import missing_attribute
from ._base.presentation import present_as_torch
from ._base.rng import initial_seed, manual_seed, seed
from ._base.threads import (
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    set_float32_matmul_precision,
    set_num_interop_threads,
    set_num_threads,
)
from ._base.warn_once import is_warn_always_enabled, set_warn_always
from ._tensor import complex_numbers as _complex_numbers
from ._tensor import surface as _surface
from ._tensor.generator import Generator, default_generator, get_rng_state, set_rng_state
from ._tensor.operands import MAX_ELEMENTS
from ._tensor.raw_storage import TypedStorage, UntypedStorage
from ._tensor.tensor import Tensor, get_default_dtype, is_tensor, set_default_dtype
from ._tensor.type_info import finfo, iinfo
from ._tensor.typename import typename
from .version import __version__  # PyTorch's, as programs expect; scalargrad's: version.scalargrad_version

globals().update(_surface.FUNCTIONS)
# PyTorch's constants: Python floats (torch.pi is math.pi), and None for indexing
from math import e, inf, nan, pi  # noqa: E402

from .functional import cartesian_prod, meshgrid, unravel_index  # noqa: E402 - torch.meshgrid is torch.functional.meshgrid

newaxis = None


def is_inference(input: Tensor) -> bool:  # PyTorch's name
    """Whether ``input`` was made in inference mode."""
    return input.is_inference()


_complex_numbers.register_namespace(globals(), "torch.")  # behind the complex gate once one is made
present_as_torch(globals())  # <class 'torch.nn.modules.linear.Linear'>, as PyTorch prints it


def __getattr__(name: str):
    # nn, optim, symbolic and the command line load on first use: building a graph does not need them
    if name in ("nn", "optim", "symbolic", "runner", "utils", "linalg", "special", "serialization", "distributions",
                "func", "sparse", "signal"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    if name == "vmap":  # torch.vmap is torch.func.vmap
        return __getattr__("func").vmap
    if name == "pairwise_distance":  # torch.pairwise_distance is nn.functional.pairwise_distance
        return __getattr__("nn").functional.pairwise_distance
    if name in ("save", "load", "from_file"):
        from . import serialization

        return getattr(serialization, name)
    fn = _surface.FUNCTIONS.get(name)  # an op added to the table after import
    if fn is not None:
        return fn
    return missing_attribute("torch", name)
