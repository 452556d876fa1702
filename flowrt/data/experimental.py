"""``fr.data.experimental``: the ``tf.data.experimental`` names TF1 programs use."""

from __future__ import annotations

from typing import Any, Callable

from .dataset import AUTOTUNE, DatasetV1

__all__ = ["AUTOTUNE", "shuffle_and_repeat", "map_and_batch", "unbatch"]


def shuffle_and_repeat(
    buffer_size: Any, count: Any = None, seed: int | None = None
) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation for ``Dataset.apply``: ``shuffle(buffer_size, seed)`` then
    ``repeat(count)`` (each pass shuffled anew)."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.shuffle(buffer_size, seed).repeat(count)

    return apply


def map_and_batch(
    map_func: Callable[..., Any],
    batch_size: Any,
    num_parallel_batches: int | None = None,
    drop_remainder: bool = False,
    num_parallel_calls: int | None = None,
) -> Callable[[DatasetV1], DatasetV1]:
    """A transformation for ``Dataset.apply``: ``map(map_func)`` then
    ``batch(batch_size, drop_remainder)``."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "`map_and_batch_with_legacy_function` and `map_and_batch` accept at most one of "
            "`num_parallel_batches` and `num_parallel_calls`."
        )

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.map(map_func).batch(batch_size, drop_remainder)

    return apply


def unbatch() -> Callable[[DatasetV1], DatasetV1]:
    """A transformation for ``Dataset.apply``: ``unbatch()``, each element split along its
    first dimension into elements."""

    def apply(dataset: DatasetV1) -> DatasetV1:
        return dataset.unbatch()

    return apply
