#!/usr/bin/env python3
"""Fails when a YAML file reads differently under YAML 1.1 and YAML 1.2.

    hack/yaml11_check.py FILE|DIR... [--chart DIR]

kubectl, Helm and Flux read YAML 1.1, where plain `on`, `yes`, `n`, `0777`, `1:20` or
`2024-01-01` are booleans, numbers and timestamps; Quarterdeck's own readers (yaml_serde)
read YAML 1.2's core schema. Each document is loaded twice with PyYAML: once with its YAML 1.1
resolvers, once with the core schema's (as yaml_serde applies them), and the two trees must be
equal, keys included (`y` and `n` count as 1.1 booleans, as the spec and Go say). Directories are searched for *.yaml and *.yml.

--chart DIR renders the Helm chart's templates with its default values and with every
ci/*.yaml value set, as release `on` in namespace `yes` (names YAML 1.1 misreads), and checks
each rendered template. It renders with `$QD_HELM template` when QD_HELM names a helm binary,
else with the helm-python-sdk package (the venv of hack/check-chart.sh).

Exit status 1 lists every difference as FILE: document N: PATH: 1.1 reads X, 1.2 reads Y.
"""

import os
import re
import subprocess
import sys
import tempfile

import yaml


class Yaml11Loader(yaml.SafeLoader):
    """PyYAML's YAML 1.1, plus the spec's `y` and `n` booleans (PyYAML leaves them out; Go's
    YAML 1.1 reader, which kubectl, Helm and Flux use, has them)."""


Yaml11Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
Yaml11Loader.add_constructor(
    "tag:yaml.org,2002:bool",
    lambda loader, node: loader.construct_scalar(node).lower() in ("y", "yes", "true", "on"))


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML's parser with YAML 1.2 core schema resolution, as yaml_serde applies it."""


Yaml12Loader.yaml_implicit_resolvers = {}
for tag, pattern, first in [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    # yaml_serde reads digits with a leading zero (`0777`) as a string, not a number.
    ("tag:yaml.org,2002:int", r"^(?:[-+]?(?:0|[1-9][0-9]*)|0o[0-7]+|0x[0-9a-fA-F]+)$",
     list("-+0123456789")),
    ("tag:yaml.org,2002:float",
     r"^(?![-+]?0[0-9]+$)(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", list("-+.0123456789")),
]:
    Yaml12Loader.add_implicit_resolver(tag, re.compile(pattern), first)


def _int12(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text)


def _float12(loader, node):
    text = loader.construct_scalar(node).lower()
    if text.endswith(".inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    return float(text)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _int12)
Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _float12)


def documents(text, loader_class):
    loader = loader_class(text)
    try:
        nodes = []
        while loader.check_node():
            nodes.append(loader.get_node())
        return loader, nodes
    finally:
        loader.dispose()


def scalar(loader, node):
    """The scalar's type and value (NaN as text, so that it equals itself)."""
    value = loader.construct_object(node)
    return node.tag, repr(value) if isinstance(value, float) else value


def differences(l11, a, l12, b, path="$"):
    """Where the nodes `a` (resolved as YAML 1.1) and `b` (as 1.2) differ."""
    if isinstance(a, yaml.MappingNode):
        for ka, va in a.value:
            kb, vb = next((k, v) for k, v in b.value if k.start_mark.index == ka.start_mark.index)
            key = f"{path}.{ka.value}" if isinstance(ka, yaml.ScalarNode) else path
            yield from differences(l11, ka, l12, kb, f"{key} (key)")
            yield from differences(l11, va, l12, vb, key)
    elif isinstance(a, yaml.SequenceNode):
        for i, (x, y) in enumerate(zip(a.value, b.value)):
            yield from differences(l11, x, l12, y, f"{path}[{i}]")
    elif isinstance(a, yaml.ScalarNode):
        (t11, v11), (t12, v12) = scalar(l11, a), scalar(l12, b)
        if t11 != t12 or v11 != v12:
            yield f"line {a.start_mark.line + 1}: {path}: 1.1 reads {v11!r}, 1.2 reads {v12!r}"


def check_text(name, text):
    """The differences in one YAML stream, as printable lines."""
    try:
        l11, v11 = documents(text, Yaml11Loader)
        l12, v12 = documents(text, Yaml12Loader)
        found = []
        for i, (a, b) in enumerate(zip(v11, v12)):
            found += [f"{name}: document {i + 1}: {d}" for d in differences(l11, a, l12, b)]
        return found
    except yaml.YAMLError as error:
        return [f"{name}: not YAML (or not read alike): {error}"]


def yaml_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _, files in sorted(os.walk(path)):
                for f in sorted(files):
                    if f.endswith((".yaml", ".yml")):
                        yield os.path.join(root, f)
        else:
            yield path


def render_chart(chart):
    """(label, text) of every rendered template, for the default and ci/ value sets."""
    value_files = [None] + sorted(
        os.path.join(chart, "ci", f) for f in os.listdir(os.path.join(chart, "ci"))
        if f.endswith(".yaml")
    ) if os.path.isdir(os.path.join(chart, "ci")) else [None]
    helm = os.environ.get("QD_HELM")
    for values in value_files:
        label = os.path.basename(values) if values else "default values"
        if helm:
            args = [helm, "template", "on", chart, "--namespace", "yes"]
            args += ["--values", values] if values else []
            out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
            for part in re.split(r"^---\s*$", out, flags=re.M):
                source = re.search(r"^# Source: (\S+)", part, re.M)
                if part.strip():
                    yield f"{source.group(1) if source else chart} ({label})", part
        else:
            import helm_python as helm_sdk

            with open(values) if values else open(os.devnull) as f:
                chosen = yaml.safe_load(f) or {}
            with helm_sdk.Chart.load(chart) as loaded:
                rendered = loaded.render(chosen, name="on", namespace="yes", is_install=True)
            for template, text in sorted(rendered.items()):
                if template.endswith((".yaml", ".yml")) and text.strip():
                    yield f"{template} ({label})", text


def main(argv):
    args, chart = [], None
    it = iter(argv)
    for arg in it:
        if arg == "--chart":
            chart = next(it, None)
        else:
            args.append(arg)
    if not args and not chart:
        print(__doc__, file=sys.stderr)
        return 2
    problems, checked = [], 0
    for path in yaml_files(args):
        with open(path, encoding="utf-8") as f:
            problems += check_text(os.path.relpath(path), f.read())
        checked += 1
    if chart:
        for label, text in render_chart(chart):
            problems += check_text(label, text)
            checked += 1
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} difference(s) between YAML 1.1 and 1.2: quote those scalars",
              file=sys.stderr)
        return 1
    print(f"{checked} YAML file(s) read the same under YAML 1.1 and 1.2")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
