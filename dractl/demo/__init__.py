"""`dractl demo`: the blog post's three demos, run and checked on kind, on any cluster, or in the fake cluster.

- ``catalog``: the demos, their manifests (package data) and the outcome the post shows;
- ``verify``: pure checks of that outcome against a cluster's state;
- ``target``: the small interface the runner needs from a cluster (apply, observe, pod
  environment, delete a namespace), over the fake cluster and over kubectl;
- ``kind``: the kind bootstrap (tool checks, cluster, driver) as a plan of commands;
- ``runner``: apply, wait, check; never prints (the command does).
"""
