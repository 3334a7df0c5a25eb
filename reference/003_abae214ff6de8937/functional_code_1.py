import scalargrad as torch
# Reference program: 003_abae214ff6de8937.txt, "Functional Code 1".
# The document's code with its indentation restored: multiplication by 2 via
# torch.nn.Linear(1, 1, bias=False) with its weight filled with 2.0.


class LinearModel(torch.nn.Module):
    def __init__(self):
        super(LinearModel, self).__init__()
        self.linearModel = torch.nn.Linear(
            in_features=1, out_features=1, bias=False)
        self.linearModel.weight.data.fill_(2.0)

    def forward(self, x):
        return self.linearModel(x.expand(1, 1, 1)).squeeze()


linearModel = LinearModel()
z = linearModel(torch.tensor(3.0))
print('z', z)
