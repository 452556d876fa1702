"""A small ``fr.keras``: TF2's ``Layer``/``Model`` classes and optimizers, enough to write
the TF2 form of a program next to its TF1 form (see docs/graph_functions.md).

Note (flowrt): no ``compile``/``fit`` training loop, no saving, no functional
(``Input``) models; layers run in graphs (inside ``@fr.function`` or TF1 graph code).
"""

from . import activations, initializers, layers, optimizers
from .layers import Model, Sequential

__all__ = ["layers", "optimizers", "initializers", "activations", "Model", "Sequential"]
