import scalargrad as torch
from scalargrad import nn
# Reference program: 002_116fbff0f8d9c0d1.txt, "Optimizer Hook 사용" example,
# corrected variant (not in the document). PyTorch has no OptimizerHook class
# and no Optimizer.register_hook(); optimizer hooks are plain functions
# registered with Optimizer.register_step_pre_hook(hook) and
# Optimizer.register_step_post_hook(hook), called as hook(optimizer, args,
# kwargs). The document's pre_step / post_step become these two hooks; the
# "# 코드를 삽입" (insert code here) bodies print the parameter. The document
# leaves `model` undefined; a one-parameter model stands in for it.


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        return self.w * x


model = Model()


class MyOptimizerHook:
    def __init__(self, optimizer):
        self.optimizer = optimizer

    def pre_step(self, optimizer, args, kwargs):
        # 코드를 삽입
        print('pre_step  w =', model.w.data, 'grad =', model.w.grad)

    def post_step(self, optimizer, args, kwargs):
        # 코드를 삽입
        print('post_step w =', model.w.data)


# 사용 예시
optimizer = torch.optim.Adam(model.parameters())
my_hook = MyOptimizerHook(optimizer)
optimizer.register_step_pre_hook(my_hook.pre_step)
optimizer.register_step_post_hook(my_hook.post_step)

loss = model(torch.tensor(3.0)) ** 2
loss.backward()
optimizer.step()
