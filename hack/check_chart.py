#!/usr/bin/env python3
"""Renders the Helm chart with helm and checks the manifests offline: steps 2, 4, 5 and 6 of
hack/check-chart.sh, which runs it with the venv's python.

    hack/check_chart.py CHART_DIR FLUX_DIR OUT_DIR HELM

Writes the rendered manifests under OUT_DIR (one folder per value set) for step 3
(kubernetes-validate). Exit status 1 lists every failure as FAIL WHERE: MESSAGE.
"""

import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

chart_dir, flux_dir, out_dir, HELM = sys.argv[1:5]
STANDARD_LABELS = [
    "helm.sh/chart",
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
    "app.kubernetes.io/managed-by",
]
BUILTIN_CLUSTER_ROLES = {"view", "edit", "admin", "cluster-admin"}
failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")


def load_values(path):
    with open(path) as f:
        return yaml.safe_load(f) or {}


class RenderError(Exception):
    pass


SCHEMA_ERROR = "values don't meet the specifications of the schema(s)"


def values_file(values):
    """A file holding the values (helm reads JSON as YAML)."""
    fd, path = tempfile.mkstemp(suffix=".json", dir=out_dir)
    with os.fdopen(fd, "w") as f:
        json.dump(values, f)
    return path


def helm(*args):
    return subprocess.run([HELM, *args], capture_output=True, text=True)


def render(values, name, namespace):
    """`helm template`: the rendered text of each template, by its path."""
    result = helm("template", name, chart_dir, "--namespace", namespace, "--values", values_file(values))
    if result.returncode:
        raise RenderError(result.stderr.strip())
    rendered = collections.defaultdict(str)
    for source, text in re.findall(r"^# Source: (\S+)\n(.*?)(?=^---$|\Z)", result.stdout, re.M | re.S):
        rendered[source] += f"---\n{text}"
    return rendered


def merge_values(defaults, values):
    """The values templates see: Helm's coalescing (maps merge, null removes a key)."""
    merged = dict(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_values(merged[key], value)
        else:
            merged[key] = value
    return merged


DEFAULTS = load_values(os.path.join(chart_dir, "values.yaml"))
CHART = load_values(os.path.join(chart_dir, "Chart.yaml"))


value_sets = [("default", {}, "quarterdeck")]
for path in sorted(glob.glob(os.path.join(chart_dir, "ci", "*.yaml"))):
    value_sets.append((os.path.basename(path)[: -len(".yaml")], load_values(path), "prod"))

# ---- 6. the Flux example ------------------------------------------------------------
def flux_values():
    """The HelmRelease's spec.values, after checking the example's structure."""
    if not os.path.isdir(flux_dir):
        fail("config/flux", "missing")
        return None
    with open(os.path.join(flux_dir, "kustomization.yaml")) as f:
        listed = yaml.safe_load(f).get("resources") or []
    release = None
    for name in listed:
        path = os.path.join(flux_dir, name)
        if not os.path.isfile(path):
            fail("config/flux/kustomization.yaml", f"lists {name}, which does not exist")
            continue
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                if not doc:
                    continue
                kind, api = doc.get("kind"), doc.get("apiVersion")
                where = f"config/flux/{name}"
                if kind == "Namespace":
                    os.makedirs(os.path.join(out_dir, "flux"), exist_ok=True)
                    with open(os.path.join(out_dir, "flux", name), "w") as out:
                        yaml.safe_dump(doc, out)
                elif kind in ("HelmRepository", "GitRepository"):
                    if api != "source.toolkit.fluxcd.io/v1":
                        fail(where, f"{kind} should be source.toolkit.fluxcd.io/v1, not {api}")
                elif kind == "HelmRelease":
                    if api != "helm.toolkit.fluxcd.io/v2":
                        fail(where, f"HelmRelease should be helm.toolkit.fluxcd.io/v2, not {api}")
                    release = doc
                else:
                    fail(where, f"unexpected kind {kind}")
    if release is None:
        fail("config/flux", "no HelmRelease listed in kustomization.yaml")
        return None
    chart_name = CHART["name"]
    wanted = release["spec"]["chart"]["spec"]["chart"]
    if wanted not in (chart_name, "./charts/quarterdeck"):
        fail("config/flux HelmRelease", f"installs chart {wanted}, not {chart_name}")
    return release["spec"].get("values") or {}


flux = flux_values()
if flux is not None:
    value_sets.append(("flux-helmrelease", flux, "quarterdeck"))

# appVersion follows the workspace version in Cargo.toml.
with open(os.path.join(chart_dir, "..", "..", "Cargo.toml")) as f:
    package = re.search(r"^\[workspace\.package\]\n(?:[^\[].*\n)*?version = \"([^\"]+)\"", f.read(), re.M)
app_version = CHART.get("appVersion")
if not package or package.group(1) != app_version:
    fail("Chart.yaml", f"appVersion {app_version} differs from the workspace version "
         f"{package.group(1) if package else '(not found)'} in Cargo.toml")


# ---- 2. render and check -------------------------------------------------------------
def containers(pod_spec):
    for c in pod_spec.get("initContainers") or []:
        yield c, True
    for c in pod_spec.get("containers") or []:
        yield c, False


def check_workload(where, obj):
    spec = obj["spec"]
    template = spec["template"]
    pod_labels = template["metadata"].get("labels", {})
    for key, value in spec["selector"]["matchLabels"].items():
        if pod_labels.get(key) != value:
            fail(where, f"selector {key}={value} does not match the pod template labels")
    pod = template["spec"]
    psc = pod.get("securityContext") or {}
    if psc.get("runAsNonRoot") is not True:
        fail(where, "pod securityContext.runAsNonRoot is not true")
    if (psc.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
        fail(where, "pod seccompProfile is not RuntimeDefault")
    for c, init in containers(pod):
        cw = f"{where} container {c['name']}"
        sc = c.get("securityContext") or {}
        if sc.get("allowPrivilegeEscalation") is not False:
            fail(cw, "allowPrivilegeEscalation is not false")
        if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
            fail(cw, "capabilities do not drop ALL")
        if sc.get("readOnlyRootFilesystem") is not True:
            fail(cw, "readOnlyRootFilesystem is not true")
        resources = c.get("resources") or {}
        if not resources.get("requests"):
            fail(cw, "no resource requests")
        if not (resources.get("limits") or {}).get("memory"):
            fail(cw, "no memory limit")
        if not init:
            for probe in ("livenessProbe", "readinessProbe"):
                if probe not in c:
                    fail(cw, f"no {probe}")
        names = [e["name"] for e in c.get("env") or []]
        for name, count in collections.Counter(names).items():
            if count > 1:
                fail(cw, f"env {name} is set {count} times")
        for e in c.get("env") or []:
            secretish = e["name"] == "DATABASE_URL" or e["name"].endswith("PASSWORD")
            if secretish and "secretKeyRef" not in (e.get("valueFrom") or {}):
                fail(cw, f"env {e['name']} does not come from a secret")
        mounts = {m["name"] for m in c.get("volumeMounts") or []}
        volumes = {v["name"] for v in pod.get("volumes") or []}
        volumes |= {t["metadata"]["name"] for t in spec.get("volumeClaimTemplates") or []}
        for m in mounts - volumes:
            fail(cw, f"mounts volume {m}, which is not defined")
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            port = ((c.get(probe) or {}).get("httpGet") or {}).get("port")
            if isinstance(port, str) and port not in {p["name"] for p in c.get("ports") or []}:
                fail(cw, f"{probe} uses port {port}, which the container does not name")


CONTENT_KINDS = {"canaries", "topologies", "scrapeconfigs", "playbooks"}
ACCESS_CONTROL_KINDS = {"permissions", "accessscopes"}
WRITE_VERBS = {"create", "update", "patch", "delete", "deletecollection", "*"}


def writes(rule):
    return WRITE_VERBS & set(rule.get("verbs") or [])


def check_rbac(label, merged, objects, by_kind):
    """Who the chart lets write what: Permission and AccessScope only through the
    non-aggregated access-control role; the kube proxy writer only in its
    namespaces; the operator no more than its features use."""
    cluster_roles = by_kind["ClusterRole"]
    aggregated = collections.defaultdict(set)
    for name, role in cluster_roles.items():
        labels = role["metadata"]["labels"]
        levels = [l for l in ("view", "edit", "admin")
                  if labels.get(f"rbac.authorization.k8s.io/aggregate-to-{l}") == "true"]
        for level in levels:
            for rule in role["rules"]:
                resources = set(rule["resources"])
                aggregated[level] |= resources
                if level != "view" or writes(rule):
                    if ACCESS_CONTROL_KINDS & resources:
                        fail(label, f"ClusterRole {name} aggregates writing "
                             f"{sorted(ACCESS_CONTROL_KINDS & resources)} into {level}")
    if merged["rbac"]["aggregateToDefaultRoles"]:
        kinds = CONTENT_KINDS | ACCESS_CONTROL_KINDS
        if kinds - aggregated["view"]:
            fail(label, f"view is not given {sorted(kinds - aggregated['view'])}")
        if aggregated["edit"] != CONTENT_KINDS:
            fail(label, f"edit is given {sorted(aggregated['edit'])}, expected {sorted(CONTENT_KINDS)}")
        if aggregated["admin"]:
            fail(label, f"admin is given {sorted(aggregated['admin'])} beyond edit")
    elif aggregated:
        fail(label, "roles aggregate into view/edit/admin although rbac.aggregateToDefaultRoles is false")
    operator = next(w for w in by_kind["Deployment"].values()
                    if w["metadata"]["labels"]["app.kubernetes.io/component"] == "operator")
    fullname = operator["metadata"]["name"].removesuffix("-operator")
    access = cluster_roles.get(f"{fullname}-access-control")
    if access is None or {r for rule in access["rules"] for r in rule["resources"]} != ACCESS_CONTROL_KINDS:
        fail(label, "no <fullname>-access-control ClusterRole writing exactly Permission and AccessScope")

    # The operator: none of its roles updates (PUT) the quarterdeck.dev kinds or
    # grants a wildcard verb; serviceaccounts/token only when switched on.
    sa = operator["spec"]["template"]["spec"]["serviceAccountName"]
    operator_roles = set()
    for binding in (o for o in objects if o["kind"] in ("ClusterRoleBinding", "RoleBinding")):
        if any(s.get("kind") == "ServiceAccount" and s["name"] == sa for s in binding["subjects"]):
            operator_roles.add((binding["roleRef"]["kind"], binding["roleRef"]["name"]))
    token = False
    for kind, name in operator_roles:
        role = by_kind[kind].get(name)
        for rule in (role or {}).get("rules") or []:
            if "quarterdeck.dev" in rule.get("apiGroups", []) and "update" in rule["verbs"]:
                fail(label, f"operator {kind} {name} may update quarterdeck.dev {rule['resources']}")
            if "*" in rule["verbs"]:
                fail(label, f"operator {kind} {name} grants every verb on {rule.get('resources')}")
            token |= "serviceaccounts/token" in rule.get("resources", [])
    if token != merged["operator"]["rbac"]["serviceAccountTokens"]:
        fail(label, f"serviceaccounts/token is {'' if token else 'not '}granted to the operator, "
             f"but operator.rbac.serviceAccountTokens is {merged['operator']['rbac']['serviceAccountTokens']}")

    # The kube proxy writer: write bindings in exactly its namespaces, or one
    # cluster-wide binding when kubeProxy.writer.clusterWide.
    proxy = merged["kubeProxy"]
    if not (proxy["enabled"] and proxy["rbac"]["create"]):
        return
    writer = proxy["writer"]
    user_bindings = collections.defaultdict(list)
    for binding in (o for o in objects if o["kind"] in ("ClusterRoleBinding", "RoleBinding")):
        for s in binding["subjects"]:
            if s.get("kind") == "User" and s["name"] == writer["user"]:
                user_bindings[binding["kind"]].append(binding)
    writer_role = writer["clusterRole"] or f"{fullname}-kubeproxy-writer"
    cluster_wide = {b["roleRef"]["name"] for b in user_bindings["ClusterRoleBinding"]}
    expected = {proxy["reader"]["clusterRole"]} | ({writer_role} if writer["clusterWide"] else set())
    if cluster_wide != expected:
        fail(label, f"the writer is bound cluster-wide to {sorted(cluster_wide)}, expected {sorted(expected)}")
    namespaces = sorted(b["metadata"]["namespace"] for b in user_bindings["RoleBinding"])
    wanted = [] if writer["clusterWide"] else sorted(set(writer["namespaces"] or ["quarterdeck"]))
    if namespaces != wanted:
        fail(label, f"the writer is bound in namespaces {namespaces}, expected {wanted}")
    if any(b["roleRef"]["name"] != writer_role for b in user_bindings["RoleBinding"]):
        fail(label, f"a writer RoleBinding does not grant {writer_role}")
    if not writer["clusterRole"]:
        role = cluster_roles.get(writer_role)
        granted = {r for rule in (role or {}).get("rules") or [] for r in rule["resources"]}
        if granted != CONTENT_KINDS:
            fail(label, f"{writer_role} writes {sorted(granted)}, expected {sorted(CONTENT_KINDS)}")


def check_monitoring(label, merged, by_kind, workloads):
    """PodDisruptionBudgets and ServiceMonitors select what the chart runs."""
    for name, pdb in by_kind["PodDisruptionBudget"].items():
        selector = pdb["spec"]["selector"]["matchLabels"]
        if not any(all(w["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in selector.items())
                   for w in workloads.values()):
            fail(label, f"PodDisruptionBudget {name} selects no rendered pod")
    for component in ("api", "operator"):
        replicas = merged[component]["replicas"]
        has = any(p["metadata"]["labels"]["app.kubernetes.io/component"] == component
                  for p in by_kind["PodDisruptionBudget"].values())
        if has != (merged[component]["podDisruptionBudget"]["enabled"] and replicas > 1):
            fail(label, f"{component}: PodDisruptionBudget {'rendered' if has else 'missing'} with {replicas} replicas")
    monitors = by_kind["ServiceMonitor"]
    if bool(monitors) != merged["operator"]["serviceMonitor"]["enabled"]:
        fail(label, f"{len(monitors)} ServiceMonitors, but operator.serviceMonitor.enabled is "
             f"{merged['operator']['serviceMonitor']['enabled']}")
    for name, monitor in monitors.items():
        selector = monitor["spec"]["selector"]["matchLabels"]
        services = [s for s in by_kind["Service"].values()
                    if all(s["metadata"]["labels"].get(k) == v for k, v in selector.items())]
        if len(services) != 1:
            fail(label, f"ServiceMonitor {name} selects {len(services)} Services, expected the operator's")
            continue
        ports = {p["name"] for p in services[0]["spec"]["ports"]}
        for endpoint in monitor["spec"]["endpoints"]:
            if endpoint["port"] not in ports:
                fail(label, f"ServiceMonitor {name} scrapes port {endpoint['port']}, which Service lacks")


def check_set(label, values, release):
    merged = merge_values(DEFAULTS, values)
    rendered = render(values, release, "quarterdeck")
    objects = []
    set_dir = os.path.join(out_dir, label)
    os.makedirs(set_dir)
    for template, text in sorted(rendered.items()):
        docs = [d for d in yaml.safe_load_all(text) if d]
        kept = []
        for doc in docs:
            where = f"{label} {template}"
            for field in ("apiVersion", "kind"):
                if not doc.get(field):
                    fail(where, f"a document has no {field}")
            if not (doc.get("metadata") or {}).get("name"):
                fail(where, "a document has no metadata.name")
            if str(doc.get("apiVersion", "")).startswith("quarterdeck.dev/"):
                continue  # custom resources: validated against the CRDs by check-crds.sh
            kept.append(doc)
        if kept:
            name = template.replace("/", "_")
            with open(os.path.join(set_dir, name), "w") as f:
                yaml.safe_dump_all(kept, f, sort_keys=False)
        objects.extend(kept)

    # RoleBindings of one name may repeat in several namespaces; by_kind holds
    # the release namespace's (and cluster-scoped) objects by name.
    by_kind = collections.defaultdict(dict)
    seen = set()
    for obj in objects:
        key = (obj["kind"], obj["metadata"]["name"])
        namespace = obj["metadata"].get("namespace")
        if (key, namespace) in seen:
            fail(label, f"{obj['kind']} {obj['metadata']['name']} is rendered twice")
        seen.add((key, namespace))
        if namespace in (None, "quarterdeck"):
            by_kind[obj["kind"]][obj["metadata"]["name"]] = obj
        labels = obj["metadata"].get("labels") or {}
        for l in STANDARD_LABELS:
            if l not in labels:
                fail(label, f"{key[0]} {key[1]} lacks label {l}")
        if len(obj["metadata"]["name"]) > 63 and obj["kind"] in ("Service", "Deployment", "StatefulSet"):
            fail(label, f"{key[0]} {key[1]}: name longer than 63 characters")

    workloads = {**by_kind["Deployment"], **by_kind["StatefulSet"]}
    for name, obj in workloads.items():
        check_workload(f"{label} {obj['kind']} {name}", obj)
        sa = obj["spec"]["template"]["spec"].get("serviceAccountName")
        component = obj["metadata"]["labels"].get("app.kubernetes.io/component")
        if component in ("api", "operator") and merged[component]["serviceAccount"]["create"]:
            if sa not in by_kind["ServiceAccount"]:
                fail(label, f"{obj['kind']} {name} uses ServiceAccount {sa}, which is not rendered")

    # Services select pods that exist and name ports those pods expose.
    for name, svc in by_kind["Service"].items():
        selector = svc["spec"].get("selector") or {}
        pods = [
            w["spec"]["template"] for w in workloads.values()
            if all(w["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in selector.items())
        ]
        if not pods:
            fail(label, f"Service {name} selects no rendered pod")
            continue
        port_names = {p.get("name") for t in pods for c in t["spec"]["containers"] for p in c.get("ports") or []}
        for port in svc["spec"]["ports"]:
            if isinstance(port.get("targetPort"), str) and port["targetPort"] not in port_names:
                fail(label, f"Service {name} targets port {port['targetPort']}, which its pods do not name")

    for name, ing in by_kind["Ingress"].items():
        for rule in ing["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                backend = path["backend"]["service"]
                svc = by_kind["Service"].get(backend["name"])
                if svc is None:
                    fail(label, f"Ingress {name} points at missing Service {backend['name']}")
                elif backend["port"].get("name") not in {p["name"] for p in svc["spec"]["ports"]}:
                    fail(label, f"Ingress {name} points at a port Service {backend['name']} lacks")

    # Secrets referenced by the chart's own workloads exist, unless the values name them.
    external = {
        merged["database"]["existingSecret"]["name"],
        merged["admin"]["existingSecret"]["name"],
    }
    for name, obj in workloads.items():
        for c, _ in containers(obj["spec"]["template"]["spec"]):
            for e in c.get("env") or []:
                ref = (e.get("valueFrom") or {}).get("secretKeyRef")
                if ref and ref["name"] not in by_kind["Secret"] and ref["name"] not in external:
                    fail(label, f"{name} reads secret {ref['name']}, which is neither rendered nor configured")

    # RBAC: bindings point at roles that exist; impersonation only of the two users.
    bindings = [o for o in objects if o["kind"] in ("ClusterRoleBinding", "RoleBinding")]
    for binding in bindings:
        kind, name = binding["kind"], binding["metadata"]["name"]
        ref = binding["roleRef"]
        if ref["name"] in BUILTIN_CLUSTER_ROLES and ref["kind"] == "ClusterRole":
            continue
        if ref["name"] not in by_kind[ref["kind"]]:
            fail(label, f"{kind} {name} refers to missing {ref['kind']} {ref['name']}")
    users = {merged["kubeProxy"]["reader"]["user"], merged["kubeProxy"]["writer"]["user"]}
    impersonation = [
        rule for kind in ("ClusterRole", "Role") for role in by_kind[kind].values()
        for rule in role.get("rules") or [] if "impersonate" in rule.get("verbs", [])
    ]
    if merged["kubeProxy"]["enabled"] and merged["kubeProxy"]["rbac"]["create"]:
        granted = {n for rule in impersonation for n in rule.get("resourceNames") or ["*"]}
        if granted != users or any(rule.get("resources") != ["users"] for rule in impersonation):
            fail(label, f"impersonation grants {sorted(granted)}, expected exactly users {sorted(users)}")
    elif impersonation:
        fail(label, "impersonation is granted although kubeProxy.enabled or kubeProxy.rbac.create is false")
    check_rbac(label, merged, objects, by_kind)
    check_monitoring(label, merged, by_kind, workloads)

    counts = collections.Counter(o["kind"] for o in objects)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(f"  rendered {label}: {len(objects)} objects ({summary})")
    return len(objects)


print(f"  {helm('version', '--short').stdout.strip()}")
total = 0
for label, values, release in value_sets:
    try:
        total += check_set(label, values, release)
    except RenderError as e:
        fail(f"render {label}", str(e))

# ---- 4. values the schema must refuse -----------------------------------------------
invalid = sorted(glob.glob(os.path.join(chart_dir, "ci", "invalid", "*.yaml")))
if not invalid:
    fail("schema", "no ci/invalid/*.yaml value sets to test the schema with")
for path in invalid:
    label = os.path.relpath(path, chart_dir)
    with open(path) as f:
        expect = [m.group(1).strip() for m in re.finditer(r"^# expect: (.+)$", f.read(), re.M)]
    if not expect:
        fail(label, "no '# expect: MESSAGE' line")
        continue
    try:
        render(load_values(path), "bad", "quarterdeck")
    except RenderError as e:
        message = str(e)
        if SCHEMA_ERROR not in message:
            fail(label, f"refused by a template rather than the schema: {message}")
        for text in expect:
            if text not in message:
                fail(label, f"refused, but the message lacks {text!r}: {message}")
    else:
        fail(label, "was accepted; the schema should refuse it")
    if helm("lint", chart_dir, "--values", path).returncode == 0:
        fail(label, "lint reports no error")

if failures:
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    sys.exit(1)
print(f"  {len(value_sets)} value sets rendered ({total} objects); "
      f"{len(invalid)} invalid value sets refused by the schema")
