import scalargrad as torch
# Reference program: 003_abae214ff6de8937.txt, "Functional Code 4".
# The document's code with its indentation restored: ReLU via
# torch.nn.functional.relu.


class ReLUModel(torch.nn.Module):
    def __init__(self):
        super(ReLUModel, self).__init__()

    def forward(self, x):
        return torch.nn.functional.relu(x)


reLUModel = ReLUModel()
z = reLUModel(torch.tensor(3.0))
print('z', z)
z = reLUModel(torch.tensor(-1.0))
print('z', z)
