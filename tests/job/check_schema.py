#!/usr/bin/env python3
"""schema/job.schema.json is a valid draft 2020-12 schema and accepts every example job; on the
shell example, it accepts every explicit field the parser reads (tests/job/test_job_roundtrip.c
has them too) and refuses what the parser refuses. Skips (exit 77) when the jsonschema module
is not installed."""
import copy
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema not installed: skipped")
    sys.exit(77)

root = sys.argv[1]
schema = json.load(open(os.path.join(root, "schema", "job.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sorted(glob.glob(os.path.join(root, "examples", "*.json"))) + [
        os.path.join(root, "tests", "job", "equations.json")]:
    errors = list(validator.iter_errors(json.load(open(path))))
    for e in errors[:5]:
        print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    bad += bool(errors)
    print(f"{os.path.basename(path)}: {'invalid' if errors else 'ok'}")


def step(j):
    return j["steps"][0]


# (name, change to the shell example, whether the schema must accept it)
SHELL_CASES = [
    ("every explicit control", lambda j: step(j)["explicit"].update(
        dt=1e-6, safety=0.5, damping=10, rotary_scale=2, hourglass=0.1, output={"every": 100}), True),
    ("ramp amplitude", lambda j: step(j)["explicit"].update(amplitude="ramp"), True),
    ("rotations, velocity", lambda j: step(j)["boundary"].extend([
        {"node_set": "origin", "fixed": ["x", "y", "rx", "ry", "rz"]},
        {"node_set": "corner_x", "fixed": ["rz"], "velocity": {"x": 100.0}}]), True),
    ("clamp", lambda j: step(j)["boundary"].append({"node_set": "edges", "fixed": "all"}), True),
    ("points, SNEG", lambda j: (j["sections"][0].update(points=5),
                                j["mesh"]["surfaces"]["top"][0].__setitem__(1, "SNEG")), True),
    ("initial velocities", lambda j: j.update(initial_velocities=[
        {"node_set": "centre", "velocity": [0, 0, -10.0]}]), True),
    ("explicit without its controls", lambda j: step(j).pop("explicit"), False),
    ("explicit with increments", lambda j: step(j).update(increments=2), False),
    ("controls of a static step", lambda j: step(j).update(procedure="static"), False),
    ("no time", lambda j: step(j)["explicit"].pop("time"), False),
    ("unknown control", lambda j: step(j)["explicit"].update(period=1), False),
    ("both outputs", lambda j: step(j)["explicit"].update(output={"every": 1, "frames": 2}), False),
    ("safety above 1", lambda j: step(j)["explicit"].update(safety=1.5), False),
    ("amplitude name", lambda j: step(j)["explicit"].update(amplitude="smooth"), False),
    ("velocity with displacement", lambda j: step(j)["boundary"].append(
        {"node_set": "centre", "velocity": {"z": 1.0}, "displacement": {"z": 0.0}}), False),
    ("angular velocity", lambda j: step(j)["boundary"].append(
        {"node_set": "centre", "velocity": {"rz": 1.0}}), False),
    ("seven points", lambda j: j["sections"][0].update(points=7), False),
    ("shell without thickness", lambda j: j["sections"][0].pop("thickness"), False),
    ("points on a solid", lambda j: j["sections"][0].update(kind="solid", points=3), False),
    ("density 0", lambda j: j["materials"][0].update(density=0), False),
    ("face SPOT", lambda j: j["mesh"]["surfaces"]["top"][0].__setitem__(1, "SPOT"), False),
]
shell = json.load(open(os.path.join(root, "examples", "shell_plate_explicit.json")))
for name, change, valid in SHELL_CASES:
    j = copy.deepcopy(shell)
    change(j)
    errors = list(validator.iter_errors(j))
    ok = (not errors) == valid
    bad += not ok
    print(f"shell example, {name}: {'ok' if ok else 'FAIL'}" +
          ("" if ok else f" (expected {'valid' if valid else 'invalid'}; {errors[0].message[:200] if errors else 'no error'})"))
# the equations job with local systems: what the parser reads, and what it refuses
TRANSFORM_CASES = [
    ("rectangular", {"node_set": "top", "a": [1, 1, 0], "b": [-1, 2, 0]}, True),
    ("cylindrical", {"node_set": "top", "type": "cylindrical", "a": [0, 0, 0], "b": [0, 0, 1]}, True),
    ("no b", {"node_set": "top", "a": [1, 0, 0]}, False),
    ("spherical", {"node_set": "top", "type": "spherical", "a": [0, 0, 0], "b": [0, 0, 1]}, False),
    ("unknown key", {"node_set": "top", "a": [1, 0, 0], "b": [0, 1, 0], "c": [0, 0, 1]}, False),
]
eq = json.load(open(os.path.join(root, "tests", "job", "equations.json")))
for name, transform, valid in TRANSFORM_CASES:
    j = copy.deepcopy(eq)
    j["transforms"] = [transform]
    errors = list(validator.iter_errors(j))
    ok = (not errors) == valid
    bad += not ok
    print(f"transforms, {name}: {'ok' if ok else 'FAIL'}")
# the equations job with initial stresses and plastic strains: what the parser reads and refuses
INITIAL_CASES = [
    ("stress everywhere", {"type": "stress", "value": [-100, -100, -100, 0, 0, 0]}, True),
    ("gradient on a set", {"type": "stress", "element_set": "all",
                           "gradient": [[0, -100, 0], [0, -100, 0], [0, -100, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]}, True),
    ("plastic strain at a point", {"type": "plastic_strain", "element": 1, "point": 3,
                                   "value": [0.01, 0, 0, 0, 0, 0]}, True),
    ("element and set", {"type": "stress", "element": 1, "element_set": "all"}, False),
    ("temperature", {"type": "temperature", "value": [20, 0, 0, 0, 0, 0]}, False),
    ("point 0", {"type": "stress", "element": 1, "point": 0}, False),
    ("three values", {"type": "stress", "value": [1, 2, 3]}, False),
]
for name, ic, valid in INITIAL_CASES:
    j = copy.deepcopy(eq)
    j["initial_conditions"] = [ic]
    errors = list(validator.iter_errors(j))
    ok = (not errors) == valid
    bad += not ok
    print(f"initial_conditions, {name}: {'ok' if ok else 'FAIL'}")
sys.exit(1 if bad else 0)
