"""What a new user ran into (issue 11): texts, dead ends, exit codes, shapes and terminal output."""

from __future__ import annotations

import json
import re
from pathlib import Path

from builders import claim, device_class, docs_to_yaml, memory_at_least, pod, write_docs
from ptyutil import run_in_pty, visible_lines

MEM_100GI = memory_at_least("100Gi")
BIG_CLAIM = claim("big", selectors=[MEM_100GI])


def write(tmp_path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# ---------------------------------------------------------------- wrong or broken


def test_grouped_selector_reasons_keep_the_whole_expression(dractl, tmp_path):
    """Devices that differ: one line with the full expression, then each value with its count."""
    assert dractl("fake", "reset", "--profile", "example-gpu-partitions").code == 0
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "c.yaml", BIG_CLAIM)).code == 0
    want = (
        f"all 40 fail selector #0 ({MEM_100GI}): "
        "memory is 20Gi, needs >= 100Gi (32); memory is 80Gi, needs >= 100Gi (8)"
    )
    r = dractl("claims", "big", "--explain")
    assert r.code == 0 and want in r.out, r.out
    assert r.out.count(">= 0)") == 1
    doc = dractl("claims", "big", "--explain", "-o", "json").json()
    assert want in json.dumps(doc)


def test_an_empty_fake_cluster_reads_as_empty(dractl, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "cluster.json").write_text('{"apiVersion": "dractl/v1", "profile": "loaded", "items": []}')
    for cmd in ("devices", "classes", "claims", "slices"):
        r = dractl("--fake", cmd)
        assert (r.code, r.out) == (0, ""), (cmd, r.err)
        assert "No " in r.err and "found" in r.err
        r = dractl("--fake", cmd, "-o", "json")
        assert r.code == 0 and r.json()["items"] == [], cmd


def test_loading_a_file_with_nothing_to_load_is_refused_and_changes_nothing(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    before = (tmp_path / "state" / "cluster.json").read_bytes()
    svc = write(tmp_path, "deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
    r = dractl("fake", "load", svc)
    assert r.code == 2 and "deploy.yaml: no object dractl reads in it; the fake cluster is unchanged" in r.err
    assert (tmp_path / "state" / "cluster.json").read_bytes() == before


def test_a_bad_state_dir_is_bad_input_named_in_one_line(dractl, tmp_path):
    a_file = write(tmp_path, "a-file", "x")
    for d, what in (
        (a_file, f"fake cluster state folder {a_file} is not a folder"),
        (a_file + "/sub", f"fake cluster state folder {a_file}/sub cannot be created: {a_file} is not a folder"),
        ("/proc/nonexist", "fake cluster state folder /proc/nonexist cannot be created"),
    ):
        r = dractl("--state-dir", d, "fake", "reset")
        assert r.code == 2, r.err
        assert r.err.startswith(f"error: {what}") and r.err.count("\n") == 1, r.err
        assert "internal error" not in r.err


def test_no_arguments_print_the_help_without_an_empty_error(dractl_proc):
    for args in ((), ("fake",)):
        r = dractl_proc(*args)
        assert r.code == 0, r.err
        assert "Usage:" in r.out and "Commands" in r.out
        assert "error" not in r.err, r.err


# ---------------------------------------------------------------- dead ends: pods, hints


def _blog(dractl, tmp_path) -> str:
    from test_demos_fake import DEMO1, DEMO2, DEMO3, NAMESPACE

    assert dractl("fake", "reset").code == 0
    r = dractl("fake", "apply", "-f", write(tmp_path, "blog.yaml", "---\n".join((NAMESPACE, DEMO1, DEMO2, DEMO3))))
    assert r.code == 0, r.err
    return r.out


def _hint(line: str) -> list[str]:
    import re
    import shlex

    m = re.search(r"\(see '(dractl [^']+)'\)", line) or re.search(r'\(see "(dractl [^"]+)"\)', line)
    assert m, line
    return shlex.split(m.group(1))[1:]


def test_the_pending_hint_works_when_pasted(dractl, tmp_path):
    out = _blog(dractl, tmp_path)
    line = next(ln for ln in out.splitlines() if ln.startswith("pod/huge-gpu pending"))
    args = _hint(line)
    assert args == ["-n", "dra-demo", "pods", "huge-gpu", "--explain"]
    r = dractl(*args)
    assert r.code == 0, r.err
    assert "Pod dra-demo/huge-gpu (pending):" in r.out
    assert "memory is 80Gi, needs >= 100Gi" in r.out
    assert "No resources found" not in r.err


def test_hints_carry_the_flags_that_chose_the_source(dractl, tmp_path, monkeypatch):
    # a fake cluster in a folder of its own: the hint names it, and -n even when this call had -n
    from test_demos_fake import DEMO3, NAMESPACE

    monkeypatch.delenv("DRACTL_STATE", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-empty"))
    state = str(tmp_path / "my state")
    blog = write(tmp_path, "demo3.yaml", "---\n".join((NAMESPACE, DEMO3)))
    assert dractl("--state-dir", state, "fake", "reset").code == 0
    r = dractl("--state-dir", state, "-n", "dra-demo", "fake", "apply", "-f", blog)
    args = _hint(next(ln for ln in r.out.splitlines() if ln.startswith("pod/huge-gpu pending")))
    assert args == ["--state-dir", state, "-n", "dra-demo", "pods", "huge-gpu", "--explain"]
    r = dractl(*args)
    assert r.code == 0 and "memory is 80Gi, needs >= 100Gi" in r.out, r.err
    r = dractl("--state-dir", state, "-n", "dra-demo", "claims", "huge-gpu")
    assert r.code == 1 and _hint(r.err) == args
    assert dractl("pods", "-A", "-o", "name").out == ""  # the default fake cluster was never touched


def test_pods_lists_pod_claims_devices_phase_node_and_condition(dractl, tmp_path):
    _blog(dractl, tmp_path)
    r = dractl("-n", "dra-demo", "pods")
    assert r.code == 0, r.err
    rows = [ln.split() for ln in r.out.splitlines()]
    assert rows[0][:7] == ["POD", "PHASE", "NODE", "CLAIM", "STATE", "DEVICES", "SCHEDULED"]
    by_pod = {}
    for row in rows[1:]:
        by_pod.setdefault(row[0], []).append(row)
    assert sorted(by_pod) == ["big-gpu", "huge-gpu", "pod-a", "pod-b", "shared-1", "shared-2"]
    huge = by_pod["huge-gpu"][0]
    assert huge[1:3] == ["Pending", "-"] and huge[3].startswith("huge-gpu-gpu-") and huge[4] == "pending"
    assert "False (Unschedulable)" in r.out and "0/1 nodes are available: 1 cannot allocate all claims." in r.out
    shared = by_pod["shared-1"][0]
    gpu2 = "gpu.example.com/dra-demo-worker/gpu-2"
    assert shared[1:6] == ["Running", "dra-demo-worker", "shared-gpu", "reserved", gpu2]
    # -o json: a dractl kind listing; a named pod is that one object
    doc = dractl("-n", "dra-demo", "pods", "-o", "json").json()
    assert (doc["apiVersion"], doc["kind"]) == ("dractl/v1", "PodClaimsList") and len(doc["items"]) == 6
    one = dractl("-n", "dra-demo", "pods", "shared-2", "-o", "json").json()
    assert one["kind"] == "PodClaims" and one["name"] == "shared-2" and one["node"] == "dra-demo-worker"
    assert one["claims"][0]["resourceClaimName"] == "shared-gpu" and one["claims"][0]["results"][0]["device"] == "gpu-2"
    assert dractl("-n", "dra-demo", "pods", "-o", "name").out.splitlines()[0] == "pod/big-gpu"
    # a scheduled pod's --explain says why each claim got its devices
    r = dractl("-n", "dra-demo", "pods", "big-gpu", "--explain")
    assert r.code == 0 and "Claim dra-demo/big-gpu-gpu-" in r.out
    # not found is kubectl's NotFound, exit 1; an empty namespace lists nothing, exit 0
    r = dractl("-n", "dra-demo", "pods", "nosuch")
    assert r.code == 1 and 'pods "nosuch" not found' in r.err
    r = dractl("pods")
    assert (r.code, r.out) == (0, "") and "No resources found in default namespace." in r.err


def test_claims_name_of_a_pod_says_which_claims_it_has(dractl, tmp_path):
    _blog(dractl, tmp_path)
    r = dractl("-n", "dra-demo", "claims", "shared-1", "--explain")
    assert r.code == 1
    assert "shared-1 is a pod: its claims are shared-gpu" in r.err
    assert dractl(*_hint(r.err)).code == 0


def new_class(memory: str) -> str:
    """A DeviceClass of GPUs with at least ``memory``, and a claim (no namespace) for one of them."""
    return docs_to_yaml(device_class("big-gpus", memory_at_least(memory)), claim("want-big", None, cls="big-gpus"))


def test_check_uses_a_device_class_from_the_file(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    r = dractl("check", "-f", write(tmp_path, "what-if.yaml", new_class("40Gi")))
    assert r.code == 0, r.err
    assert "ignoring DeviceClass" not in r.err and "not found" not in r.out + r.err
    assert "want-big" in r.out and "gpu.example.com/dra-demo-worker/gpu-0" in r.out
    # a what-if: nothing is written
    assert dractl("classes", "-o", "name").out.split() == ["deviceclass.resource.k8s.io/gpu.example.com"]
    # the class's selectors count: asking for more than any device has is unschedulable
    r = dractl("check", "-f", write(tmp_path, "huge.yaml", new_class("100Gi")))
    assert r.code == 1 and "memory is 80Gi, needs >= 100Gi" in r.out


def test_check_of_a_pod_without_claims_says_so(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    plain = write_docs(tmp_path / "plain.yaml", pod("plain", None, container="c"))
    r = dractl("check", "-f", plain)
    assert (r.code, r.out) == (0, "pod default/plain uses no ResourceClaims: scheduled on dra-demo-worker\n")


def test_fake_apply_into_a_missing_namespace_is_refused_as_the_apiserver_does(dractl, tmp_path):
    from test_demos_fake import DEMO1, NAMESPACE

    assert dractl("fake", "reset").code == 0
    before = (tmp_path / "state" / "cluster.json").read_bytes()
    r = dractl("fake", "apply", "-f", write(tmp_path, "demo1.yaml", DEMO1))
    assert r.code == 1 and 'namespaces "dra-demo" not found' in r.err, r.err
    assert r.err.count("\n") == 1 and r.out == ""
    assert (tmp_path / "state" / "cluster.json").read_bytes() == before
    no_ns = write_docs(tmp_path / "c.yaml", claim("big", None, selectors=[MEM_100GI]))
    r = dractl("-n", "team-x", "fake", "apply", "-f", no_ns)
    want = f'error: {no_ns}: resourceclaim.resource.k8s.io/big: namespaces "team-x" not found\n'
    assert r.code == 1 and r.err == want
    # the Namespace in the same file (after the objects, even) or created first: accepted
    r = dractl("fake", "apply", "-f", write(tmp_path, "both.yaml", DEMO1 + "---\n" + NAMESPACE))
    assert r.code == 0 and "namespace/dra-demo created" in r.out, r.err
    assert dractl("-n", "dra-demo", "pods", "-o", "name").out.split() == ["pod/pod-a", "pod/pod-b"]


def test_applying_an_unchanged_object_says_unchanged(dractl, tmp_path):
    from test_demos_fake import DEMO1, NAMESPACE

    assert dractl("fake", "reset").code == 0
    f = write(tmp_path, "demo1.yaml", NAMESPACE + "---\n" + DEMO1)
    assert dractl("fake", "apply", "-f", f).code == 0
    r = dractl("fake", "apply", "-f", f)
    assert r.code == 0
    assert r.out.splitlines() == [
        "namespace/dra-demo unchanged",
        "resourceclaimtemplate.resource.k8s.io/single-gpu unchanged",
        "pod/pod-a unchanged",
        "pod/pod-b unchanged",
    ]


# ---------------------------------------------------------------- terminal output


def _blog_demos_applied(dractl, tmp_path) -> dict[str, str]:
    """The fake cluster after the blog's three demos; the environment for run_in_pty."""
    manifests = Path(__file__).parents[2] / "dractl" / "demo" / "manifests"
    assert dractl("fake", "reset").code == 0
    ns = write(tmp_path, "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: dra-demo}\n")
    for f in [ns, *sorted(str(m) for m in manifests.glob("demo*.yaml"))]:
        r = dractl("fake", "apply", "-f", f)
        assert r.code == 0, r.err
    return {"DRACTL_STATE": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}


def _table_lines(text: str) -> tuple[list[str], list[str]]:
    """(header and rule, rows) of a styled terminal table."""
    lines = visible_lines(text)
    assert set(lines[1]) == {"─"}, lines[:2]  # the rule under the header
    return lines[:2], lines[2:]


def test_default_tables_fit_an_80_column_terminal_and_keep_names_whole(dractl, tmp_path):
    env = _blog_demos_applied(dractl, tmp_path)
    devices = dractl("devices", "-o", "json").json()["items"]
    claims = dractl("claims", "-A", "-o", "json").json()["items"]
    assert len(devices) == 8 and len(claims) == 5

    head, rows = _table_lines(run_in_pty(["--fake", "devices"], env, columns=80))
    assert all(len(line) <= 80 for line in head + rows), head + rows
    assert len(rows) == len(devices)  # one line per device: nothing folded
    assert head[0].split()[:2] == ["NODE", "DRIVER"] and "STATUS" in head[0]
    for line, d in zip(rows, devices, strict=True):
        assert line.split()[:3] == [d["node"], d["driver"], d["device"]], line
    # who holds a device is what the view is for: other columns give way so that STATUS is whole
    for line, d in zip(rows, devices, strict=True):
        assert line.endswith(d["status"]), line
    assert any(d["status"].startswith("allocated: dra-demo/") for d in devices)

    head, rows = _table_lines(run_in_pty(["--fake", "claims", "-A"], env, columns=80))
    assert all(len(line) <= 80 for line in head + rows), head + rows
    assert len(rows) == len(claims)
    assert head[0].split()[:4] == ["NAMESPACE", "CLAIM", "STATE", "DEVICE"]
    for line, c in zip(rows, claims, strict=True):
        assert line.split()[:3] == [c["namespace"], c["name"], c["state"]], line
        for r in c["results"]:
            assert f"{r['driver']}/{r['pool']}/{r['device']}" in line.split(), line


def test_every_table_command_fits_an_80_column_terminal(dractl, tmp_path):
    from dractl.control.profiles import PROFILES
    from dractl.demo.catalog import DEMOS

    env = _blog_demos_applied(dractl, tmp_path)
    rule = "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: maintenance}\n" \
        "spec:\n  deviceSelector: {driver: gpu.example.com}\n  taint: {key: example.com/maintenance, effect: None}\n"
    assert dractl("fake", "apply", "-f", write(tmp_path, "rule.yaml", rule)).code == 0
    cel = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
    head, rows = _table_lines(run_in_pty(["--fake", "pods", "-A"], env, columns=80))
    pods = dractl("pods", "-A", "-o", "json").json()["items"]
    assert "DEVICES" in head[0].split()  # which device a pod got is what the view is for: it stays
    for line, p in zip(rows, pods, strict=True):
        devices = [f"{r['driver']}/{r['pool']}/{r['device']}" for c in p["claims"] for r in c["results"]]
        assert line.split()[-1] == (",".join(devices) or "-"), line
    for args, n in ((["pods", "-A"], 6), (["slices"], 1), (["classes"], 1), (["usage"], 2), (["taints"], 1),
                    (["cel", cel], 8), (["demo", "list"], len(DEMOS)), (["fake", "profiles"], len(PROFILES))):
        lines = visible_lines(run_in_pty(["--fake", *args], env, columns=80))
        assert all(len(line) <= 80 for line in lines), (args, lines)
        rows = [line for line in lines[2:] if line and not re.match(r"\d+ of \d+ ", line)]  # cel's summary
        assert len(rows) == n, (args, lines)


def test_wide_output_runs_on_without_folding_and_piped_output_is_unchanged(dractl, tmp_path):
    env = _blog_demos_applied(dractl, tmp_path)
    for args, n in ((["devices", "-o", "wide"], 8), (["claims", "-A", "-o", "wide"], 5)):
        head, rows = _table_lines(run_in_pty(["--fake", *args], env, columns=200))
        assert len(rows) == n, rows
        assert max(len(line) for line in rows) > (200 if args[0] == "devices" else 80)
        assert len(head[1]) == max(len(line) for line in [head[0], *rows])  # the rule spans the table
        piped = dractl(*args).out.splitlines()
        columns = re.split(r"\s{2,}", piped[0])
        age = columns.index("AGE") if "AGE" in columns else None  # one second may pass between the two runs

        def cells(line: str, age: int | None = age) -> list[str]:
            return [c for i, c in enumerate(re.split(r"\s{2,}", line)) if i != age]

        assert [cells(line) for line in rows] == [cells(line) for line in piped[1:]]
    piped = dractl("devices").out.splitlines()  # piped: kubectl's plain layout, every column, lines run on
    assert re.split(r" {3,}", piped[0]) == ["NODE", "DRIVER", "POOL", "DEVICE", "MODEL", "INDEX", "DRIVERVERSION",
                                            "CAPACITY", "STATUS"]
    assert len(piped) == 9 and "…" not in dractl("devices").out and max(len(line) for line in piped) > 80
    assert "allocated: dra-demo/pod-a-gpu-" in piped[1]


def test_the_fake_cluster_notice_only_on_an_interactive_table(dractl_proc, tmp_path):
    env = {"DRACTL_STATE": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}
    notice = "using the embedded fake cluster"
    shown = [line.strip() for line in run_in_pty(["devices"], env).splitlines() if notice in line]
    assert len(shown) == 1 and len(shown[0]) <= 80, shown  # one line, even on an 80-column terminal
    assert notice not in run_in_pty(["devices"], {**env, "DRACTL_FAKE_NOTICE": "0"})
    assert notice not in run_in_pty(["devices", "-o", "json"], env)
    for fmt in ("json", "yaml", "name", "table"):  # piped
        r = dractl_proc("devices", "-o", fmt)
        assert r.code == 0 and notice not in r.err, fmt


def test_the_reschedule_hint_is_only_given_for_the_fake_cluster(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    lonely = claim("lonely", selectors=[memory_at_least("10Gi")])
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "lonely.yaml", lonely)).code == 0
    hint = "any 'dractl fake apply' reschedules"
    assert hint in dractl("--fake", "claims", "lonely", "--explain").out
    snap = dractl("--fake", "snapshot")
    assert snap.code == 0, snap.err
    r = dractl("--from", write(tmp_path, "dump.yaml", snap.out), "claims", "lonely", "--explain")
    assert r.code == 0 and "could allocate it now" in r.out
    assert hint not in r.out


# ---------------------------------------------------------------- help


def _commands():
    """(path, click command) for every command and group of the Typer app."""
    import typer.main

    from dractl.cli.app import app

    todo = [((), typer.main.get_command(app))]
    while todo:
        path, cmd = todo.pop()
        yield path, cmd
        todo += [((*path, name), sub) for name, sub in getattr(cmd, "commands", {}).items()]


def test_help_shows_no_python_types_flags_take_nothing_values_are_named(dractl):
    paths = [path for path, _ in _commands()]
    assert ("fake", "apply") in paths and ("devices",) in paths and len(paths) > 20
    for path in paths:
        r = dractl(*path, "--help")
        assert r.code == 0 and "Usage:" in r.out, path
        assert "<bool>" not in r.out and "<str>" not in r.out and "<int" not in r.out, (path, r.out)
        assert re.search(r"--help\s+-h\s+Show this message", r.out), (path, r.out)  # a flag: no value shown
    root = dractl("--help").out
    assert re.search(r"--fake\s+Use the embedded", root) and re.search(r"-o\s+FORMAT\s", root)
    assert re.search(r"--kubeconfig\s+FILE\s", root) and re.search(r"--from\s+FILE\s", root)
    devices = dractl("devices", "--help").out
    assert re.search(r"--node\s+NODE\s", devices) and re.search(r"-l\s+EXPR\s", devices)
    assert re.search(r"--available\s+Only devices", devices)
    assert re.search(r"-f\s+FILE\s", dractl("fake", "apply", "--help").out)
    assert "{EXPR}" in dractl("cel", "--help").out


def test_a_subcommand_help_names_the_global_flags(dractl):
    from dractl.flags import GLOBAL_FLAGS

    for path in (["devices"], ["fake", "apply"], ["claims"]):
        text = " ".join(dractl(*path, "--help").out.split())  # rich wraps the epilog
        assert "Global flags (" in text and "see 'dractl --help'" in text, text
        for f in GLOBAL_FLAGS:
            assert min(f.names, key=len) in text, (path, f.names)
    assert "Global flags (" not in dractl("--help").out  # the root help lists them itself


def test_every_option_and_argument_has_a_help_text():
    from typer._click import Context  # Typer vendors click

    for path, cmd in _commands():
        ctx = Context(cmd, info_name=path[-1] if path else "dractl")
        for p in cmd.get_params(ctx):
            assert (getattr(p, "help", None) or "").strip(), (path, p.name)
