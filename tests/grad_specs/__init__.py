"""Gradient-check tables, one module per op family, each defining ``SPECS``.

``tests/test_gradient_table.py`` runs every row and fails when a registered op type
with a gradient rule has no row here.
"""

import importlib
import pkgutil


def all_specs():
    specs = []
    for m in pkgutil.iter_modules(__path__):
        mod = importlib.import_module(__name__ + "." + m.name)
        specs.extend(getattr(mod, "SPECS", []))
    return specs
