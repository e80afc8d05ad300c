"""A generic abstract interpreter of Python (statements, expressions, calls, builtins,
classes, closures) over the values of `values.py`; Pallas meaning comes from `pallas/`."""
