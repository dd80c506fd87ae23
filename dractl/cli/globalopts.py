"""kubectl-style global flags that work before or after the subcommand.

``dractl --from dump.yaml devices -o json`` and ``dractl devices --from dump.yaml -o json``
mean the same: ``hoist`` moves every global flag in front of the subcommand, where the
root callback declares them.
"""

from __future__ import annotations

from dractl.errors import UsageError
from dractl.flags import TAKES_VALUE

GLOBAL_FLAGS = TAKES_VALUE  # flag -> takes a value (declared in dractl/flags.py)

_SHORT_WITH_VALUE = tuple(n for n, v in TAKES_VALUE.items() if v and len(n) == 2)  # -n, -o


def hoist(argv: list[str]) -> list[str]:
    """Return argv with the global flags (and their values) moved to the front."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i:])
            break
        name, eq, _ = a.partition("=")
        if a.startswith("--") and name in GLOBAL_FLAGS:
            if GLOBAL_FLAGS[name] and not eq:
                if i + 1 >= len(argv):
                    raise UsageError(f"option {name} requires a value")
                front.extend([a, argv[i + 1]])
                i += 1
            else:
                front.append(a)
        elif a in GLOBAL_FLAGS:  # -n, -o, -A
            front.append(a)
            if GLOBAL_FLAGS[a]:
                if i + 1 >= len(argv):
                    raise UsageError(f"option {a} requires a value")
                front.append(argv[i + 1])
                i += 1
        elif len(a) > 2 and a[:2] in _SHORT_WITH_VALUE:  # -ojson, -o=json, -nfoo
            front.extend([a[:2], a[2:].removeprefix("=")])
        else:
            rest.append(a)
        i += 1
    return front + rest
