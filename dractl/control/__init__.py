"""The simulated control plane: admission, controllers, the scheduler loop and the fake cluster's state."""
