"""``torch.nn.DataParallel`` as PyTorch's CPU build runs it: with no GPU available it keeps the
module, has no devices (``device_ids == []``) and its forward calls the module itself; its state
dict is the module's under the prefix ``module.``."""

from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``: on a machine without
    GPUs (PyTorch's CPU build) only ``module`` and ``device_ids = []`` are set, as in PyTorch."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        # PyTorch: no accelerator (or MPS) -> keep the module, no devices, nothing else
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
