"""Limits of resource.k8s.io/v1 objects: pkg/apis/resource/types.go constants (v1.37)."""

from __future__ import annotations

# pkg/apis/resource/types.go constants (v1.37).
MAX_DEVICES = 128  # ResourceSliceMaxDevices
MAX_DEVICES_ADVANCED = 64  # ResourceSliceMaxDevicesWithAdvancedFeatures
MAX_ATTRS_AND_CAPS = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
MAX_ATTR_VALUES = 48  # ResourceSliceMaxAttributeValuesPerDevice
MAX_ATTR_VALUE_LEN = 64  # DeviceAttributeMaxValueLength
MAX_ID_LEN = 32  # DeviceMaxIDLength
MAX_DOMAIN_LEN = 63  # DeviceMaxDomainLength
MAX_KEY_LEN = MAX_DOMAIN_LEN + 1 + MAX_ID_LEN  # attributeAndCapacityMaxKeyLength (path truncation)
MAX_TAINTS = 16  # DeviceTaintsMaxLength
MAX_COUNTER_SETS = 8  # ResourceSliceMaxCounterSets
MAX_COUNTERS_PER_SET = 32  # ResourceSliceMaxCountersPerCounterSet
MAX_CONSUMES_COUNTERS = 2  # ResourceSliceMaxDeviceCounterConsumptionsPerDevice
MAX_COUNTERS_PER_CONSUMPTION = 32  # ResourceSliceMaxCountersPerDeviceCounterConsumption
MAX_BINDING_CONDITIONS = 4  # BindingConditionsMaxSize / BindingFailureConditionsMaxSize
POOL_NAME_MAX_LEN = 253  # PoolNameMaxLength
DRIVER_NAME_MAX_LEN = 63
MAX_REQUESTS = 32  # DeviceRequestsMaxSize
MAX_SUBREQUESTS = 8  # FirstAvailableDeviceRequestMaxSize
MAX_SELECTORS = 32  # DeviceSelectorsMaxSize
MAX_CONSTRAINTS = 32  # DeviceConstraintsMaxSize
MAX_CONFIG = 32  # DeviceConfigMaxSize
CEL_MAX_LEN = 10 * 1024  # CELSelectorExpressionMaxLength
OPAQUE_MAX_LEN = 10 * 1024  # OpaqueParametersMaxLength
STATUS_DATA_MAX_LEN = 10 * 1024  # AllocatedDeviceStatusDataMaxLength
MAX_RESULTS = 32  # AllocationResultsMaxSize
MAX_RESERVED_FOR = 256  # ResourceClaimReservedForMaxSize
MAX_DEVICE_CONDITIONS = 8  # AllocatedDeviceStatusMaxConditions
MAX_RULE_CONDITIONS = 8  # DeviceTaintRuleStatusMaxConditions
MAX_IPS = 16  # NetworkDeviceDataMaxIPs
MAX_INTERFACE_NAME = 256  # NetworkDeviceDataInterfaceNameMaxLength
MAX_HARDWARE_ADDRESS = 128  # NetworkDeviceDataHardwareAddressMaxLength
MAX_VALID_VALUES = 10  # CapacityRequestPolicyDiscreteMaxOptions
ANNOTATIONS_MAX_BYTES = 256 * 1024  # TotalAnnotationSizeLimitB
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
