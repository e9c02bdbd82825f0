"""Domain errors of the service, one class per gRPC status code.

The domain modules raise these; the servicer maps them to a status in one place
(``ratai.service.servicer._rpc``). ``code`` is the name of a ``grpc.StatusCode`` member, so
this module does not import grpc and the CLI can reuse the domain code without it.
"""

from __future__ import annotations

__all__ = [
    "ServiceError", "NotFound", "InvalidArgument", "FailedPrecondition", "PermissionDenied",
    "ResourceExhausted", "Aborted", "Unauthenticated", "Unavailable", "Internal",
    "DeadlineExceeded", "quote", "clip",
]

#: Characters of client input quoted in an error message (gRPC's status has a size limit).
QUOTE_CHARS = 200
#: Characters of an error message sent to the client.
MESSAGE_CHARS = 2000


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` cut to about ``limit`` characters (``...`` and the full length after)."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def clip(message: str, limit: int = MESSAGE_CHARS) -> str:
    """An error message cut to ``limit`` characters."""
    return message if len(message) <= limit else message[:limit] + " ... (message cut)"



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
    """A budget over the server's limits, a full search queue, too many hosted games or
    watch streams. ``retry_after_ms`` (or None) is sent as trailing metadata
    ``retry-after-ms`` and ``grpc-retry-pushback-ms``."""

    code = "RESOURCE_EXHAUSTED"

    def __init__(self, message: str, retry_after_ms: int | None = None):
        super().__init__(message)
        self.retry_after_ms = retry_after_ms


class DeadlineExceeded(ServiceError):
    """The client's deadline passed before the search could run, or a search overran."""

    code = "DEADLINE_EXCEEDED"


class Aborted(ServiceError):
    """A stale ``expected_move_number`` (the game moved on; re-read and retry)."""

    code = "ABORTED"


class Unauthenticated(ServiceError):
    """The server wants an API key and the call did not carry the right one."""

    code = "UNAUTHENTICATED"


class Unavailable(ServiceError):
    """A search worker died, the event log cannot be written, or the server is shutting
    down; retrying may succeed."""

    code = "UNAVAILABLE"


class Internal(ServiceError):
    """A bug: the server logged the traceback."""

    code = "INTERNAL"
