"""The bottom room: errors, limits, safe text, files, resources, markup, exact and ball numerics, tensors, the graph."""
