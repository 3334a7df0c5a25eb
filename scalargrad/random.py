"""``torch.random``: the default generator, reproducing PyTorch's CPU generator bit for bit."""

from ._base.rng import (
    Generator,
    bernoulli_mask,
    default_generator,
    dropout_scale,
    get_rng_state,
    initial_seed,
    manual_seed,
    normal,
    randint,
    seed,
    set_rng_state,
    uniform,
)

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "uniform", "normal", "bernoulli_mask", "dropout_scale", "randint"]
