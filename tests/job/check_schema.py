#!/usr/bin/env python3
"""schema/job.schema.json is a valid draft 2020-12 schema and accepts every example job.
Skips (exit 77) when the jsonschema module is not installed."""
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
for path in sorted(glob.glob(os.path.join(root, "examples", "*.json"))):
    errors = list(validator.iter_errors(json.load(open(path))))
    for e in errors[:5]:
        print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    bad += bool(errors)
    print(f"{os.path.basename(path)}: {'invalid' if errors else 'ok'}")
sys.exit(1 if bad else 0)
