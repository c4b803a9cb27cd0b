"""Training and sampling: the SGD and AdamW traces, the update order, the first step, the decoding rules."""
