"""DRA feature gates and their Kubernetes v1.37 defaults.

The table follows the 1.37 versioned feature list (pkg/features/kube_features.go);
see the README for what each gate changes in dractl.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dractl.errors import UsageError

# name -> (default in v1.37, locked to the default)
V1_37_DEFAULTS: dict[str, tuple[bool, bool]] = {
    "DynamicResourceAllocation": (True, True),
    "DRAAdminAccess": (True, True),
    "DRAPrioritizedList": (True, True),
    "DRAResourceClaimDeviceStatus": (True, True),
    "DRAPartitionableDevices": (True, False),
    "DRADeviceTaints": (True, True),
    "DRADeviceTaintRules": (True, False),
    "DRAConsumableCapacity": (True, False),
    "DRADeviceBindingConditions": (True, False),
    "DRAExtendedResource": (True, True),
    "DRAListTypeAttributes": (False, False),
    "DRANodeAllocatableResources": (False, False),
    # Beta in 1.37, default on only where the minimum compatibility version is 1.37; a v1.37 binary defaults it to
    # 1.36, so the real v1.37.2 apiserver and scheduler of tests/cluster run it off (their /metrics say 0)
    "DRAFractionalCapacityRange": (False, False),
    "DRAOptionalNodeOperations": (False, False),
    "DRAPartitionableDevicesType": (False, False),
    "DRAWorkloadResourceClaims": (False, False),
}

GATE_NAMES: tuple[str, ...] = tuple(V1_37_DEFAULTS)


@dataclass(frozen=True, slots=True)
class AllocatorFeatures:
    """The allocator's feature switches, built once from the gates.

    Ported from k8s.io/dynamic-resource-allocation structured/internal/types.go (Features).
    """

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    device_taints: bool = True
    device_taint_rules: bool = True
    binding_conditions: bool = True
    consumable_capacity: bool = True
    fractional_capacity_range: bool = True
    list_type_attributes: bool = False


@dataclass(frozen=True)
class FeatureGates:
    """An immutable set of gate values; unknown names are rejected when parsing."""

    overrides: Mapping[str, bool] = field(default_factory=dict)

    def enabled(self, name: str) -> bool:
        """Whether gate ``name`` is on: its override if given, else the v1.37 default."""
        if name in self.overrides:
            return self.overrides[name]
        return V1_37_DEFAULTS[name][0]

    # Short accessors used by the CEL environment and the allocator.
    @property
    def admin_access(self) -> bool:
        """DRAAdminAccess."""
        return self.enabled("DRAAdminAccess")

    @property
    def prioritized_list(self) -> bool:
        """DRAPrioritizedList."""
        return self.enabled("DRAPrioritizedList")

    @property
    def partitionable_devices(self) -> bool:
        """DRAPartitionableDevices."""
        return self.enabled("DRAPartitionableDevices")

    @property
    def device_taints(self) -> bool:
        """DRADeviceTaints."""
        return self.enabled("DRADeviceTaints")

    @property
    def device_taint_rules(self) -> bool:
        """DRADeviceTaintRules."""
        return self.enabled("DRADeviceTaintRules")

    @property
    def consumable_capacity(self) -> bool:
        """DRAConsumableCapacity."""
        return self.enabled("DRAConsumableCapacity")

    @property
    def binding_conditions(self) -> bool:
        """DRADeviceBindingConditions, which needs DRAResourceClaimDeviceStatus too."""
        return self.enabled("DRADeviceBindingConditions") and self.enabled("DRAResourceClaimDeviceStatus")

    @property
    def list_type_attributes(self) -> bool:
        """DRAListTypeAttributes."""
        return self.enabled("DRAListTypeAttributes")

    @property
    def fractional_capacity_range(self) -> bool:
        """DRAFractionalCapacityRange."""
        return self.enabled("DRAFractionalCapacityRange")

    @property
    def extended_resource(self) -> bool:
        """DRAExtendedResource."""
        return self.enabled("DRAExtendedResource")

    def allocator_features(self) -> AllocatorFeatures:
        """The switches the allocator reads, resolved once."""
        return AllocatorFeatures(
            admin_access=self.admin_access,
            prioritized_list=self.prioritized_list,
            partitionable_devices=self.partitionable_devices,
            device_taints=self.device_taints,
            device_taint_rules=self.device_taint_rules,
            binding_conditions=self.binding_conditions,
            consumable_capacity=self.consumable_capacity,
            fractional_capacity_range=self.fractional_capacity_range,
            list_type_attributes=self.list_type_attributes,
        )

    def key(self) -> tuple[tuple[str, bool], ...]:
        """A hashable identity (for caches)."""
        return tuple(sorted((n, self.enabled(n)) for n in GATE_NAMES))

    @classmethod
    def parse(cls, spec: str | None) -> FeatureGates:
        """Parse ``Name=true,Other=false`` as kube-scheduler's ``--feature-gates`` does."""
        if not spec:
            return cls()
        out: dict[str, bool] = {}
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, val = part.partition("=")
            name = name.strip()
            if not sep:
                raise UsageError(f"--feature-gates: missing '=true' or '=false' in {part!r}")
            if name not in V1_37_DEFAULTS:
                raise UsageError(
                    f"--feature-gates: unrecognized feature gate {name!r} (known: {', '.join(GATE_NAMES)})"
                )
            low = val.strip().lower()
            if low not in ("true", "false"):
                raise UsageError(f"--feature-gates: invalid value {val!r} for {name}: use true or false")
            # Gates locked in v1.37 may still be turned off: that is how a user
            # reproduces an older cluster's scheduler (e.g. DRAPrioritizedList before 1.34).
            out[name] = low == "true"
        return cls(out)


DEFAULT_GATES = FeatureGates()
