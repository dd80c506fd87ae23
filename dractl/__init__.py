"""dractl: see and test Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1)."""

__version__ = "0.1.0"

#: The apiVersion of dractl's own documents (-o json|yaml) and of the fake cluster's state file.
DRACTL_API = "dractl/v1"
