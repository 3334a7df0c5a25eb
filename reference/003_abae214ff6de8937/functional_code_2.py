import scalargrad as torch
# Reference program: 003_abae214ff6de8937.txt, "Functional Code 2".
# The document's code with its indentation restored: the same multiplication
# with torch.nn.functional.linear and an explicit Parameter.


class LinearModel(torch.nn.Module):
    def __init__(self):
        super(LinearModel, self).__init__()
        self.linearParams = torch.nn.Parameter(torch.tensor([[2.0]]))

    def forward(self, x):
        return torch.nn.functional.linear(
            x.expand(1, 1, 1), self.linearParams).squeeze()


linearModel = LinearModel()
z = linearModel(torch.tensor(3.0))
print('z', z)
