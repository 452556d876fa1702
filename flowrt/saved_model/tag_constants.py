"""``fr.saved_model.tag_constants``: the standard tags of a SavedModel's meta graphs."""

__all__ = ["GPU", "SERVING", "TPU", "TRAINING"]

GPU = "gpu"
SERVING = "serve"
TPU = "tpu"
TRAINING = "train"
