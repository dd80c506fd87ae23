"""`dractl fake`: the embedded fake cluster's commands."""
