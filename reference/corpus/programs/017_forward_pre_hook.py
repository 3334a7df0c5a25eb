# source: PyTorch docs: torch.nn.Module.register_forward_pre_hook
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(2, 2)


def scale_input(module, args):
    print("pre-hook sees", args)
    return (args[0] * 10,)


def pre_hook_with_kwargs(module, args, kwargs):
    print("kwargs:", kwargs)
    return None


h1 = layer.register_forward_pre_hook(scale_input)
h2 = layer.register_forward_pre_hook(pre_hook_with_kwargs, with_kwargs=True)

x = torch.tensor([[0.1, 0.2]])
print(layer(x))
h1.remove()
h2.remove()
print(layer(x))
