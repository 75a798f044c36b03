"""Consumable capacity: validation of a capacity's ``requestPolicy`` against its value."""

from __future__ import annotations

from kubedra.api.quantity import Quantity
from kubedra.api.validation.errors import FieldError, child, forbidden, index, invalid, required
from kubedra.api.validation.meta import NEGATIVE_ERROR_MSG
from kubedra.api.validation.quantities import parse_quantity
from kubedra.api.validation.resource_common import as_dict, as_list, validate_set

CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS = 10
MAX_INT64 = 2**63 - 1


def validate_request_policy(capacity: Quantity, policy: dict, path: str) -> list[FieldError]:
    valid_values = [parse_quantity(v) for v in as_list(policy.get("validValues"))]
    valid_range = policy.get("validRange")
    if valid_values and valid_range is not None:
        return [
            forbidden(
                path,
                'exactly one policy can be specified, cannot specify "validValues" and '
                '"validRange" at the same time',
            )
        ]
    default = parse_quantity(policy.get("default"))
    if valid_values:
        if default is None:
            return [required(child(path, "default"), "required when validValues is defined")]
        values = [v for v in valid_values if v is not None]
        return _validate_valid_values(default, capacity, values, child(path, "validValues"))
    if valid_range is not None:
        if default is None:
            return [required(child(path, "default"), "required when validRange is defined")]
        return _validate_range(default, capacity, as_dict(valid_range), child(path, "validRange"))
    return []


def _validate_valid_values(
    default: Quantity, capacity: Quantity, values: list[Quantity], path: str
) -> list[FieldError]:
    errs: list[FieldError] = []
    for i in range(len(values) - 1):
        if values[i] > values[i + 1]:
            errs.append(
                invalid(
                    index(path, i + 1),
                    str(values[i + 1]),
                    "values must be sorted in ascending order",
                )
            )
    found_default = False

    def check_option(option: Quantity, option_path: str) -> list[FieldError]:
        nonlocal found_default
        option_errs: list[FieldError] = []
        if option > capacity:
            option_errs.append(
                invalid(
                    option_path, str(option), f"option is larger than capacity value: {capacity}"
                )
            )
        if option == default:
            found_default = True
        return option_errs

    errs.extend(
        validate_set(
            values,
            CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS,
            check_option,
            lambda option: str(option.value()),
            path,
        )
    )
    if not found_default:
        errs.append(
            invalid(path, str(default), "default value is not valid according to the requestPolicy")
        )
    return errs


def _validate_range(
    default: Quantity, capacity: Quantity, valid_range: dict, path: str
) -> list[FieldError]:
    minimum = parse_quantity(valid_range.get("min"))
    if minimum is None:
        return [required(child(path, "min"), "required when validRange is defined")]
    errs: list[FieldError] = []
    if minimum > capacity:
        errs.append(
            invalid(
                child(path, "min"), str(minimum), f"min is larger than capacity value: {capacity}"
            )
        )
    if default < minimum:
        errs.append(
            invalid(child(path, "default"), str(default), f"default is less than min: {minimum}")
        )
    maximum = parse_quantity(valid_range.get("max"))
    if maximum is not None:
        if minimum > maximum:
            errs.append(
                invalid(child(path, "max"), str(minimum), f"min is larger than max: {maximum}")
            )
        if maximum > capacity:
            errs.append(
                invalid(
                    child(path, "max"),
                    str(maximum),
                    f"max is larger than capacity value: {capacity}",
                )
            )
        if default > maximum:
            errs.append(
                invalid(
                    child(path, "default"), str(default), f"default is more than max: {maximum}"
                )
            )
    step = parse_quantity(valid_range.get("step"))
    if step is None:
        return errs
    if step.sign() <= 0:
        errs.append(invalid(child(path, "step"), str(step), "must be greater than zero"))
        return errs
    one_step = minimum.add(step)
    if one_step > capacity:
        errs.append(
            invalid(
                child(path, "step"),
                str(step),
                f"one step {one_step} is larger than capacity value: {capacity}",
            )
        )
    bounds = [("default", default), ("min", minimum), ("max", maximum), ("step", step)]
    unsafe = False
    for name, quantity in bounds:
        if quantity is None:
            continue
        if quantity.sign() < 0:
            errs.append(invalid(child(path, name), str(quantity), NEGATIVE_ERROR_MSG))
            unsafe = True
        elif quantity > Quantity.from_int(MAX_INT64, "DecimalSI"):
            errs.append(
                invalid(child(path, name), str(quantity), f"must not be larger than {MAX_INT64}")
            )
            unsafe = True
    if unsafe:
        return errs
    errs.extend(_check_step(default, minimum, step, child(path, "step")))
    if maximum is not None:
        errs.extend(_check_step(maximum, minimum, step, child(path, "step")))
    return errs


def _check_step(value: Quantity, minimum: Quantity, step: Quantity, path: str) -> list[FieldError]:
    if (value.value() - minimum.value()) % step.value() != 0:
        return [
            invalid(
                path,
                str(value),
                f"value is not a multiple of a given step ({step}) from ({minimum})",
            )
        ]
    return []
