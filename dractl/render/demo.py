"""`dractl demo ...`: the demo list, a demo's manifests, each run's table and verdict, plans and cleanups."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from dractl.render.printers import Result, Table, dractl_list, dractl_object, kube_list

if TYPE_CHECKING:
    from dractl.demo.kind import PlanStep
    from dractl.scheduler.explain import Explained


def demos_result(demos: Sequence[Any], helm_values: Callable[[str], list[str]]) -> Result:
    """The demos by group, as a table and DemoList documents.

    They show the DRA feature, the gates it needs, what it checks, the profile it runs on
    (``helm_values(profile)``: its Helm values, for the DemoList documents).
    """

    def checks(d: Any) -> str:
        return f"not run: {d.skipped}" if d.skipped else d.outcome

    return Result(
        table=lambda: Table(["GROUP", "NAME", "FEATURE", "GATES", "CHECKS", "PROFILE"],
                            [[d.group, d.id, d.feature, d.gates, checks(d), d.profile] for d in demos],
                            drop=["PROFILE", "GATES", "FEATURE"]),
        document=lambda: dractl_list("DemoList", [
            {"id": d.id, "group": d.group, "name": d.name, "feature": d.feature, "gates": d.gates,
             "outcome": d.outcome, "namespace": d.namespace, "files": list(d.manifests), "pods": list(d.pods),
             "profile": d.profile, "helmValues": helm_values(d.profile), "runs": d.skipped is None,
             **({"skipped": d.skipped} if d.skipped else {}), "source": d.source} for d in demos]),
        names=lambda: [d.id for d in demos],
    )


def manifests_result(text: str) -> Result:
    """A demo's manifests: the YAML as it is; -o json|yaml: its objects in a v1 List."""

    def document() -> dict[str, Any]:
        import yaml

        return kube_list([o for o in yaml.safe_load_all(text) if o])

    return Result(table=None, text=lambda: text, document=document)


def cleanup_result(target: str, deleted: list[str], text: str) -> Result:
    """What ``demo cleanup`` deleted: its lines, or a DemoCleanup document."""
    return Result(table=None, text=lambda: text,
                  document=lambda: dractl_object("DemoCleanup", {"target": target, "deleted": deleted}))


def write_outcome(out: TextIO, outcome: Any, no_headers: bool = False) -> None:
    """One demo's verdict, its pods as a table and its checks, printed as the demo finishes."""
    from dractl.render.printers import print_table

    verdict = "PASS" if outcome.passed else "FAIL"
    d = outcome.demo
    title = f"Demo {d.id}: {d.name}" if d.group == "blog" else f"Demo {d.id}: {d.name} ({d.feature})"
    out.write(f"\n{title}: {verdict}\n")
    if outcome.error:
        out.write(f"  cannot run: {outcome.error}\n")
        return
    rows = []
    for p in outcome.pods:
        rows.append([p.name, p.phase, p.node or "-", ",".join(p.claim_names) or "-", ",".join(p.devices) or "-",
                     "pass" if p.passed else "fail", p.reason or "-"])
    if rows:
        print_table(Table(["POD", "PHASE", "NODE", "CLAIM", "DEVICE", "RESULT", "REASON"], rows,
                          drop=["PHASE", "NODE"]), no_headers=no_headers, out=out)
    for c in outcome.checks:
        out.write(f"  {'ok  ' if c.passed else 'FAIL'} {c.text}\n")


def run_result(outcomes: list[Any], target: str, explained: Explained | None, explain_command: str) -> Result:
    """After the demos' tables: the explanation of demo 3's pending pod and the verdict; a DemoRun document."""
    passed = all(o.passed for o in outcomes)

    def document() -> dict[str, Any]:
        demos = []
        for o in outcomes:
            d = o.to_dict()
            if o.demo.id == "3" and explained is not None:
                d["explanation"] = {"title": explained.title, "summary": explained.summary,
                                    "lines": list(explained.lines)}
            demos.append(d)
        return dractl_object("DemoRun", {"target": target, "passed": passed, "demos": demos})

    def text() -> str:
        # each demo's table was printed as it finished; then the explanation and the verdict
        lines = []
        if explained is not None:
            lines += ["", f"Why huge-gpu stays Pending ({explain_command}):", explained.title + ":"]
            lines += ["  " + line for line in explained.lines]
        n = sum(o.passed for o in outcomes)
        blog = all(o.demo.group == "blog" for o in outcomes)
        what = "the post's outcome" if blog else "what it demonstrates" if len(outcomes) == 1 else \
            "what they demonstrate"
        if not blog and len(outcomes) != 1:
            what = "what each demonstrates"
        lines += ["", f"{n}/{len(outcomes)} {'demos show' if len(outcomes) != 1 else 'demo shows'} {what} "
                  f"on {target}."]
        return "".join(line + "\n" for line in lines)

    return Result(table=None, document=document, text=text, names=lambda: [f"demo/{o.demo.id}" for o in outcomes])


def plan_result(steps: list[PlanStep], header: str = "") -> Result:
    """--dry-run: the commands as a script (# header first), or (-o json|yaml) a PlanStepList."""
    return Result(
        table=None,
        text=lambda: "".join(line + "\n" for line in ([f"# {header}"] if header else []) + [s.text() for s in steps]),
        document=lambda: dractl_list(
            "PlanStepList",
            [{"command": s.argv, "env": s.env, "stdin": s.stdin or None, "note": s.note} for s in steps],
            **({"comment": header} if header else {}),
        ),
    )
