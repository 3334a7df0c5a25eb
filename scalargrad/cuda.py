"""``torch.cuda`` as seen from a CPU-only library: nothing is available."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
