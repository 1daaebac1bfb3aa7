"""The directory put on PYTHONPATH of a traced program (its sitecustomize arms the recorder)."""
