import scalargrad as torch
# Reference program: 003_abae214ff6de8937.txt, "Functional Code 5".
# The document's code with its indentation restored: torch.nn.Dropout(0.5) in
# train mode, then in eval mode.

# Added (not in the document): Dropout in train mode is random. The document's
# own sequence (2, 0, 2, 0, 2) came from an unseeded generator and cannot be
# reproduced; we fix the seed so that PyTorch's output is deterministic. The
# eval-mode half does not depend on the seed.
torch.manual_seed(0)


class DropoutModel(torch.nn.Module):
    def __init__(self):
        super(DropoutModel, self).__init__()
        self.dropoutModel = torch.nn.Dropout(0.5)

    def forward(self, x):
        return self.dropoutModel(x)


dropoutModel = DropoutModel()
print('train mode')
dropoutModel.train(True)
for i in range(5):
    print(i, dropoutModel(torch.tensor(1.0)))
print('eval mode')
dropoutModel.train(False)
for i in range(5):
    print(i, dropoutModel(torch.tensor(1.0)))
