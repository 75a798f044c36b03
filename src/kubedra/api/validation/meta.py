"""ObjectMeta validation as the apiserver does it on create (``ValidateObjectMeta``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kubedra.api.validation.errors import (
    FieldError,
    child,
    forbidden,
    index,
    invalid,
    required,
    too_long,
)
from kubedra.api.validation.names import (
    is_qualified_name,
    name_is_dns_label,
    validate_labels,
)

NameFn = Callable[[str, bool], Sequence[str]]

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"
_STANDARD_FINALIZERS = {"kubernetes", "orphan", "foregroundDeletion"}
_MAX_GENERATED_NAME_BASE = 58
# Stands in for the five random characters the apiserver appends to generateName.
_GENERATED_SUFFIX = "x7b2k"


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def validate_object_meta(
    meta: dict,
    namespaced: bool,
    name_fn: NameFn,
    path: str = "metadata",
    *,
    generate_name_checked: bool = True,
) -> list[FieldError]:
    """Validate name, namespace, labels, annotations, owner references and finalizers.

    ``generate_name_checked`` is False for kinds (DeviceClass) whose upstream validation only
    checks the generated name; then a name is generated here the way the apiserver would.
    """
    errs: list[FieldError] = []
    name = _str(meta.get("name"))
    generate_name = _str(meta.get("generateName"))
    if generate_name and generate_name_checked:
        errs.extend(
            invalid(child(path, "generateName"), generate_name, msg)
            for msg in name_fn(generate_name, True)
        )
    if not name and generate_name:
        if not generate_name_checked:
            generated = generate_name[:_MAX_GENERATED_NAME_BASE] + _GENERATED_SUFFIX
            errs.extend(
                invalid(child(path, "name"), generated, m) for m in name_fn(generated, False)
            )
    elif not name:
        errs.append(required(child(path, "name"), "name or generateName is required"))
    else:
        errs.extend(invalid(child(path, "name"), name, msg) for msg in name_fn(name, False))

    namespace = _str(meta.get("namespace"))
    if namespaced:
        if not namespace:
            errs.append(required(child(path, "namespace")))
        else:
            errs.extend(
                invalid(child(path, "namespace"), namespace, msg)
                for msg in name_is_dns_label(namespace, False)
            )
    elif namespace:
        errs.append(forbidden(child(path, "namespace"), "not allowed on this type"))

    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(invalid(child(path, "generation"), generation, NEGATIVE_ERROR_MSG))
    errs.extend(validate_labels(meta.get("labels") or {}, child(path, "labels")))
    errs.extend(validate_annotations(meta.get("annotations") or {}, child(path, "annotations")))
    errs.extend(_validate_owner_references(meta.get("ownerReferences") or [], path))
    errs.extend(_validate_finalizers(meta.get("finalizers") or [], child(path, "finalizers")))
    return errs


def validate_annotations(annotations: dict[str, str], path: str) -> list[FieldError]:
    """Annotation keys are qualified names (case-insensitive); total size at most 256 KiB."""
    errs: list[FieldError] = []
    total = 0
    for ann_key, ann_value in annotations.items():
        errs.extend(invalid(path, ann_key, msg) for msg in is_qualified_name(ann_key.lower()))
        total += len(ann_key.encode()) + len(_str(ann_value).encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def _validate_owner_references(refs: list, meta_path: str) -> list[FieldError]:
    path = child(meta_path, "ownerReferences")
    errs: list[FieldError] = []
    first_controller = ""
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        api_version = _str(ref.get("apiVersion"))
        kind = _str(ref.get("kind"))
        group, _, version = api_version.rpartition("/")
        if not version:
            errs.append(
                invalid(child(path, "apiVersion"), api_version, "version must not be empty")
            )
        if not kind:
            errs.append(invalid(child(path, "kind"), kind, "must not be empty"))
        if not _str(ref.get("name")):
            errs.append(invalid(child(path, "name"), "", "must not be empty"))
        if not _str(ref.get("uid")):
            errs.append(invalid(child(path, "uid"), "", "must not be empty"))
        if group == "" and version == "v1" and kind == "Event":
            errs.append(invalid(path, ref, "/v1, Kind=Event is disallowed from being an owner"))
        if ref.get("controller") is True:
            current = f"{kind}/{_str(ref.get('name'))}"
            if first_controller:
                errs.append(
                    invalid(
                        path,
                        refs,
                        'Only one reference can have Controller set to true. Found "true" in '
                        f"references for {first_controller} and {current}",
                    )
                )
            else:
                first_controller = current
    return errs


def _validate_finalizers(finalizers: list, path: str) -> list[FieldError]:
    names = [f for f in finalizers if isinstance(f, str)]
    errs: list[FieldError] = []
    for name in names:
        errs.extend(invalid(path, name, msg) for msg in is_qualified_name(name))
    if "orphan" in names and "foregroundDeletion" in names:
        errs.append(
            invalid(path, names, "finalizer orphan and foregroundDeletion cannot be both set")
        )
    for i, name in enumerate(names):
        item_path = index(path, i)
        errs.extend(invalid(item_path, name, msg) for msg in is_qualified_name(name))
        if "/" not in name and name not in _STANDARD_FINALIZERS:
            errs.append(
                invalid(
                    item_path,
                    name,
                    "name is neither a standard finalizer name nor is it fully qualified",
                )
            )
    return errs


def validate_template_object_meta(meta: dict, path: str) -> list[FieldError]:
    """Metadata inside a template: only labels and annotations may be set."""
    errs = validate_annotations(meta.get("annotations") or {}, child(path, "annotations"))
    errs.extend(validate_labels(meta.get("labels") or {}, child(path, "labels")))
    for wire_name, go_name in _TEMPLATE_META_FIELDS:
        if meta.get(wire_name) not in (None, "", 0, [], {}):
            errs.append(forbidden(child(path, go_name), "cannot be set"))
    return errs


# ObjectMeta fields other than labels/annotations, in Go struct order, with the name the
# apiserver derives from the Go field name (first letter lowered: UID becomes "uID").
_TEMPLATE_META_FIELDS = [
    ("name", "name"),
    ("generateName", "generateName"),
    ("namespace", "namespace"),
    ("selfLink", "selfLink"),
    ("uid", "uID"),
    ("resourceVersion", "resourceVersion"),
    ("generation", "generation"),
    ("creationTimestamp", "creationTimestamp"),
    ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"),
    ("ownerReferences", "ownerReferences"),
    ("finalizers", "finalizers"),
    ("managedFields", "managedFields"),
]
