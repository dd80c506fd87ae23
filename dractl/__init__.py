"""dractl: see and test Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1)."""

__version__ = "0.1.0"

#: The apiVersion of dractl's own documents (-o json|yaml) and of the fake cluster's state file.
DRACTL_API = "dractl/v1"

#: The label on what dractl writes into a cluster (fake publish, taint, rbac): app.kubernetes.io/managed-by=dractl.
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
#: The label that groups the DeviceTaintRules one ``dractl taint --class/--selector`` writes (one per device).
TAINT_GROUP_LABEL = "dractl.io/taint-group"
