"""The model: the spec, its names, the per-scalar graph and the tensor engine, values, costs and scale."""
