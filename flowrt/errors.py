"""TF1's run-time error classes (``fr.errors``), each carrying ``.op`` and ``.message``."""

from __future__ import annotations

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError", "PermissionDeniedError",
    "ResourceExhaustedError", "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError", "DataLossError",
    "UnauthenticatedError", "OperatorNotAllowedInGraphError",
    "UnauthenticatedError", "exception_type_from_error_code", "error_code_from_exception_type",
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

    error_code = UNKNOWN

    def __init__(self, node_def, op, message, *args):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self):
        if self.op is not None:
            return "%s\n\t [[node %s]]" % (self.message, self.op.name)
        return self.message

    def __reduce__(self):
        return type(self), (None, None, self.message)


def _make(name, code, doc):
    cls = type(name, (OpError,), {"error_code": code, "__doc__": doc})

    def __init__(self, node_def, op, message, *args):  # noqa: N807 - set as the method
        OpError.__init__(self, node_def, op, message)

    cls.__init__ = __init__
    return cls


CancelledError = _make("CancelledError", CANCELLED, "The run or one of its ops was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
                             "An op received an invalid argument at run time.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED,
                              "The run's deadline (RunOptions.timeout_in_ms) expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A file or resource was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                               "A resource ran out.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the op "
                                "(e.g. an uninitialized variable).")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE,
                        "Iterated past the valid range (e.g. a closed, empty queue).")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "Not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant broke.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "Unauthenticated.")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a tensor that needs its value while a function is traced
    (``if tensor:``, ``for x in tensor:``); TF2's class of the same name."""
_BY_CODE = {cls.error_code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError,
    InternalError, UnavailableError, DataLossError, UnauthenticatedError)}


def exception_type_from_error_code(error_code: int) -> type:
    """The ``OpError`` subclass of a canonical error code; KeyError for an unknown one."""
    return _BY_CODE[int(error_code)]


def error_code_from_exception_type(cls: type) -> int:
    """The canonical error code of an ``OpError`` subclass; KeyError for another class."""
    if not (isinstance(cls, type) and issubclass(cls, OpError)):
        raise KeyError(cls)
    return cls.error_code
