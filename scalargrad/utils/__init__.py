"""``torch.utils``."""
