"""``fr.flags``: TF1's ``tf.flags``, which is absl's flags module: ``DEFINE_string``,
``DEFINE_integer``, ... define command-line flags, ``FLAGS`` holds their values once
``fr.app.run`` has parsed them."""

from __future__ import annotations

from ._core import extras

# absl-py is the ``flowrt[app]`` extra: a clear error when it is absent.
extras.require("absl.flags", "app", "fr.flags")

from absl.flags import (  # noqa: E402
    DEFINE,
    FLAGS,
    DEFINE_alias,
    DEFINE_bool,
    DEFINE_boolean,
    DEFINE_enum,
    DEFINE_float,
    DEFINE_integer,
    DEFINE_list,
    DEFINE_multi_enum,
    DEFINE_multi_float,
    DEFINE_multi_integer,
    DEFINE_multi_string,
    DEFINE_spaceseplist,
    DEFINE_string,
    Error,
    Flag,
    FlagValues,
    IllegalFlagValueError,
    UnrecognizedFlagError,
    ValidationError,
    adopt_module_key_flags,
    declare_key_flag,
    mark_flag_as_required,
    mark_flags_as_mutual_exclusive,
    mark_flags_as_required,
    register_validator,
    validator,
)

__all__ = [
    "DEFINE",
    "DEFINE_alias",
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_multi_enum",
    "DEFINE_multi_float",
    "DEFINE_multi_integer",
    "DEFINE_multi_string",
    "DEFINE_spaceseplist",
    "DEFINE_string",
    "Error",
    "FLAGS",
    "Flag",
    "FlagValues",
    "IllegalFlagValueError",
    "UnrecognizedFlagError",
    "ValidationError",
    "adopt_module_key_flags",
    "declare_key_flag",
    "mark_flag_as_required",
    "mark_flags_as_mutual_exclusive",
    "mark_flags_as_required",
    "register_validator",
    "validator",
]
