"""The class a DRA driver subclasses: the kit does the gRPC, lookup, bookkeeping and CDI."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from kubedra.driver.cdi import CDIDevice, CDISpec, CDIWriter, qualified_name
from kubedra.driver.paths import DEFAULT_CDI_DIR
from kubedra.driver.types import ClaimRef, DeviceHealth, PrepareClaim, PreparedDevice, PrepareResult


class Driver:
    """A DRA driver's node-local logic, named once by :attr:`name`.

    Override :meth:`prepare_claim` (one claim at a time) or :meth:`prepare` (the batch form);
    :meth:`unprepare` has a default that removes the CDI specs the kit wrote and nothing else.
    The kit calls them one at a time (serialized) and keeps a checkpoint, so a claim recorded
    as prepared is answered from the checkpoint without preparing it again. They must still be
    idempotent: a driver killed in the middle of a call is called again after it restarts.
    """

    name: str = ""
    """The driver name (a DNS subdomain): slices, sockets and the registration derive from it."""
    cdi_class: str = "device"
    """The CDI class of the specs the kit writes; the vendor is ``k8s.<name>``."""
    cdi_dir: Path = DEFAULT_CDI_DIR
    """Where the kit writes CDI specs (``start(cdi_dir=...)`` sets it)."""
    device_metadata: tuple[str, ...] = ()
    """The device metadata API versions the kit writes for each prepared request (KEP-5304),
    newest first, e.g. ``("v1beta1", "v1alpha1")``; empty: no device metadata. ``v1beta1``
    is required (``start(device_metadata=...)`` sets it)."""

    # --- preparing -----------------------------------------------------------------------

    def prepare_claim(self, claim: PrepareClaim) -> Sequence[PreparedDevice]:
        """Prepare the devices of one claim. Raise to fail this claim only."""
        raise NotImplementedError(
            f"{type(self).__name__} implements neither prepare nor prepare_claim"
        )

    def prepare(self, claims: Sequence[PrepareClaim]) -> Mapping[str, PrepareResult | Exception]:
        """Prepare every claim; answer each claim UID (missing ones are errors).

        The default calls :meth:`prepare_claim` per claim and writes the CDI spec of the
        devices that carry container edits (``AllocatedDevice.prepared(env=...)``).
        """
        results: dict[str, PrepareResult | Exception] = {}
        for claim in claims:
            try:
                devices = list(self.prepare_claim(claim))
                results[claim.ref.uid] = PrepareResult(devices=self.write_cdi(claim.ref, devices))
            except Exception as error:
                results[claim.ref.uid] = error
        return results

    def unprepare_claim(self, claim: ClaimRef) -> None:
        """Undo :meth:`prepare_claim` beyond the kit's CDI spec; nothing by default. Must
        succeed for claims never prepared, and must not need the claim object (it may be gone)."""

    def unprepare(self, claims: Sequence[ClaimRef]) -> Mapping[str, Exception | None]:
        """Undo :meth:`prepare`: by default :meth:`unprepare_claim` and the kit's CDI spec."""
        results: dict[str, Exception | None] = {}
        for ref in claims:
            try:
                self.unprepare_claim(ref)
                self.cdi_writer().remove(self.cdi_vendor, self.cdi_class, ref.uid)
                results[ref.uid] = None
            except Exception as error:
                results[ref.uid] = error
        return results

    def still_prepared(self, claim: PrepareClaim, devices: Sequence[str]) -> bool:
        """Whether a checkpointed preparation is still in place. Returning False makes the kit
        prepare the claim again: a driver whose CDI directory is a tmpfs returns
        ``self.cdi_spec_path(claim.ref).exists()`` so that a reboot does not lose its specs."""
        return True

    # --- CDI -----------------------------------------------------------------------------

    @property
    def cdi_vendor(self) -> str:
        return f"k8s.{self.name}"

    def cdi_writer(self) -> CDIWriter:
        return CDIWriter(self.cdi_dir)

    def remove_stale_files(self) -> None:
        """Called once at start, under the kit's serialization lock (so no prepare of this or
        of a rolling-update peer is writing): remove what a killed process left behind. By
        default the temporary files of interrupted writes of the kit's CDI specs."""
        self.cdi_writer().remove_stale_temp_files(self.cdi_vendor, self.cdi_class)

    def cdi_spec_path(self, claim: ClaimRef) -> Path:
        """Where the kit writes the claim's CDI spec (see :meth:`write_cdi`)."""
        return self.cdi_writer().path_for(CDISpec(self.cdi_vendor, self.cdi_class, []), claim.uid)

    def write_cdi(
        self, claim: ClaimRef, devices: Sequence[PreparedDevice]
    ) -> tuple[PreparedDevice, ...]:
        """Write one CDI spec for the claim's devices that carry edits; their IDs are added."""
        cdi_devices: list[CDIDevice] = []
        answered: list[PreparedDevice] = []
        used: set[str] = set()
        for device in devices:
            if device.edits is None:
                answered.append(device)
                continue
            name = f"{claim.uid}-{device.device}"
            suffix = 1
            while name in used:
                suffix += 1
                name = f"{claim.uid}-{device.device}-{suffix}"
            used.add(name)
            cdi_devices.append(CDIDevice(name, device.edits))
            device_id = qualified_name(self.cdi_vendor, self.cdi_class, name)
            answered.append(
                replace(device, cdi_device_ids=(*device.cdi_device_ids, device_id), edits=None)
            )
        if cdi_devices:
            self.cdi_writer().write(
                CDISpec(self.cdi_vendor, self.cdi_class, cdi_devices), claim.uid
            )
        return tuple(answered)

    # --- health --------------------------------------------------------------------------

    def watch_health(self, stop: threading.Event) -> Iterator[Sequence[DeviceHealth]]:
        """Yield device health reports until ``stop`` is set. Drivers that report health
        override this; the kit then also serves the DRAResourceHealth service."""
        raise NotImplementedError

    @property
    def reports_health(self) -> bool:
        return type(self).watch_health is not Driver.watch_health

    @property
    def implements_prepare(self) -> bool:
        cls = type(self)
        return cls.prepare is not Driver.prepare or cls.prepare_claim is not Driver.prepare_claim


DRADriver = Driver
"""The former name of :class:`Driver`."""
