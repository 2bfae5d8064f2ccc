#!/usr/bin/env python3
"""Runs the workspace's test binaries, several at once.

`cargo test` runs its binaries one after another, and most of their time is
spent waiting (on PostgreSQL, on an engine's interval, on a server), so the
suite builds them with `cargo test --no-run` and runs `--jobs` of them at a
time, each as cargo would (in its package's directory, with cargo's
variables). Each PostgreSQL test has its own database; the other servers are
shared, so binaries whose sources name the same one (`KUBECONFIG` for the
kube-apiserver, `QD_TEST_<SERVER>_` for the servers of hack/lib/servers/)
take turns. A binary's output is printed whole when it ends; every binary
runs even when one fails, and the summary lists the failures.

    hack/lib/cargo_tests.py [--jobs N] [-- cargo test arguments]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

# The slowest binaries (by their last measured times) start first, so that
# none of them starts last and runs alone.
SLOW_FIRST = ("scope_leak_sweep", "cluster", "playbook_triggers", "rest_query")
# Binaries whose passing run prints figures for the log (the fault suite's
# recovery times).
PRINTS_FIGURES = ("faults",)
SERVER = re.compile(r"\bQD_TEST_([A-Z0-9]+)_|\b(KUBECONFIG)\b")


def build(cargo_args):
    """Builds the test binaries; returns (name, package dir, executable, sources)."""
    command = ["cargo", "test", "--no-run", "--message-format=json-render-diagnostics", *cargo_args]
    out = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({out.returncode})")
    binaries = []
    for line in out.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") != "compiler-artifact" or not message.get("executable"):
            continue
        if not message["profile"]["test"]:
            continue
        target = message["target"]
        package_dir = Path(message["manifest_path"]).parent
        name, version = package_name(message["package_id"], package_dir)
        kind = target["kind"][0]
        selector = {"lib": "--lib", "test": f"--test {target['name']}"}.get(kind, f"--{kind} {target['name']}")
        binaries.append(
            {
                "name": target["name"],
                "label": f"{package_dir.name}: {Path(target['src_path']).relative_to(package_dir)}",
                "dir": package_dir,
                "package": (name, version),
                "rerun": f"cargo test -p {name} {selector}",
                "exe": message["executable"],
                "servers": servers(package_dir, Path(target["src_path"]), target["kind"]),
            }
        )
    return binaries


def servers(package_dir, src, kinds):
    """The shared servers a test binary's sources name."""
    if "test" in kinds:
        # An integration test: its file, its own directory when it has one
        # (tests/x/main.rs), and the shared modules of the package's tests.
        files = [src] if src.parent.name == "tests" else list(src.parent.rglob("*.rs"))
        for shared in ("common", "support"):
            files += list((package_dir / "tests" / shared).rglob("*.rs"))
            files += [package_dir / "tests" / f"{shared}.rs"]
    else:
        files = list((package_dir / "src").rglob("*.rs"))
    found = set()
    for file in files:
        if file.is_file():
            for match in SERVER.finditer(file.read_text(errors="replace")):
                found.add(match.group(1) or match.group(2))
    return found


def package_name(package_id, package_dir):
    """The name and version in a package id (`path+file:///x/store#quarterdeck-store@0.1.0`)."""
    name, _, version = package_id.rpartition("#")[2].partition("@")
    if not version:  # `path+file:///x/xtask#0.1.0`: the directory is the name
        return package_dir.name, name
    return name, version


def package_env(binary):
    name, version = binary["package"]
    env = dict(os.environ)
    env.update(
        CARGO_MANIFEST_DIR=str(binary["dir"]),
        CARGO_PKG_NAME=name,
        CARGO_PKG_VERSION=version,
        CARGO_CRATE_NAME=binary["name"].replace("-", "_"),
    )
    return env


def run(binaries, jobs):
    binaries.sort(key=lambda b: SLOW_FIRST.index(b["name"]) if b["name"] in SLOW_FIRST else len(SLOW_FIRST))
    # Binaries that take turns on a server go before the others, so that the
    # chain of turns starts at once.
    binaries.sort(key=lambda b: not b["servers"])
    pending, busy, results = list(binaries), set(), []
    lock = threading.Condition()
    print_lock = threading.Lock()

    def worker():
        while True:
            with lock:
                while True:
                    if not pending:
                        return
                    binary = next((b for b in pending if not b["servers"] & busy), None)
                    if binary:
                        pending.remove(binary)
                        busy.update(binary["servers"])
                        break
                    lock.wait()
            started = time.monotonic()
            out = subprocess.run(
                [binary["exe"], *(["--nocapture"] if binary["name"] in PRINTS_FIGURES else [])],
                cwd=binary["dir"],
                env=package_env(binary),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
            )
            seconds = time.monotonic() - started
            with print_lock:
                print(f"     Running {binary['label']} ({binary['exe']}), {seconds:.1f}s", flush=True)
                print(out.stdout, end="", flush=True)
            with lock:
                busy.difference_update(binary["servers"])
                results.append((binary, out.returncode, seconds))
                lock.notify_all()

    threads = [threading.Thread(target=worker) for _ in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("cargo_args", nargs="*")
    args = parser.parse_args()
    started = time.monotonic()
    binaries = build(args.cargo_args)
    built = time.monotonic()
    results = run(binaries, max(1, args.jobs))
    failed = [(b, rc) for b, rc, _ in results if rc != 0]
    slowest = ", ".join(f"{b['label']} {s:.0f}s" for b, _, s in sorted(results, key=lambda r: -r[2])[:5])
    print(
        f"test binaries: {len(results) - len(failed)} passed, {len(failed)} failed;"
        f" built in {built - started:.0f}s, ran in {time.monotonic() - built:.0f}s, {args.jobs} at a time;"
        f" slowest: {slowest}"
    )
    for binary, rc in failed:
        print(f"FAILED ({rc}): {binary['label']}; on its own: {binary['rerun']}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
