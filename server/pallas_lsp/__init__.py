"""pallas-lsp: static checks for JAX Pallas TPU kernels (semaphore shapes), as a language server and a CLI."""

__version__ = "0.1.0"
