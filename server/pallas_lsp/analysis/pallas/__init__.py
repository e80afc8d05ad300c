"""The Pallas domain: the API model (`model.py`, `registry.py`, what is derived from it),
its values (`sems.py`, `values.py`) and the Pallas semantics the interpreter asks for
through `domain.py` (`dispatch.py` and its handlers)."""
