"""`dractl fake ...`: manage the embedded fake cluster's state."""

from __future__ import annotations

from typing import Any

import typer

from dractl.errors import UsageError

app = typer.Typer(help="Manage the embedded fake cluster (state in $DRACTL_STATE or the XDG state dir).", no_args_is_help=True)


def fake_source(ctx: typer.Context) -> Any:
    from dractl.sources.fake import FakeSource

    app_ctx = ctx.find_root().obj
    if app_ctx.source_options.from_file:
        raise UsageError("dractl fake works on the fake cluster; --from cannot be used with it")
    return FakeSource(app_ctx.source_options.state_dir, app_ctx.warn), app_ctx


@app.command("reset")
def reset(
    ctx: typer.Context,
    nodes: int = typer.Option(1, "--nodes", min=1, max=100000, help="Number of worker nodes."),
    devices_per_node: int = typer.Option(8, "--devices-per-node", min=0, max=100000, help="GPUs per node."),
    profile: str = typer.Option(
        "example-gpu", "--profile", help="example-gpu | example-gpu-shared | example-gpu-partitions"
    ),
) -> None:
    """Recreate the fake cluster: N nodes with the example driver's GPUs."""
    from dractl.sources import profiles

    src, app_ctx = fake_source(ctx)
    items = profiles.build(profile, nodes, devices_per_node)
    src.cluster_of(items)  # validate before anything is written
    with src.transaction() as doc:
        doc.clear()
        doc.update({"apiVersion": "dractl/v1", "profile": profile, "items": items})
    total = sum(len((o.get("spec") or {}).get("devices") or []) for o in items if o["kind"] == "ResourceSlice")
    app_ctx.stdout.write(f"fake cluster reset: profile {profile}, {nodes} node(s), {total} device(s)\n")


@app.command("load")
def load(ctx: typer.Context, file: str = typer.Argument(..., help="Snapshot file (YAML or JSON, - for stdin).")) -> None:
    """Replace the fake cluster's state with the objects in FILE."""
    src, app_ctx = fake_source(ctx)
    objs, raws = _read(file, app_ctx)
    with src.transaction() as doc:
        doc.clear()
        doc.update({"apiVersion": "dractl/v1", "profile": "loaded", "items": raws})
    app_ctx.stdout.write(f"fake cluster loaded from {file}: {len(raws)} object(s)\n")


def _read(file: str, app_ctx: Any) -> tuple[list[Any], list[dict[str, Any]]]:
    """Parse and validate FILE; returns the model objects and their v1 dicts."""
    from dractl.sources.loader import parse_objects, read_bytes

    origin = "<stdin>" if file == "-" else file
    objs = parse_objects(read_bytes(file), origin, warn=app_ctx.warn)
    return objs, [dict(o.raw) for o in objs]


@app.command("apply")
def apply(ctx: typer.Context, filename: str = typer.Option(..., "-f", "--filename", help="File to apply (- for stdin).")) -> None:
    """Create or replace the objects in FILE (pods and claims are then scheduled)."""
    from dractl.sources.fake import object_key

    src, app_ctx = fake_source(ctx)
    objs, raws = _read(filename, app_ctx)
    lines: list[str] = []
    with src.transaction() as doc:
        index = {object_key(o): i for i, o in enumerate(doc["items"])}
        for raw in raws:
            raw = _defaulted(raw)
            key = object_key(raw)
            if key in index:
                doc["items"][index[key]] = raw
                verb = "configured"
            else:
                index[key] = len(doc["items"])
                doc["items"].append(raw)
                verb = "created"
            lines.append(f"{_kind_name(raw)} {verb}")
        lines.extend(_reconcile(src, doc, app_ctx))
    for line in lines:
        app_ctx.stdout.write(line + "\n")


@app.command("delete")
def delete(ctx: typer.Context, filename: str = typer.Option(..., "-f", "--filename", help="File naming the objects to delete.")) -> None:
    """Delete the objects named in FILE."""
    from dractl.sources.fake import object_key

    src, app_ctx = fake_source(ctx)
    objs, raws = _read(filename, app_ctx)
    lines: list[str] = []
    with src.transaction() as doc:
        for raw in raws:
            key = object_key(_defaulted(raw))
            before = len(doc["items"])
            doc["items"] = [o for o in doc["items"] if object_key(o) != key]
            lines.append(f"{_kind_name(raw)} deleted" if len(doc["items"]) < before else f"{_kind_name(raw)} not found")
        lines.extend(_reconcile(src, doc, app_ctx))
    for line in lines:
        app_ctx.stdout.write(line + "\n")


def _reconcile(src: Any, doc: dict[str, Any], app_ctx: Any) -> list[str]:
    """Run the simulated control plane (claim controller, scheduler) when it is available."""
    try:
        from dractl import sim
    except ImportError:
        return []
    return sim.reconcile(doc, features=app_ctx.features)


_NAMESPACED = {"ResourceClaim", "ResourceClaimTemplate", "Pod"}


def _defaulted(raw: dict[str, Any]) -> dict[str, Any]:
    """Namespaced objects without a namespace go to 'default', as kubectl apply does."""
    if raw.get("kind") in _NAMESPACED and not (raw.get("metadata") or {}).get("namespace"):
        raw = {**raw, "metadata": {**(raw.get("metadata") or {}), "namespace": "default"}}
    return raw


def _kind_name(raw: dict[str, Any]) -> str:
    kind = raw.get("kind", "")
    group = (raw.get("apiVersion") or "").rpartition("/")[0]
    resource = kind.lower() + (f".{group}" if group else "")
    return f"{resource}/{(raw.get('metadata') or {}).get('name', '')}"
