"""`dractl fake reset|load|apply|delete|env|health`: the embedded fake cluster's state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from dractl.cli import completers as _c
from dractl.cli.context import AppContext, app_context
from dractl.cli.listing import RecursiveOption
from dractl.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from dractl.sources.fake import FakeSource


def fake_cluster(ctx: typer.Context) -> tuple[FakeSource, AppContext]:
    """The fake cluster the command changes (not with --from)."""
    app_ctx = app_context(ctx)
    if app_ctx.source_options.from_file:
        raise UsageError("dractl fake works on the fake cluster; --from cannot be used with it")
    return app_ctx.fake_cluster(), app_ctx


def reset(
    ctx: typer.Context,
    nodes: Annotated[int, typer.Option("--nodes", metavar="N", min=1, max=100000, help="Number of worker nodes.")] = 1,
    devices_per_node: Annotated[
        int, typer.Option("--devices-per-node", metavar="N", min=0, max=100000, help="GPUs per node.")
    ] = 8,
    profile: Annotated[
        str,
        typer.Option(
            "--profile",
            help="What the nodes publish (see 'dractl fake profiles'): example-gpu, nvidia-mig, dranet, ...",
            autocompletion=_c.complete_profiles,
        ),
    ] = "example-gpu",
    node_cpu: Annotated[
        str, typer.Option("--node-cpu", metavar="QUANTITY", help="Each node's allocatable cpu.")
    ] = "32",
    node_memory: Annotated[
        str, typer.Option("--node-memory", metavar="QUANTITY", help="Each node's allocatable memory.")
    ] = "128Gi",
    node_pods: Annotated[
        int, typer.Option("--node-pods", metavar="N", min=0, max=1000000, help="Pods each node can run.")
    ] = 110,
) -> None:
    """Recreate the fake cluster: N nodes with a driver's devices (the example driver's GPUs by default)."""
    from dractl.control import profiles
    from dractl.control.store import document

    fake, app_ctx = fake_cluster(ctx)
    alloc = profiles.allocatable(node_cpu, node_memory, node_pods)
    items = profiles.build(profile, nodes, devices_per_node, alloc)
    with fake.store.transaction() as doc:
        doc.clear()
        doc.update(document(profile, items))
        doc["devicesPerNode"] = devices_per_node
    total = profiles.device_count(items)
    _say(app_ctx, f"fake cluster reset: profile {profile}, {nodes} node(s), {total} device(s)",
         {"profile": profile, "nodes": nodes, "devices": total})


def profiles_(ctx: typer.Context) -> None:
    """List the profiles 'fake reset --profile' takes.

    For each: its drivers, devices per node (at --devices-per-node 8) and what it shows.
    """
    from dractl.control import profiles
    from dractl.render.fake import profiles_result

    app_ctx = app_context(ctx)
    rows = []
    for p in profiles.all_profiles():
        slices = p.slices("node", 8)
        per_driver = {d: profiles.device_count([s for s in slices if s["spec"]["driver"] == d]) for d in p.drivers}
        rows.append((p, profiles.device_count(slices), per_driver))

    app_ctx.print(profiles_result(rows))


def load(
    ctx: typer.Context,
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE", help="Snapshot file (YAML or JSON, - for stdin).", autocompletion=_c.complete_files
        ),
    ],
) -> None:
    """Replace the fake cluster's state with the objects in FILE."""
    from dractl.control.admission import defaulted
    from dractl.control.store import document
    from dractl.sources.loader import refuse_duplicates

    fake, app_ctx = fake_cluster(ctx)
    objs = _read([file], app_ctx)
    refuse_duplicates(objs, "<stdin>" if file == "-" else file)
    # stored as the API server stores them: a namespaced object without a namespace is in "default"
    raws = [dict(defaulted(o.raw, None)) for o in objs]
    if not raws:
        # Replacing the cluster with nothing is almost surely the wrong file: refuse, change nothing.
        raise UsageError(f"{file}: no object dractl reads in it; the fake cluster is unchanged")
    with fake.store.transaction() as doc:
        doc.clear()
        doc.update(document("loaded", raws))
    _say(app_ctx, f"fake cluster loaded from {file}: {len(raws)} object(s)",
         {"profile": "loaded", "loadedFrom": file, "objects": len(raws)})


def _say(app_ctx: AppContext, line: str, cluster: dict[str, Any]) -> None:
    """What reset and load did: a sentence, or (-o json|yaml) a FakeCluster document."""
    from dractl.render.fake import state_result

    app_ctx.print(state_result(line, cluster))


def _read(files: list[str], app_ctx: AppContext, *, new: bool = False) -> list[Any]:
    """Parse and validate every FILE, in order, into model objects (``new``: to be created, see read_files).

    Their ``raw`` is the v1 dict; a ResourceSlice's is read again from the file when it is used. Any bad file is
    refused before anything is applied.
    """
    from dractl.cli.files import read_files

    return [o for _, objs in read_files(files, app_ctx, new=new) for o in objs]


def apply(
    ctx: typer.Context,
    filename: Annotated[
        list[str],
        typer.Option(
            "-f", "--filename", metavar="FILE",
            help="File to apply (- for stdin, a directory for its .json, .yaml and .yml files); repeat for several "
            "files.",
            autocompletion=_c.complete_files,
        ),
    ],
    recursive: RecursiveOption = False,
) -> None:
    """Create or replace the objects in FILE (pods and claims are then scheduled)."""
    _change(ctx, filename, delete=False, recursive=recursive)


def delete(
    ctx: typer.Context,
    filename: Annotated[
        list[str],
        typer.Option(
            "-f",
            "--filename",
            metavar="FILE",
            help="File naming the objects to delete (a directory for its .json, .yaml and .yml files); repeat for "
            "several files.",
            autocompletion=_c.complete_files,
        ),
    ],
    recursive: RecursiveOption = False,
    ignore_not_found: Annotated[
        bool, typer.Option("--ignore-not-found", help="Objects that do not exist are not an error (exit 0).")
    ] = False,
) -> None:
    """Delete the objects named in FILE (exit 1 if one does not exist, as kubectl delete)."""
    _change(ctx, filename, delete=True, ignore_not_found=ignore_not_found, recursive=recursive)


def _change(ctx: typer.Context, filename: list[str], *, delete: bool, ignore_not_found: bool = False,
            recursive: bool = False) -> None:
    """Apply or delete FILE's objects, then run the simulated control plane; one atomic write."""
    from dractl.cli.files import origins, read_files
    from dractl.control.plane import ControlPlane
    from dractl.render.events import event_line

    source, app_ctx = fake_cluster(ctx)
    files = read_files(filename, app_ctx, new=not delete, recursive=recursive)
    objs = [o for _, got in files for o in got]
    origin = origins(files)  # named where the apiserver refuses an object (kubectl: error when creating "FILE")

    with source.store.transaction() as doc:
        plane = ControlPlane(source.objects(doc["items"]), features=app_ctx.features,
                             memory=doc.setdefault("controllers", {}))
        if delete:
            events = plane.delete(objs, app_ctx.namespace, origin=origin)
        else:
            # admission raises before anything is written
            events = plane.apply(objs, app_ctx.namespace, namespaces_must_exist=True, origin=origin)
        events.extend(plane.reconcile())
        doc["items"] = plane.raw_items()
    print_changes(app_ctx, [e for e in events if e.verb not in ("not found", "refused")])
    # kubectl apply: what the apiserver refused on stderr (the rest is applied), exit 1
    refused = [e for e in events if e.verb == "refused"]
    for e in refused:
        app_ctx.stderr.write(f"error: {_located(e, e.message)}\n")
    # kubectl delete: NotFound on stderr, exit 1; --ignore-not-found: silent
    missing = [e for e in events if e.verb == "not found"]
    if missing and not ignore_not_found:
        for e in missing:
            app_ctx.stderr.write(f"error: {_located(e, event_line(e))}\n")
        raise typer.Exit(ExitCode.NEGATIVE)
    if refused:
        raise typer.Exit(ExitCode.NEGATIVE)


def _located(e: Any, text: str) -> str:
    return f"{e.origin}: {text}" if e.origin else text


def print_changes(app_ctx: AppContext, changes: list[Any]) -> None:
    """The control plane's changes, as render/fake.py words them."""
    from dractl.model.namespaces import namespace_or_default
    from dractl.render.fake import changes_result

    def explain(namespace: str, pod: str) -> str:
        return app_ctx.hint(f"pods {pod} --explain", namespace_or_default(namespace))

    app_ctx.print(changes_result(changes, explain))


def env(
    ctx: typer.Context,
    pod: Annotated[str, typer.Argument(help="Pod name (namespace from -n).", autocompletion=_c.complete_pods)],
) -> None:
    """Show the environment the example driver would give POD's containers (GPU_DEVICE_*).

    Only the dra-example-driver's: for another driver's devices dractl says it does not know.
    """
    from dractl.control.driver import container_env, other_drivers_devices

    fake, app_ctx = fake_cluster(ctx)
    ns = app_ctx.default_namespace()
    items = fake.store.read()["items"]
    per_container = container_env(items, ns, pod)
    for container, devices in other_drivers_devices(items, ns, pod).items():
        drivers = sorted({d.split("/")[0] for d in devices})
        app_ctx.warn(f"pod {ns}/{pod}, container {container}: holds {', '.join(devices)}; dractl does not know "
                     f"the container environment {' or '.join(drivers)} sets (it knows only the "
                     "dra-example-driver's)")
    from dractl.render.fake import env_result

    app_ctx.print(env_result(ns, pod, per_container))
    if not per_container:
        # a negative answer (as cel's when nothing matches): not running, or only devices whose driver's
        # environment dractl does not know; -o json|yaml still print the (empty) PodEnv
        if not other_drivers_devices(items, ns, pod):
            app_ctx.warn(f"pod {ns}/{pod} is not running with allocated devices")
        raise typer.Exit(ExitCode.NEGATIVE)


def health(
    ctx: typer.Context,
    device: Annotated[
        str,
        typer.Argument(
            help="DRIVER/POOL/DEVICE, POOL/DEVICE or a device name found once.", autocompletion=_c.complete_devices
        ),
    ],
    state: Annotated[str, typer.Argument(help="Healthy, Unhealthy or Unknown.")],
    message: Annotated[str, typer.Option("--message", metavar="TEXT", help="A message for the health report.")] = "",
) -> None:
    """Report a device's health as the kubelet would: rewrite the pods holding it (allocatedResourcesStatus)."""
    from dractl.control.kubelet import HEALTHS, write_health
    from dractl.errors import NotFoundError

    if state not in HEALTHS:
        raise UsageError(f"health {state!r}: must be one of {', '.join(HEALTHS)}")
    fake, app_ctx = fake_cluster(ctx)
    with fake.store.transaction() as doc:
        ids = []
        for o in doc["items"]:
            if o.get("kind") == "ResourceSlice":
                spec = o.get("spec") or {}
                for d in spec.get("devices") or []:
                    ids.append(f"{spec.get('driver')}/{(spec.get('pool') or {}).get('name')}/{d.get('name')}")
        found = sorted({i for i in ids if i == device or i.endswith("/" + device)})
        if not found:
            raise NotFoundError(f'device "{device}" not found')
        if len(found) > 1:
            raise UsageError(f"device {device!r} is ambiguous: {', '.join(found[:5])}; give DRIVER/POOL/DEVICE")
        recorded = dict(doc.get("deviceHealth") or {})
        recorded[found[0]] = {"health": state, **({"message": message} if message else {})}
        doc["deviceHealth"] = recorded
        pods = write_health(doc["items"], recorded)
    from dractl.render.fake import health_result

    app_ctx.print(health_result(found[0], state, message, pods))
