"""DRA extended resources (KEP-5004): upstream's createRequestsAndMappings tables and the delegation rule.

Source: k8s.io/kubernetes v1.37.2 pkg/scheduler/framework/plugins/dynamicresources/
extendeddynamicresources_test.go (Test_createRequestsAndMappings_requests, ..._mappings), with its pod
wrappers as upstream's scheduler testing package builds them: ``Res`` adds container ``con<N>``, ``InitReq``
init container ``init-con<N>``, ``SidecarReq`` a restartable init container ``sidecar-con<N>``.
"""

from __future__ import annotations

from typing import Any

import pytest

from dractl.model.extendedresources import DeviceClassResolver
from dractl.model.objects import DeviceClass, ObjectMeta
from dractl.scheduler import extended

GPU = "example.com/gpu"
IMPLICIT_INIT = "deviceclass.resource.kubernetes.io/classInit"


class PodWrapper:
    """st.MakePod(): Res, InitReq, SidecarReq."""

    def __init__(self) -> None:
        self.spec: dict[str, Any] = {"containers": [], "initContainers": []}

    def res(self, **req: str) -> PodWrapper:
        n = len(self.spec["containers"])
        self.spec["containers"].append({"name": f"con{n}", "resources": {"requests": _names(req)}})
        return self

    def init_req(self, **req: str) -> PodWrapper:
        n = len(self.spec["initContainers"])
        self.spec["initContainers"].append({"name": f"init-con{n}", "resources": {"requests": _names(req)}})
        return self

    def sidecar_req(self, **req: str) -> PodWrapper:
        n = len(self.spec["initContainers"])
        self.spec["initContainers"].append({"name": f"sidecar-con{n}", "restartPolicy": "Always",
                                            "resources": {"requests": _names(req)}})
        return self


def _names(req: dict[str, str]) -> dict[str, str]:
    """Keyword names for resource names: gpu -> example.com/gpu, gpu1 -> example.com/gpu1, gpuinit ->
    example.com/gpuinit, implicit_init -> deviceclass.resource.kubernetes.io/classInit."""
    return {IMPLICIT_INIT if k == "implicit_init" else "example.com/" + k: v for k, v in req.items()}


class Resolver(DeviceClassResolver):
    """mockDeviceClassResolver: a fixed name -> class map."""

    def __init__(self, mapping: dict[str, str]) -> None:
        super().__init__({n: DeviceClass(meta=ObjectMeta(name=c)) for n, c in mapping.items()}, {})


def pod1() -> PodWrapper:
    return PodWrapper().res(gpu="1", gpu1="2")


def pod2() -> PodWrapper:
    return PodWrapper().res(gpu="1").res(gpu1="2")


def pod_init() -> PodWrapper:
    return PodWrapper().res(gpu="1").init_req(gpuinit="2")


def pod_init2() -> PodWrapper:
    return PodWrapper().res(gpu="1").init_req(gpuinit="1").init_req(gpuinit="2")


def pod_init3() -> PodWrapper:
    return PodWrapper().res(gpu="1").init_req(gpuinit="1").sidecar_req(gpuinit="1").init_req(gpuinit="2")


def pod1_init_implicit() -> PodWrapper:
    return PodWrapper().init_req(gpuinit="1", implicit_init="2")


def pod_init_implicit() -> PodWrapper:
    return PodWrapper().res(gpu="1").init_req(gpuinit="1").init_req(implicit_init="2")


RES = {GPU: 1}
RES2 = {GPU: 1, GPU + "1": 2}
RES_INIT = {GPU: 1, GPU + "init": 2}
RES_INIT_IMPLICIT = {GPU: 1, GPU + "init": 2, IMPLICIT_INIT: 2}
DEV_MAP = {GPU: "class"}
DEV_MAP2 = {GPU: "class", GPU + "1": "class1"}
DEV_MAP_INIT = {GPU: "class", GPU + "init": "classInit", IMPLICIT_INIT: "classInit"}


def req(name: str, cls: str, count: int) -> tuple[str, str, int]:
    return (name, cls, count)


REQUEST_CASES = {
    "nil": (pod1, {}, {}, []),
    "one resource match": (pod1, RES, DEV_MAP, [req("container-0-request-0", "class", 1)]),
    "one resource match, one resource not match": (pod1, RES2, DEV_MAP, [req("container-0-request-0", "class", 1)]),
    "two resources match": (pod1, RES2, DEV_MAP2, [req("container-0-request-0", "class", 1),
                                                   req("container-0-request-1", "class1", 2)]),
    "two containers match": (pod2, RES2, DEV_MAP2, [req("container-0-request-0", "class", 1),
                                                    req("container-1-request-0", "class1", 2)]),
    "one init container, one regular container": (
        pod_init, RES_INIT, DEV_MAP_INIT, [req("container-0-request-0", "classInit", 2),
                                           req("container-1-request-0", "class", 1)]),
    "two init containers, one regular container": (
        pod_init2, RES_INIT, DEV_MAP_INIT, [req("container-1-request-0", "classInit", 2),
                                            req("container-2-request-0", "class", 1)]),
    "three init containers, one sidecar, one regular container": (
        pod_init3, RES_INIT, DEV_MAP_INIT, [req("container-1-request-0", "classInit", 1),
                                            req("container-2-request-0", "classInit", 2),
                                            req("container-3-request-0", "class", 1)]),
}


@pytest.mark.parametrize("name", sorted(REQUEST_CASES))
def test_upstream_create_requests_and_mappings_requests(name):
    make, res, mapping, want = REQUEST_CASES[name]
    got, _ = extended.create_requests_and_mappings(make().spec, res, Resolver(mapping))
    assert [(r["name"], r["exactly"]["deviceClassName"], r["exactly"]["count"]) for r in got] == want
    assert all(r["exactly"]["allocationMode"] == "ExactCount" for r in got)


def m(container: str, resource: str, request: str) -> tuple[str, str, str]:
    return (request, container, resource)


MAPPING_CASES = {
    "one container, two requests": (pod1, RES2, DEV_MAP2, [
        m("con0", GPU, "container-0-request-0"), m("con0", GPU + "1", "container-0-request-1")]),
    "one container, one explicit and one implicit request": (pod1_init_implicit, RES_INIT_IMPLICIT, DEV_MAP_INIT, [
        m("init-con0", IMPLICIT_INIT, "container-0-request-0"), m("init-con0", GPU + "init", "container-0-request-1")]),
    "two containers, two requests": (pod2, RES2, DEV_MAP2, [
        m("con0", GPU, "container-0-request-0"), m("con1", GPU + "1", "container-1-request-0")]),
    "one init container, one regular container, one request": (pod_init, RES_INIT, DEV_MAP_INIT, [
        m("init-con0", GPU + "init", "container-0-request-0"), m("con0", GPU, "container-1-request-0")]),
    "three containers (two are init container), two requests": (pod_init2, RES_INIT, DEV_MAP_INIT, [
        m("init-con0", GPU + "init", "container-1-request-0"), m("init-con1", GPU + "init", "container-1-request-0"),
        m("con0", GPU, "container-2-request-0")]),
    "three containers (two are init container), both explicit and implicit resources": (
        pod_init_implicit, RES_INIT_IMPLICIT, DEV_MAP_INIT, [
            m("init-con0", GPU + "init", "container-0-request-0"),
            m("init-con1", IMPLICIT_INIT, "container-1-request-0"), m("con0", GPU, "container-2-request-0")]),
    "four containers (two are init container, one sidecar), three requests": (pod_init3, RES_INIT, DEV_MAP_INIT, [
        m("init-con0", GPU + "init", "container-1-request-0"), m("sidecar-con1", GPU + "init", "container-1-request-0"),
        m("init-con2", GPU + "init", "container-2-request-0"), m("con0", GPU, "container-3-request-0")]),
}


@pytest.mark.parametrize("name", sorted(MAPPING_CASES))
def test_upstream_create_requests_and_mappings_mappings(name):
    make, res, mapping, want = MAPPING_CASES[name]
    _, got = extended.create_requests_and_mappings(make().spec, res, Resolver(mapping))
    # upstream sorts by request name, then container name, before comparing
    assert sorted((x.request, x.container, x.resource) for x in got) == want


def test_request_names_count_every_resource_of_the_container():
    """The request's index is the resource's place among all of the container's requests, sorted."""
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi", GPU: "2"}}}]}
    reqs, maps = extended.create_requests_and_mappings(spec, {GPU: 2}, Resolver(DEV_MAP))
    assert [r["name"] for r in reqs] == ["container-0-request-1"]
    assert [x.to_dict() for x in maps] == [{"containerName": "c", "resourceName": GPU,
                                            "requestName": "container-0-request-1"}]


def test_a_device_plugin_node_serves_the_name_itself():
    """fit.go shouldDelegateResourceToDRA: DRA only where the node's allocatable lacks the name."""
    r = Resolver(DEV_MAP)
    assert extended.delegated_to_dra(GPU, {}, r)
    assert not extended.delegated_to_dra(GPU, {GPU: 4}, r)
    assert not extended.delegated_to_dra("example.com/fpga", {}, r)
    node = extended.node_extended_resources({GPU: 1, "example.com/fpga": 1}, {"example.com/fpga": 2}, r)
    assert (dict(node.resources), node.unfit) == ({GPU: 1}, "")
    assert extended.node_extended_resources({"example.com/fpga": 1}, {}, r).unfit == "example.com/fpga"
