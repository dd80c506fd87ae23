"""ImageLocality: favours nodes that already have the pod's images.

Nodes are weighted by image size and by how many nodes have them
(pkg/scheduler/framework/plugins/imagelocality/image_locality.go, with the nodes' image states as the
scheduler's snapshot builds them from node status.images: backend/cache/snapshot.go).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from dractl.scheduler.framework import CycleState, NodeInfo, Plugin, PodInfo, Snapshot
from dractl.scheduler.plugins.helper import MAX_NODE_SCORE, go_div, go_int

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """normalizedImageName: a name without a tag gets ``:latest``."""
    if name.rfind(":") <= name.rfind("/"):
        name = name + ":latest"
    return name


def _node_images(ni: NodeInfo) -> dict[str, int]:
    """status.images: every name of every image -> its size in bytes."""
    out: dict[str, int] = {}
    images = ni.status.get("images") if isinstance(ni.status, Mapping) else None
    for img in images if isinstance(images, list) else ():
        if not isinstance(img, Mapping):
            continue
        size = img.get("sizeBytes")
        size = size if isinstance(size, int) and not isinstance(size, bool) else 0
        for name in img.get("names") or ():
            out[str(name)] = size
    return out


class _ImageStates:
    """Per snapshot: each node's images (name -> size) and on how many nodes each image name is."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.total_nodes = sum(1 for ni in snapshot.node_infos if ni.node is not None)
        self.by_node: dict[str, dict[str, int]] = {}
        self.num_nodes: dict[str, int] = {}
        for ni in snapshot.node_infos:
            if ni.node is None:
                continue
            imgs = _node_images(ni)
            self.by_node[ni.name] = imgs
            for name in imgs:
                self.num_nodes[name] = self.num_nodes.get(name, 0) + 1


_STATES: weakref.WeakKeyDictionary[Snapshot, _ImageStates] = weakref.WeakKeyDictionary()


def image_states(snapshot: Snapshot) -> _ImageStates:
    """The image states of a snapshot's nodes, computed once per snapshot."""
    s = _STATES.get(snapshot)
    if s is None:
        s = _STATES[snapshot] = _ImageStates(snapshot)
    return s


def _images(spec: Mapping[str, Any]) -> tuple[list[str], int]:
    """The images sumImageScores looks up (init containers, containers, image volumes) and imageCount."""
    names = []
    count = 0
    for key in ("initContainers", "containers"):
        for c in spec.get(key) or ():
            if isinstance(c, Mapping):
                names.append(normalized_image_name(str(c.get("image") or "")))
                count += 1
    for v in spec.get("volumes") or ():
        img = v.get("image") if isinstance(v, Mapping) else None
        if isinstance(img, Mapping):
            names.append(normalized_image_name(str(img.get("reference") or "")))
            count += 1
    return names, count


def calculate_priority(sum_scores: int, image_count: int) -> int:
    """image_locality.go calculatePriority."""
    max_threshold = MAX_CONTAINER_THRESHOLD * image_count
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


class ImageLocality(Plugin):
    """The ImageLocality score plugin."""
    name = NAME

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Score a node by the sizes of the pod's images it already has, spread-weighted (image_locality.go Score)."""
        snapshot = state.snapshot
        if not isinstance(snapshot, Snapshot):
            return 0
        st = image_states(snapshot)
        have = st.by_node.get(node.name, {})
        names, count = _images(pod.spec)
        total = 0
        for name in names:
            size = have.get(name)
            if size is not None:
                # scaledImageScore: size * (nodes with the image / all nodes), truncated
                total += go_int(float(size) * (float(st.num_nodes[name]) / float(st.total_nodes)))
        return calculate_priority(total, count)
