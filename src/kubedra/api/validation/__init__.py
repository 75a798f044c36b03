"""apiserver validation of resource.k8s.io/v1 and core/v1 wire objects.

``validate_object`` returns the field errors of one defaulted v1 object with upstream's paths,
types and messages; ``format_invalid`` renders them as the apiserver's "is invalid" message.
"""

from kubedra.api.validation.api import format_invalid, validate_object, validate_update
from kubedra.api.validation.errors import ErrorType, FieldError
from kubedra.api.validation.memo import ValidationMemo

__all__ = [
    "ErrorType",
    "FieldError",
    "ValidationMemo",
    "format_invalid",
    "validate_object",
    "validate_update",
]
