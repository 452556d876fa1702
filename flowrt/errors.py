"""TF1's run-time error classes (``fr.errors``), each carrying ``.op`` and ``.message``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._core.graph import Operation

__all__ = [
    "OpError",
    "CancelledError",
    "UnknownError",
    "InvalidArgumentError",
    "DeadlineExceededError",
    "NotFoundError",
    "AlreadyExistsError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "FailedPreconditionError",
    "AbortedError",
    "OutOfRangeError",
    "UnimplementedError",
    "InternalError",
    "UnavailableError",
    "DataLossError",
    "UnauthenticatedError",
    "OperatorNotAllowedInGraphError",
    "exception_type_from_error_code",
    "error_code_from_exception_type",
]

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = 10, 11, 12, 13, 14, 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running a graph, raised by ``Session.run``.

    Attributes:
      node_def: None (flowrt keeps no NodeDef protos).
      op: the ``Operation`` that failed, or None.
      message: the error text.
      error_code: TF's canonical code.
    """

    error_code: int = UNKNOWN

    def __init__(self, node_def: object, op: Operation | None, message: str, *args: object):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self) -> str:
        if self.op is not None:
            return "%s\n\t [[node %s]]" % (self.message, self.op.name)
        return self.message

    def __reduce__(self) -> tuple[type[OpError], tuple[None, None, str]]:
        return type(self), (None, None, self.message)


class CancelledError(OpError):
    """The run or one of its ops was cancelled."""

    error_code = CANCELLED


class UnknownError(OpError):
    """An unknown error."""

    error_code = UNKNOWN


class InvalidArgumentError(OpError):
    """An op received an invalid argument at run time."""

    error_code = INVALID_ARGUMENT


class DeadlineExceededError(OpError):
    """The run's deadline (RunOptions.timeout_in_ms, or the session's
    ConfigProto.operation_timeout_in_ms) expired."""

    error_code = DEADLINE_EXCEEDED


class NotFoundError(OpError):
    """A file or resource was not found."""

    error_code = NOT_FOUND


class AlreadyExistsError(OpError):
    """An entity already exists."""

    error_code = ALREADY_EXISTS


class PermissionDeniedError(OpError):
    """Permission denied."""

    error_code = PERMISSION_DENIED


class ResourceExhaustedError(OpError):
    """A resource ran out."""

    error_code = RESOURCE_EXHAUSTED


class FailedPreconditionError(OpError):
    """The system is not in a state to run the op  (e.g. an uninitialized variable)."""

    error_code = FAILED_PRECONDITION


class AbortedError(OpError):
    """The operation was aborted."""

    error_code = ABORTED


class OutOfRangeError(OpError):
    """Iterated past the valid range (e.g. a closed, empty queue)."""

    error_code = OUT_OF_RANGE


class UnimplementedError(OpError):
    """Not implemented."""

    error_code = UNIMPLEMENTED


class InternalError(OpError):
    """An internal invariant broke."""

    error_code = INTERNAL


class UnavailableError(OpError):
    """The runtime is unavailable."""

    error_code = UNAVAILABLE


class DataLossError(OpError):
    """Unrecoverable data loss or corruption."""

    error_code = DATA_LOSS


class UnauthenticatedError(OpError):
    """Unauthenticated."""

    error_code = UNAUTHENTICATED


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a tensor that needs its value while a function is traced
    (``if tensor:``, ``for x in tensor:``); TF2's class of the same name."""


_BY_CODE: dict[int, type[OpError]] = {
    cls.error_code: cls
    for cls in (
        CancelledError,
        UnknownError,
        InvalidArgumentError,
        DeadlineExceededError,
        NotFoundError,
        AlreadyExistsError,
        PermissionDeniedError,
        ResourceExhaustedError,
        FailedPreconditionError,
        AbortedError,
        OutOfRangeError,
        UnimplementedError,
        InternalError,
        UnavailableError,
        DataLossError,
        UnauthenticatedError,
    )
}


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """The ``OpError`` subclass of a canonical error code; KeyError for an unknown one."""
    return _BY_CODE[int(error_code)]


def error_code_from_exception_type(cls: type) -> int:
    """The canonical error code of an ``OpError`` subclass; KeyError for another class."""
    if not (isinstance(cls, type) and issubclass(cls, OpError)):
        raise KeyError(cls)
    return cls.error_code
