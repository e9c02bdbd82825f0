"""Domain errors of the service, one class per gRPC status code.

The domain modules raise these; the servicer maps them to a status in one place
(``ratai.service.servicer._rpc``). ``code`` is the name of a ``grpc.StatusCode`` member, so
this module does not import grpc and the CLI can reuse the domain code without it.
"""

from __future__ import annotations

__all__ = [
    "ServiceError", "NotFound", "InvalidArgument", "FailedPrecondition", "PermissionDenied",
    "ResourceExhausted", "Aborted", "Unauthenticated", "Unavailable", "Internal",
]


class ServiceError(Exception):
    """A request that cannot be served; ``str(err)`` says what to fix."""

    code = "INTERNAL"


class NotFound(ServiceError):
    """Unknown game type or hosted game id."""

    code = "NOT_FOUND"


class InvalidArgument(ServiceError):
    """Bad params, malformed state or observation, illegal action, bad bot spec."""

    code = "INVALID_ARGUMENT"


class FailedPrecondition(ServiceError):
    """Not the seat's turn, or the game is over."""

    code = "FAILED_PRECONDITION"


class PermissionDenied(ServiceError):
    """The seat token does not belong to the game."""

    code = "PERMISSION_DENIED"


class ResourceExhausted(ServiceError):
    """A budget over the server's limits, a full search queue, too many hosted games."""

    code = "RESOURCE_EXHAUSTED"


class Aborted(ServiceError):
    """A stale ``expected_move_number`` (the game moved on; re-read and retry)."""

    code = "ABORTED"


class Unauthenticated(ServiceError):
    """The server wants an API key and the call did not carry the right one."""

    code = "UNAUTHENTICATED"


class Unavailable(ServiceError):
    """A search worker died or the server is shutting down; retrying may succeed."""

    code = "UNAVAILABLE"


class Internal(ServiceError):
    """A bug: the server logged the traceback."""

    code = "INTERNAL"
