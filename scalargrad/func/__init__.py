"""``torch.func``: PyTorch's composable function transforms, built on scalargrad's autograd.

``grad``/``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``
(``transforms.py``), ``vmap`` (``vmap.py``), ``functional_call`` and ``stack_module_state``
(``functional_call.py``). The rest of PyTorch's ``torch.func`` (``functionalize``,
``linearize``, ``replace_all_batch_norm_modules_``, ...) is refused by name.
"""

from __future__ import annotations

# absolute imports: a program that makes scalargrad its torch by hand (``sys.modules['torch'] =
# scalargrad``) loads this file as ``torch.func``; relative imports would then load a second copy
# of scalargrad's internals under torch's names (as in ``functional.py``)
from scalargrad._base.missing_api import missing_attribute
from scalargrad.func.functional_call import functional_call, stack_module_state
from scalargrad.func.transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from scalargrad.func.vmap import vmap

__all__ = ["functional_call", "stack_module_state", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd",
           "hessian", "vmap"]


def __getattr__(name: str):
    return missing_attribute("torch.func", name)
