"""torch.utils counterparts: only ``hooks`` (RemovableHandle)."""
