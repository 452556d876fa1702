"""The optional dependencies (pyproject.toml's extras), imported on first use.

flowrt's core install holds what a single-machine training pipeline needs; a package
that only some features use (Ray for clusters, RE2 for regular expressions, Pillow for
the image codecs, ...) is an extra, imported when that feature first runs, so that
``import flowrt`` neither needs nor loads it. ``require`` is the one way to import
such a package: when it is absent, the error names the feature and the extra that
installs it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]

# The distribution that installs a module, where its name differs from the module's.
_DISTRIBUTION = {"re2": "google-re2", "farmhash": "pyfarmhash", "PIL": "pillow", "absl": "absl-py"}


def require(module: str, extra: str, feature: str) -> ModuleType:
    """The module ``module``, installed by flowrt's extra ``extra`` for ``feature``.

    Raises ModuleNotFoundError (an ImportError) naming the feature, the missing
    package and the command that installs it, e.g. ``fr.train.Server needs the ray
    package, not in flowrt's core install: pip install 'flowrt[distributed]'``.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and not (module == e.name or module.startswith(e.name + ".")):
            raise  # the package is there but one of its own dependencies is missing
        top = module.partition(".")[0]
        raise ModuleNotFoundError(
            "%s needs the %s package, not in flowrt's core install: pip install 'flowrt[%s]'"
            % (feature, _DISTRIBUTION.get(top, top), extra),
            name=top,
        ) from e
