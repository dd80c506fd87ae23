"""One module per kube-scheduler plugin (pkg/scheduler/framework/plugins/<name>)."""
