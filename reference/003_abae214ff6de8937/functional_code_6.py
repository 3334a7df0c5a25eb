import scalargrad as torch
# Reference program: 003_abae214ff6de8937.txt, "Functional Code 6".
# The document's code with its indentation restored: dropout via
# torch.nn.functional.dropout(x, p=0.5, training=self.training).

# Added (not in the document): dropout in train mode is random. The document's
# own sequence (2, 0, 2, 0, 0) came from an unseeded generator and cannot be
# reproduced; we fix the seed so that PyTorch's output is deterministic. The
# eval-mode half does not depend on the seed.
torch.manual_seed(0)


class DropoutModel(torch.nn.Module):
    def __init__(self):
        super(DropoutModel, self).__init__()

    def forward(self, x):
        return torch.nn.functional.dropout(x, p=0.5, training=self.training)


dropoutModel = DropoutModel()
print('train mode')
dropoutModel.train(True)
for i in range(5):
    print(i, dropoutModel(torch.tensor(1.0)))
print('eval mode')
dropoutModel.train(False)
for i in range(5):
    print(i, dropoutModel(torch.tensor(1.0)))
