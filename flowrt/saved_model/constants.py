"""``fr.saved_model.constants``: the file, directory and collection names of a SavedModel
(TF's values, so either can read the other's layout)."""

__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_KEY",
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
    "LEGACY_INIT_OP_KEY",
    "MAIN_OP_KEY",
    "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT",
    "SAVED_MODEL_SCHEMA_VERSION",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
]

ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
