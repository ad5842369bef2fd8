"""The --json documents and their shipped JSON Schemas (docs/schema/).

Every schema must be a sound draft 2020-12 schema that names its document
("schema" is a constant equal to the file's name), lists every member it
describes as required (a member may only be added, never go missing
within a version), and is indexed in docs/json-schema.md; every example
in docs/json/ must validate. Then a small cluster is driven into jobs
that are pending, running (with a step) and ended, and every command's
--json output is validated against its schema.
"""

import glob
import json
import os
import re

import pytest

from conftest import skip_or_fail
from test_batch import batch
from test_cancel import wait_for, wait_state

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCHEMA_DIR = os.path.join(ROOT, "docs", "schema")


def jsonschema():
    try:
        import jsonschema as js
    except ImportError:
        skip_or_fail("python3-jsonschema is not installed "
                     "(scripts/setup.sh installs it)")
    return js


def schemas():
    """{name: schema} of docs/schema/*.schema.json."""
    out = {}
    for path in sorted(glob.glob(os.path.join(SCHEMA_DIR, "*.schema.json"))):
        with open(path) as f:
            out[os.path.basename(path)[:-len(".schema.json")]] = json.load(f)
    return out


def objects(node, where="#"):
    """Every (place, subschema) of node that describes an object."""
    if isinstance(node, dict):
        if "properties" in node:
            yield where, node
        for k, v in node.items():
            yield from objects(v, "%s/%s" % (where, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from objects(v, "%s/%d" % (where, i))


def test_schemas_are_sound():
    js = jsonschema()
    found = schemas()
    assert set(found) >= {"arbor.acct", "arbor.queue", "arbor.queue.steps",
                          "arbor.info", "arbor.control.job",
                          "arbor.control.step", "arbor.control.node",
                          "arbor.control.partition"}, sorted(found)
    with open(os.path.join(ROOT, "docs", "json-schema.md")) as f:
        index = f.read()
    for name, schema in found.items():
        js.Draft202012Validator.check_schema(schema)
        assert schema["properties"]["schema"].get("const") == name, name
        assert "schema/%s.schema.json" % name in index, name
        for where, obj in objects(schema):
            assert sorted(obj.get("required", [])) == \
                sorted(obj["properties"]), "%s %s" % (name, where)


def test_doc_examples_validate():
    js = jsonschema()
    found = schemas()
    checked = set()
    for page in sorted(glob.glob(os.path.join(ROOT, "docs", "json", "*.md"))):
        with open(page) as f:
            text = f.read()
        for block in re.findall(r"```json\n(.*?)```", text, re.S):
            try:
                doc = json.loads(block)
            except ValueError:
                continue  # a fragment, not a whole document
            if isinstance(doc, dict) and doc.get("schema") in found:
                js.validate(doc, found[doc["schema"]],
                            cls=js.Draft202012Validator)
                checked.add(doc["schema"])
    assert checked >= {"arbor.acct", "arbor.queue", "arbor.info"}, checked


def as_json(c, args, user=None):
    p = c.run(["arbor"] + args, user=user)
    assert p.returncode == 0, "%s: %s" % (args, p.stderr)
    return json.loads(p.stdout)


def test_every_json_output_validates(cluster, test_user):
    js = jsonschema()
    found = schemas()
    c = cluster(2, cpus=2)
    # ended, failed, running with a step, pending (held)
    assert c.run(["arbor", "run", "-N", "2", "true"]).returncode == 0
    failed = batch(c, "--wrap", "exit 3")
    running = batch(c, "-N", "1", "--wrap", "%s run sleep 300" % c.arbor)
    held = batch(c, "-H", "--wrap", "true")
    wait_state(c, failed, "FAILED", 30)
    wait_state(c, running, "RUNNING", 30)
    wait_for(lambda: "%d.0" % running in c.run(
        ["arbor", "queue", "-s", "-h", "-o", "%i"]).stdout, 30,
        "the running job's step")
    runs = {
        "arbor.acct": ["acct", "--json", "-a"],
        "arbor.queue": ["queue", "--json", "-t", "all"],
        "arbor.queue.steps": ["queue", "-s", "--json"],
        "arbor.info": ["info", "--json"],
        "arbor.control.job": ["control", "--json", "show", "job"],
        "arbor.control.step": ["control", "--json", "show", "step"],
        "arbor.control.node": ["control", "--json", "show", "node"],
        "arbor.control.partition": ["control", "--json", "show",
                                    "partition"],
    }
    for name, args in runs.items():
        doc = as_json(c, args)
        js.validate(doc, found[name], cls=js.Draft202012Validator)
        assert doc["schema"] == name and doc["version"] == 1, doc
        listed = [v for k, v in doc.items() if isinstance(v, list)]
        assert listed and all(listed), "%s: empty %s" % (name, doc)
    jobs = {j["job_id"]: j for j in as_json(c, runs["arbor.queue"])["jobs"]}
    assert jobs[held]["state"] == "PENDING", jobs[held]
    assert jobs[running]["state"] == "RUNNING", jobs[running]
    assert jobs[failed]["state"] == "FAILED", jobs[failed]
    assert c.run(["arbor", "cancel", str(running), str(held)]).returncode == 0
