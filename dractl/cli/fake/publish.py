"""`dractl fake publish` / `unpublish`: copy the fake cluster's slices and classes to a live cluster, and back."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from dractl import MANAGED_BY_LABEL
from dractl.cli.context import AppContext, app_context
from dractl.errors import ExitCode

MANAGED_SELECTOR = f"{MANAGED_BY_LABEL}=dractl"


def _live(app_ctx: AppContext) -> Any:
    from dractl.errors import SourceError, UsageError
    from dractl.sources.base import open_source

    opts = app_ctx.source_options
    if opts.from_file or opts.fake:
        raise UsageError("fake publish/unpublish write to a live cluster; --from and --fake cannot be used with them")
    source = open_source(opts, app_ctx.warn) if opts.kubeconfig or _has_kubeconfig() else None
    if source is None or not source.is_live:
        raise SourceError(
            "no kubeconfig found: fake publish/unpublish need a live cluster (KUBECONFIG or --kubeconfig)"
        )
    return source


def _has_kubeconfig() -> bool:
    from dractl.sources.kubeconfig import choose_kubeconfig

    return choose_kubeconfig(None) is not None


def publish(
    ctx: typer.Context,
    nodes: Annotated[
        str | None,
        typer.Option("--nodes", metavar="NODE,...", help="Comma-separated live nodes (default: every node)."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Publish the fake cluster's profile into the live cluster.

    Its DeviceClasses and one ResourceSlice set per node, as the profile's drivers would, labelled
    app.kubernetes.io/managed-by=dractl.
    """
    from dractl.control import profiles
    from dractl.errors import UsageError

    app_ctx = app_context(ctx)
    live = _live(app_ctx)
    state = app_ctx.fake_cluster().store.read()
    name = state.get("profile")
    if name not in profiles.PROFILES:
        raise UsageError(
            f"the fake cluster holds objects loaded from a file (profile {name!r}); publish needs a profile: "
            "run 'dractl fake reset --profile NAME' first"
        )
    profile = profiles.get(str(name))
    per_node = state.get("devicesPerNode")
    if not isinstance(per_node, int) or isinstance(per_node, bool):
        per_node = _devices_per_node(state["items"])
    live_nodes = {n["metadata"]["name"]: n for n in live.list_raw("Node")["items"]}
    wanted = [n for n in (nodes.split(",") if nodes else sorted(live_nodes)) if n]
    missing = [n for n in wanted if n not in live_nodes]
    if missing:
        raise UsageError(f"--nodes: no such node in {live.description}: {', '.join(missing)}")
    if not wanted:
        raise UsageError(f"{live.description} has no nodes to publish devices on")
    slices = live.list_raw("ResourceSlice")["items"]
    drivers = set(profile.drivers)
    taken = {s["spec"].get("nodeName") for s in slices if s["spec"].get("driver") in drivers and not _ours(s)}
    skipped = [n for n in wanted if n in taken]
    if skipped:
        app_ctx.warn(f"skipping node(s) where {' or '.join(sorted(drivers))} already publishes devices: "
                     f"{', '.join(skipped)}")
    wanted = [n for n in wanted if n not in taken]
    objs: list[dict[str, Any]] = []
    classes = {c["metadata"]["name"]: c for c in live.list_raw("DeviceClass")["items"]}
    new_classes = []
    for dc in map(_label, profile.classes()):
        existing = classes.get(dc["metadata"]["name"])
        if existing is not None and not _ours(existing):
            app_ctx.warn(f"DeviceClass {dc['metadata']['name']} exists and is not dractl's: left as it is")
        else:
            objs.append(dc)
            new_classes.append(dc["metadata"]["name"])
    for n in wanted:
        for s in profile.slices(n, per_node):
            s = {**s, "metadata": dict(s["metadata"])}
            md = s["metadata"]
            md.pop("generateName", None)
            # Owned by the live node, as a kubelet plugin's slices are (a made-up uid would be garbage collected).
            md["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": n, "controller": True,
                                      "uid": live_nodes[n]["metadata"]["uid"]}]
            objs.append(_label(s))
    n_slices = sum(1 for o in objs if o["kind"] == "ResourceSlice")
    n_devices = sum(len(o["spec"].get("devices") or []) for o in objs if o["kind"] == "ResourceSlice")
    what = (f"DeviceClass {', '.join(new_classes)} and " if len(new_classes) == 1 else
            f"DeviceClasses {', '.join(new_classes)} and " if new_classes else "")
    plan = (f"publish profile {profile.name} into {live.description}: " + what
            + f"{n_slices} ResourceSlice(s) with {n_devices} device(s) on {len(wanted)} node(s)")
    if not n_slices and not objs:
        _print_done(app_ctx, "nothing to publish", [], "applied")
        raise typer.Exit(ExitCode.NEGATIVE)
    if not yes and not typer.confirm(plan + "?", err=True):
        raise typer.Abort()
    for o in objs:
        live.apply(o)
    _print_done(app_ctx, plan.replace("publish", "published", 1), [(o["kind"], o["metadata"]["name"]) for o in objs],
                "applied")


def unpublish(
    ctx: typer.Context, yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False
) -> None:
    """Remove exactly what 'dractl fake publish' created (objects labelled app.kubernetes.io/managed-by=dractl)."""
    app_ctx = app_context(ctx)
    live = _live(app_ctx)
    found = [("ResourceSlice", s["metadata"]["name"])
             for s in live.list_raw("ResourceSlice", label_selector=MANAGED_SELECTOR)["items"]]
    found += [("DeviceClass", c["metadata"]["name"])
              for c in live.list_raw("DeviceClass", label_selector=MANAGED_SELECTOR)["items"]]
    if not found:
        _print_done(app_ctx, f"nothing published by dractl in {live.description}", [], "deleted")
        return
    plan = f"delete {len(found)} object(s) dractl published in {live.description}"
    if not yes and not typer.confirm(plan + "?", err=True):
        raise typer.Abort()
    gone = [(kind, name) for kind, name in found if live.delete(kind, name)]
    _print_done(app_ctx, f"deleted {len(gone)} object(s) dractl published in {live.description}", gone, "deleted")


def _print_done(app_ctx: AppContext, line: str, objects: list[tuple[str, str]], verb: str) -> None:
    """What publish/unpublish did: the sentence, the objects (-o name) or a ChangeList."""
    from dractl.render.printers import Result, dractl_list

    refs = [f"{kind.lower()}.resource.k8s.io/{name}" for kind, name in objects]
    app_ctx.print(Result(table=None, text=lambda: line, names=lambda: refs,
                         document=lambda: dractl_list("ChangeList", [{"object": r, "verb": verb} for r in refs])))


def _ours(obj: dict[str, Any]) -> bool:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(MANAGED_BY_LABEL) == "dractl"


def _label(obj: dict[str, Any]) -> dict[str, Any]:
    md = obj.setdefault("metadata", {})
    md["labels"] = {**(md.get("labels") or {}), MANAGED_BY_LABEL: "dractl"}
    return obj


def _devices_per_node(items: list[dict[str, Any]]) -> int:
    """GPUs per node in the fake cluster: distinct GPU uuids on its first node (partitions share their GPU's)."""
    per: dict[str, set[str]] = {}
    for o in items:
        if o.get("kind") != "ResourceSlice":
            continue
        spec = o.get("spec") or {}
        for d in spec.get("devices") or []:
            node = d.get("nodeName") or spec.get("nodeName") or ""
            uuid = ((d.get("attributes") or {}).get("uuid") or {}).get("string") or d.get("name")
            per.setdefault(node, set()).add(str(uuid))
    return len(per[min(per)]) if per else 0
