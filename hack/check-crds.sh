#!/usr/bin/env bash
# Validates the generated CRDs offline, and the sample manifests against them.
#
#   hack/check-crds.sh
#   hack/check-crds.sh --install   (create the tools' venv only)
#
# 1. `kubernetes-validate --strict` on every charts/quarterdeck/crds/*.yaml.
# 2. If config/samples/ exists: every sample must be a known quarterdeck.dev/v1 kind and match
#    its CRD's openAPIV3Schema, with unknown fields rejected like `kubectl apply --validate=strict`.
#    (CEL rules are not evaluated here; `cargo test -p quarterdeck-crds` covers them.)
#
# Tools live in a venv under ${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/venv, created on first use.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crd_dir="$root/charts/quarterdeck/crds"
samples_dir="$root/config/samples"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/venv"

if [[ ! -x "$venv/bin/kubernetes-validate" || ! -x "$venv/bin/python" ]]; then
  echo "creating $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet kubernetes-validate jsonschema pyyaml
fi
[ "${1:-}" != --install ] || exit 0

shopt -s nullglob
crds=("$crd_dir"/*.yaml)
if ((${#crds[@]} == 0)); then
  echo "no CRDs in $crd_dir; run: cargo xtask crdgen" >&2
  exit 1
fi

failed=0
for crd in "${crds[@]}"; do
  if ! "$venv/bin/kubernetes-validate" --strict "$crd"; then
    failed=1
  fi
done

samples=("$samples_dir"/*.yaml)
if ((${#samples[@]} > 0)); then
  if ! "$venv/bin/python" - "$crd_dir" "${samples[@]}" <<'PY'; then
import copy
import glob
import os
import sys

import jsonschema
import yaml

crd_dir, sample_paths = sys.argv[1], sys.argv[2:]


def strict(schema):
    """Reject unknown fields where the API server would (structural, non-preserving objects)."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if not isinstance(node, dict):
            return
        if (
            "properties" in node
            and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")
        ):
            node["additionalProperties"] = False
        for key in ("properties",):
            for child in node.get(key, {}).values():
                walk(child)
        for key in ("items", "additionalProperties"):
            walk(node.get(key))

    walk(schema)
    # apiVersion, kind and metadata are handled by the API server, not by the CRD schema.
    schema.setdefault("properties", {})
    schema["properties"].setdefault("apiVersion", {"type": "string"})
    schema["properties"].setdefault("kind", {"type": "string"})
    schema["properties"].setdefault("metadata", {"type": "object"})
    return schema


schemas = {}
for path in sorted(glob.glob(os.path.join(crd_dir, "*.yaml"))):
    with open(path) as f:
        crd = yaml.safe_load(f)
    group = crd["spec"]["group"]
    kind = crd["spec"]["names"]["kind"]
    for version in crd["spec"]["versions"]:
        api_version = f"{group}/{version['name']}"
        schemas[(api_version, kind)] = strict(version["schema"]["openAPIV3Schema"])

errors = 0
for path in sample_paths:
    name = os.path.relpath(path)
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if not docs:
        print(f"{name}: no documents", file=sys.stderr)
        errors += 1
    for doc in docs:
        key = (doc.get("apiVersion"), doc.get("kind"))
        schema = schemas.get(key)
        if schema is None:
            print(f"{name}: no CRD for apiVersion={key[0]} kind={key[1]}", file=sys.stderr)
            errors += 1
            continue
        validator = jsonschema.Draft7Validator(schema)
        for error in sorted(validator.iter_errors(doc), key=lambda e: list(e.path)):
            where = ".".join(str(p) for p in error.path) or "<root>"
            print(f"{name}: {where}: {error.message}", file=sys.stderr)
            errors += 1
        if not doc.get("metadata", {}).get("name"):
            print(f"{name}: metadata.name is required", file=sys.stderr)
            errors += 1

if errors:
    sys.exit(1)
print(f"{len(sample_paths)} sample file(s) match their CRD schemas")
PY
    failed=1
  fi
fi

if ((failed)); then
  echo "CRD check failed" >&2
  exit 1
fi
echo "CRDs OK"
