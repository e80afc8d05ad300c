"""The Pallas API model (`model.py`, `registry.py`, what is derived from it) and the
Pallas semantics the interpreter dispatches to (`dispatch.py` and its handlers)."""
