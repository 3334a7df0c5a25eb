# source: PyTorch tutorial: Saving and Loading Models (torch.save / torch.load with an in-memory buffer)
import io

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 2)

buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
state = torch.load(buffer, weights_only=True)
print(list(state.keys()))

model2 = nn.Linear(3, 2)
print(model2.load_state_dict(state))
print(torch.equal(model.weight, model2.weight))
