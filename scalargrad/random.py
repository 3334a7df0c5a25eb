"""``torch.random``: the default generator, reproducing PyTorch's CPU generator bit for bit."""

from ._base.rng import bernoulli_mask, dropout_scale, initial_seed, manual_seed, normal, randint, seed, uniform
from ._tensor.generator import Generator, default_generator, get_rng_state, set_rng_state

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "uniform", "normal", "bernoulli_mask", "dropout_scale", "randint"]
