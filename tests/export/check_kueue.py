#!/usr/bin/env python3
"""Checks the kueue export against Kueue's own rules.

    check_kueue.py --source TOP --cli BUILD/bin/railyard-cli SAMPLE.json...

For every sample: `railyard-cli export SAMPLE --format kueue` is split into its "---"
documents (each is JSON, which is YAML 1.2), and
1. the Topology and the ResourceFlavor validate against the v1beta2 CRD schemas stored in
   tests/export/data/kueue_crd_v1beta2_schema.json (provenance inside), with Debian's
   python3-jsonschema (Draft 2020-12), unknown fields refused;
2. the CEL rules of those CRDs a new object can break hold: Topology levels unique, and
   kubernetes.io/hostname only as the lowest level; a ResourceFlavor with topologyName has at
   least one nodeLabels entry and names the Topology of the file;
3. the Job follows pkg/controller/jobframework/tas_validation.go (same commit): at most one of
   podset-required / -preferred / -unconstrained-topology, each naming a level of the Topology,
   podset-slice-size only with podset-slice-required-topology and never above the pod count,
   and the size divides the pod count; it is an Indexed Job (pods ordered by
   batch.kubernetes.io/job-completion-index, the KEP 2724 rank order) of one pod per node of the
   mapping, queued with kueue.x-k8s.io/queue-name;
4. the validator catches a broken copy (an unknown field, a duplicated level, hostname not
   lowest, an annotation naming no level), so it cannot pass by accepting everything.
Exit 0 when all hold; 1 with one line per problem.
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("check_kueue: python3-jsonschema is missing (railyard.sh installs it)")
    sys.exit(1)

PREFIX = "kueue.x-k8s.io/"


def documents(text):
    docs, current = [], []
    for line in text.splitlines():
        if line.strip() == "---":
            if current:
                docs.append("\n".join(current))
            current = []
        elif not line.startswith("#"):
            current.append(line)
    if current and "".join(current).strip():
        docs.append("\n".join(current))
    return [json.loads(d) for d in docs]


def problems(docs, schemas):
    out = []
    kinds = {d.get("kind"): d for d in docs}
    for kind in ("Topology", "ResourceFlavor", "Service", "Job"):
        if kind not in kinds:
            out.append("no %s document" % kind)
    if out:
        return out
    for kind in ("Topology", "ResourceFlavor"):
        validator = jsonschema.Draft202012Validator(schemas[kind])
        for e in validator.iter_errors(kinds[kind]):
            out.append("%s %s: %s" % (kind, "/".join(str(p) for p in e.absolute_path), e.message))
    topo, flavor, job = kinds["Topology"], kinds["ResourceFlavor"], kinds["Job"]
    levels = [l.get("nodeLabel") for l in topo.get("spec", {}).get("levels", [])]
    if len(set(levels)) != len(levels):
        out.append("Topology levels: must be unique")
    if "kubernetes.io/hostname" in levels and levels[-1] != "kubernetes.io/hostname":
        out.append("Topology levels: the kubernetes.io/hostname label can only be used at the lowest level")
    fspec = flavor.get("spec", {})
    if "topologyName" in fspec:
        if len(fspec.get("nodeLabels", {})) < 1:
            out.append("ResourceFlavor: topologyName needs at least one nodeLabels entry")
        if fspec["topologyName"] != topo.get("metadata", {}).get("name"):
            out.append("ResourceFlavor: topologyName %r is not the Topology %r"
                       % (fspec["topologyName"], topo.get("metadata", {}).get("name")))
    spec = job.get("spec", {})
    ann = spec.get("template", {}).get("metadata", {}).get("annotations", {})
    chosen = [k for k in ("podset-required-topology", "podset-preferred-topology",
                          "podset-unconstrained-topology") if PREFIX + k in ann]
    if len(chosen) != 1:
        out.append("Job: %d topology annotations, expected exactly one" % len(chosen))
    for k in ("podset-required-topology", "podset-preferred-topology",
              "podset-slice-required-topology"):
        if PREFIX + k in ann and ann[PREFIX + k] not in levels:
            out.append("Job: %s %r is no level of the Topology" % (k, ann[PREFIX + k]))
    pods = spec.get("completions")
    if spec.get("completionMode") != "Indexed" or pods != spec.get("parallelism"):
        out.append("Job: not an Indexed Job with completions == parallelism")
    slice_size = ann.get(PREFIX + "podset-slice-size")
    if (slice_size is None) != (PREFIX + "podset-slice-required-topology" not in ann):
        out.append("Job: podset-slice-size and podset-slice-required-topology go together")
    if slice_size is not None:
        if not re.fullmatch(r"[0-9]+", slice_size) or int(slice_size) < 1:
            out.append("Job: podset-slice-size %r must be a positive number" % slice_size)
        elif int(slice_size) > pods or pods % int(slice_size):
            out.append("Job: podset-slice-size %s does not divide the %d pods" % (slice_size, pods))
    if not job.get("metadata", {}).get("labels", {}).get(PREFIX + "queue-name"):
        out.append("Job: no kueue.x-k8s.io/queue-name label")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("samples", nargs="+")
    args = ap.parse_args()
    stored = json.load(open(os.path.join(args.source, "tests/export/data/kueue_crd_v1beta2_schema.json")))
    schemas = stored["schemas"]
    failures = []
    for sample in args.samples:
        path = os.path.join(args.source, sample)
        run = subprocess.run([args.cli, "export", path, "--format", "kueue"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            failures.append("%s: export failed: %s" % (sample, run.stderr.strip()))
            continue
        docs = documents(run.stdout)
        nodes = re.search(r"^# railyard-node-order:(.*)$", run.stdout, re.M)
        for p in problems(docs, schemas):
            failures.append("%s: %s" % (sample, p))
        job = [d for d in docs if d.get("kind") == "Job"][0]
        if not nodes or len(nodes.group(1).split()) != job["spec"]["completions"]:
            failures.append("%s: the Job's pod count is not the mapping's node count" % sample)
        # The validator must catch broken copies.
        broken = []
        d = copy.deepcopy(docs)
        [x for x in d if x["kind"] == "Topology"][0]["spec"]["level"] = []
        broken.append(("an unknown field", d))
        d = copy.deepcopy(docs)
        lv = [x for x in d if x["kind"] == "Topology"][0]["spec"]["levels"]
        lv.append(dict(lv[0]))
        broken.append(("a repeated level", d))
        d = copy.deepcopy(docs)
        lv = [x for x in d if x["kind"] == "Topology"][0]["spec"]["levels"]
        lv.insert(0, lv.pop())
        broken.append(("hostname not lowest", d))
        d = copy.deepcopy(docs)
        a = [x for x in d if x["kind"] == "Job"][0]["spec"]["template"]["metadata"]["annotations"]
        for k in list(a):
            if k.endswith("-topology") and not k.startswith(PREFIX + "podset-slice"):
                a[k] = "example.com/no-such-level"
        broken.append(("an annotation naming no level", d))
        for what, d in broken:
            if not problems(d, schemas):
                failures.append("%s: the check accepts %s" % (sample, what))
    for f in failures:
        print("check_kueue: " + f)
    if not failures:
        print("check_kueue: %d sample(s) valid against %s" % (len(args.samples), stored["provenance"][:60]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
