"""One module per rule; the engine finds them by walking this package."""
