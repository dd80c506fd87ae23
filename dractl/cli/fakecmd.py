"""`dractl fake ...`: manage the embedded fake cluster's state."""

from __future__ import annotations

from typing import Any

import typer

from dractl.cli import completion as _c
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
        "example-gpu",
        "--profile",
        help="example-gpu | example-gpu-shared | example-gpu-partitions",
        autocompletion=_c.complete_profiles,
    ),
) -> None:
    """Recreate the fake cluster: N nodes with the example driver's GPUs."""
    from dractl.sources import profiles

    src, app_ctx = fake_source(ctx)
    items = profiles.build(profile, nodes, devices_per_node)
    with src.transaction() as doc:
        doc.clear()
        doc.update({"apiVersion": "dractl/v1", "profile": profile, "items": items})
    total = sum(len((o.get("spec") or {}).get("devices") or []) for o in items if o["kind"] == "ResourceSlice")
    app_ctx.stdout.write(f"fake cluster reset: profile {profile}, {nodes} node(s), {total} device(s)\n")


@app.command("load")
def load(ctx: typer.Context, file: str = typer.Argument(
        ..., help="Snapshot file (YAML or JSON, - for stdin).", autocompletion=_c.complete_files
    )) -> None:
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
def apply(ctx: typer.Context, filename: str = typer.Option(
        ..., "-f", "--filename", help="File to apply (- for stdin).", autocompletion=_c.complete_files
    )) -> None:
    """Create or replace the objects in FILE (pods and claims are then scheduled)."""
    from dractl import sim
    from dractl.sources.fake import object_key

    src, app_ctx = fake_source(ctx)
    objs, raws = _read(filename, app_ctx)
    lines: list[str] = []
    with src.transaction() as doc:
        index = {object_key(o): i for i, o in enumerate(doc["items"])}
        for raw in raws:
            raw = _defaulted(raw, app_ctx.namespace)
            sim.admit(raw, doc["items"])  # raises before anything is written
            key = object_key(raw)
            if key in index:
                doc["items"][index[key]] = sim.updated(doc["items"][index[key]], raw)
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
def delete(ctx: typer.Context, filename: str = typer.Option(
        ..., "-f", "--filename", help="File naming the objects to delete.", autocompletion=_c.complete_files
    )) -> None:
    """Delete the objects named in FILE."""
    from dractl.sources.fake import object_key

    src, app_ctx = fake_source(ctx)
    objs, raws = _read(filename, app_ctx)
    lines: list[str] = []
    with src.transaction() as doc:
        for raw in raws:
            key = object_key(_defaulted(raw, app_ctx.namespace))
            found = [o for o in doc["items"] if object_key(o) == key]
            if not found:
                lines.append(f"{_kind_name(raw)} not found")
                continue
            in_use = (found[0].get("status") or {}).get("reservedFor") if key[0] == "ResourceClaim" else None
            if in_use:
                # delete-protection: the claim goes once its consumers are gone
                found[0].setdefault("metadata", {}).setdefault("deletionTimestamp", _now())
                users = ", ".join(r.get("name", "") for r in in_use)
                lines.append(f"{_kind_name(raw)} marked for deletion (still in use by {users})")
                continue
            doc["items"] = [o for o in doc["items"] if object_key(o) != key]
            lines.append(f"{_kind_name(raw)} deleted")
        lines.extend(_reconcile(src, doc, app_ctx))
    for line in lines:
        app_ctx.stdout.write(line + "\n")


def _reconcile(src: Any, doc: dict[str, Any], app_ctx: Any) -> list[str]:
    """Run the simulated control plane (claim controller, scheduler)."""
    from dractl import sim

    return sim.reconcile(doc, features=app_ctx.features)


def _now() -> str:
    from dractl.sim import _now as now

    return now()


@app.command("env")
def env(ctx: typer.Context, pod: str = typer.Argument(..., help="Pod name (namespace from -n).", autocompletion=_c.complete_pods)) -> None:
    """Show the environment the example driver would give POD's containers (GPU_DEVICE_*)."""
    from dractl import sim

    src, app_ctx = fake_source(ctx)
    ns = app_ctx.namespace or "default"
    doc = src.read_state()
    per_container = sim.container_env(doc["items"], ns, pod)
    if app_ctx.output in ("json", "yaml"):
        from dractl.render.printers import to_json, to_yaml

        app_ctx.stdout.write((to_json if app_ctx.output == "json" else to_yaml)(per_container))
        return
    if not per_container:
        app_ctx.warn(f"pod {ns}/{pod} is not running with allocated devices")
        raise typer.Exit(1)
    multi = len(per_container) > 1
    for container, variables in per_container.items():
        for k, v in variables.items():
            app_ctx.stdout.write((f"[{container}] " if multi else "") + f"{k}={v}\n")


_NAMESPACED = {"ResourceClaim", "ResourceClaimTemplate", "Pod"}


def _defaulted(raw: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    """Namespaced objects without a namespace go to -n (else 'default'), as kubectl apply does."""
    if raw.get("kind") in _NAMESPACED and not (raw.get("metadata") or {}).get("namespace"):
        raw = {**raw, "metadata": {**(raw.get("metadata") or {}), "namespace": namespace or "default"}}
    return raw


def _kind_name(raw: dict[str, Any]) -> str:
    kind = raw.get("kind", "")
    group = (raw.get("apiVersion") or "").rpartition("/")[0]
    resource = kind.lower() + (f".{group}" if group else "")
    return f"{resource}/{(raw.get('metadata') or {}).get('name', '')}"
