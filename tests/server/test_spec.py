"""server/routes.def and schema/openapi.yaml describe the same routes (STYLE.md §11), and the
spec is JSON-compatible YAML whose $refs all resolve."""
import os
import re
import sys

from dtserver import ROOT, SPEC, resolve


def main():
    routes = set()
    with open(os.path.join(ROOT, "server", "routes.def")) as f:
        for m in re.finditer(r'^DT_ROUTE\(\s*(\w+),\s*"([^"]+)"', f.read(), re.M):
            routes.add((m.group(1), m.group(2)))
    spec = {(meth.upper(), p) for p, ops in SPEC["paths"].items() for meth in ops}
    assert routes, "no routes parsed from routes.def"
    only_code = sorted(routes - spec)
    only_spec = sorted(spec - routes)
    assert not only_code and not only_spec, f"in routes.def only: {only_code}; in openapi.yaml only: {only_spec}"

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "$ref":
                    resolve(v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(SPEC)
    for p, ops in SPEC["paths"].items():
        for meth, op in ops.items():
            for status in op["responses"]:
                assert re.fullmatch(r"[1-5]\d\d", status), (p, meth, status)
    print(f"PASS ({len(routes)} routes agree)")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print("FAIL:", e)
        sys.exit(1)
