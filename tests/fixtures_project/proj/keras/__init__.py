"""The project's own layer API under a Keras-like name (tf-encrypted's shape)."""
