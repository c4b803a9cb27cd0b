"""One module per operation kind, every facet of it side by side; :data:`OPS` is the table."""
