import scalargrad as torch
from scalargrad.optim import Optimizer
# Reference program: 002_116fbff0f8d9c0d1.txt, "Optimizer Hook 사용" example
# (MyOptimizerHook), exactly as the document has it; only
# `import scalargrad as torch` is added (the document uses torch.optim.Adam
# without importing torch). The method bodies contain only a comment, so the
# file does not even compile; OptimizerHook, model and
# Optimizer.register_hook do not exist either.
# See optimizer_hook_corrected.py.

class MyOptimizerHook(OptimizerHook):
    def __init__(self, optimizer):
        self.optimizer = optimizer

    def pre_step(self):
        # 코드를 삽입

    def post_step(self):
        # 코드를 삽입

# 사용 예시
optimizer = torch.optim.Adam(model.parameters())
optimizer.register_hook(MyOptimizerHook(optimizer))
