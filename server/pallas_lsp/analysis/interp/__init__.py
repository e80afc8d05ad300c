"""A generic abstract interpreter of Python (statements, expressions, calls, builtins,
classes, closures) over the values of `values.py`.  It imports no domain: the domains
of its `Context` (`domain.Domain`; the Pallas domain is `pallas.domain`) give meaning
to library names and to their own values."""
