# source: PyTorch tutorial: Build the Neural Network (device-agnostic set-up)
import torch
from torch import nn

print(torch.__version__)
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

torch.manual_seed(0)
model = nn.Linear(3, 2).to(device)
X = torch.ones(1, 3, device=device)
logits = model(X)
print(logits.device, logits.shape)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
print(next(model.parameters()).device)
