"""The lowest layer: numbers and plumbing (IEEE arithmetic, dtypes and float32 rounding, memory
layouts, kernel summation orders, printing, errors, hook handles, grad mode, the random
generator). Imports nothing of scalargrad."""
