"""A small multi-module kernel package: helpers in `common`, kernels importing them."""
