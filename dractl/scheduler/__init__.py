"""kube-scheduler's filter phase for one pod, as the v1.37 default profile runs it (pure; no I/O).

framework.py holds upstream's types (Status, CycleState, PodInfo, NodeInfo, Snapshot, Plugin, Framework,
Diagnosis, fit_error); resources.py what pods request and nodes offer; profile.py the default profile;
plugins/ one module per upstream plugin.
"""
