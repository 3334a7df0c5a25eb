"""The module path scalargrad's public classes are shown under: PyTorch's.

A program run with ``torch`` resolved to scalargrad prints ``type(model.fc)``, an optimizer's
class or a hook handle's default repr; PyTorch prints ``<class 'torch.nn.modules.linear.Linear'>``
and ``<torch.utils.hooks.RemovableHandle object at 0x...>``. The public packages mirror
PyTorch's files (``nn/modules/linear.py``), so their classes take the same path with ``torch``
for ``scalargrad``; a class defined elsewhere than PyTorch defines it is named in ``WHERE``.
``tests/test_presentation.py`` compares every class with live PyTorch's.
"""

from __future__ import annotations

# PyTorch's module of the classes scalargrad defines in another place (by class name, within
# the namespace being presented)
WHERE = {
    "Size": "torch", "dtype": "torch", "finfo": "torch", "iinfo": "torch",
    "device": "torch", "layout": "torch", "Generator": "torch._C",
    "no_grad": "torch.autograd.grad_mode", "enable_grad": "torch.autograd.grad_mode",
    "set_grad_enabled": "torch.autograd.grad_mode", "inference_mode": "torch.autograd.grad_mode",
    "Function": "torch.autograd.function", "FunctionCtx": "torch.autograd.function",
    "InplaceFunction": "torch.autograd.function",
    "RemovableHandle": "torch.utils.hooks",
    "UntypedStorage": "torch.storage", "TypedStorage": "torch.storage",
    "GradientEdge": "torch.autograd.graph", "Node": "torch.autograd.graph",
    "save_on_cpu": "torch.autograd.graph", "saved_tensors_hooks": "torch.autograd.graph",
    "Identity": "torch.nn.modules.linear",
    "BatchNorm1d": "torch.nn.modules.batchnorm", "BatchNorm2d": "torch.nn.modules.batchnorm",
    "LazyBatchNorm1d": "torch.nn.modules.batchnorm", "LazyBatchNorm2d": "torch.nn.modules.batchnorm",
    "BatchNorm3d": "torch.nn.modules.batchnorm", "LazyBatchNorm3d": "torch.nn.modules.batchnorm",
    "_NormBase": "torch.nn.modules.batchnorm", "PairwiseDistance": "torch.nn.modules.distance",
    "CosineSimilarity": "torch.nn.modules.distance",
    "MultiheadAttention": "torch.nn.modules.activation",
    "WeightedRandomSampler": "torch.utils.data.sampler", "DistributedSampler": "torch.utils.data.distributed",
}


def present_as_torch(namespace: dict) -> None:
    """Give the classes of ``namespace`` (a module's globals) defined in scalargrad PyTorch's
    module path; a class already presented, or not scalargrad's, is left as it is."""
    for name, obj in list(namespace.items()):
        if not isinstance(obj, type) or name.startswith("_"):
            continue
        module = obj.__module__
        if not module.startswith("scalargrad."):
            continue
        where = WHERE.get(obj.__name__)
        if where is not None:
            obj.__module__ = where
        elif "._" not in module:  # a public package: the same file in PyTorch
            obj.__module__ = "torch" + module[len("scalargrad"):]
