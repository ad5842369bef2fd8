"""sinfo's layouts, fields, filters and errors (arbor info), on nodes the
test puts in each state: alloc and mix (batch jobs), drng and drain
(arbor control update ... State=DRAIN), down (State=DOWN), down* (a noded
killed), idle. The default, -s, -l, -N, -N -l and -R layouts are checked
character for character against the formats sinfo's man page gives
(widths, justification, headers, -h); -R's USER and TIMESTAMP are who set
the reason and when, kept across a controller restart. Also -o with the
fields of the issue, -O names, -p/-t/-n/-d/-r, --json against the shipped
JSON Schema, $SINFO_FORMAT/$SINFO_SORT/$SINFO_PARTITION, and bad input
(sinfo's messages, exit status 1).
"""

import json
import os
import re
import signal
import time

import jsonschema

from test_batch import batch
from test_cancel import wait_for, wait_state

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "docs", "schema", "arbor.info.schema.json")
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def info(c, *args, env=None, user=None):
    p = c.run(["arbor", "info"] + list(args), env=env, user=user)
    assert p.returncode == 0, (args, p.stderr)
    assert p.stderr == "", (args, p.stderr)
    return p.stdout


def control(c, *args):
    p = c.run(["arbor", "control"] + list(args), user="root")
    assert p.returncode == 0, (args, p.stderr)


def stamps(text):
    """text with every TIMESTAMP as "<T>", and those timestamps (unix s,
    local time as printed)."""
    found = [time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))
             for s in re.findall(STAMP, text)]
    return re.sub(STAMP, "<T>" + " " * 16, text), found


def set_states(c):
    """node1 alloc, node2 mix, node3 drng, node4 drain (one reason, one
    update), node5 down, node6 idle, node7 down* (its noded killed). The
    jobs' ids."""
    full = batch(c, "-J", "full", "-w", "node1", "-n", "4", "--wrap",
                 "sleep 600")
    part = batch(c, "-J", "part", "-w", "node2", "-n", "1", "--wrap",
                 "sleep 600")
    drng = batch(c, "-J", "drng", "-w", "node3", "-n", "1", "--wrap",
                 "sleep 600")
    for jid in (full, part, drng):
        wait_state(c, jid, "RUNNING", 30)
    control(c, "update", "NodeName=node[3-4]", "State=DRAIN",
            "Reason=swap disk")
    control(c, "update", "NodeName=node5", "State=DOWN", "Reason=maint")
    pid = c.daemon_pid("node7")
    os.kill(pid, signal.SIGKILL)
    # A job sent there fails at launch: what makes the controller notice.
    c.run(["arbor", "run", "-w", "node7", "true"], timeout=60)
    wait_for(lambda: "down*" in info(c, "-h", "-n", "node7", "-o", "%t"), 60,
             "node7 to be down*")
    return full, part, drng


DEFAULT = (
    "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
    "debug*       up   infinite      1   drng node3\n"
    "debug*       up   infinite      1  drain node4\n"
    "debug*       up   infinite      1    mix node2\n"
    "debug*       up   infinite      1  alloc node1\n"
    "debug*       up   infinite      1   idle node6\n"
    "debug*       up   infinite      1   down node5\n"
    "debug*       up   infinite      1  down* node7\n"
    "short        up      10:00      1   idle node6\n"
    "short        up      10:00      1  down* node7\n")

SUMMARIZE = (
    "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T)  NODELIST\n"
    "debug*       up   infinite          2/1/4/7  node[1-7]\n"
    "short        up      10:00          0/1/1/2  node[6-7]\n")

LONG = (
    "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES"
    "       STATE NODELIST\n"
    "debug*       up   infinite 1-infinite   no       NO        all      1"
    "    draining node3\n"
    "debug*       up   infinite 1-infinite   no       NO        all      1"
    "     drained node4\n"
    "debug*       up   infinite 1-infinite   no       NO        all      1"
    "       mixed node2\n"
    "debug*       up   infinite 1-infinite   no       NO        all      1"
    "   allocated node1\n"
    "debug*       up   infinite 1-infinite   no       NO        all      1"
    "        idle node6\n"
    "debug*       up   infinite 1-infinite   no       NO        all      1"
    "        down node5\n"
    "debug*       up   infinite 1-infinite   no       NO        all      1"
    "       down* node7\n"
    "short        up      10:00 1-infinite   no       NO        all      1"
    "        idle node6\n"
    "short        up      10:00 1-infinite   no       NO        all      1"
    "       down* node7\n")

NODE = (
    "NODELIST   NODES PARTITION STATE \n"
    "node1          1 debug*    alloc \n"
    "node2          1 debug*    mix   \n"
    "node3          1 debug*    drng  \n"
    "node4          1 debug*    drain \n"
    "node5          1 debug*    down  \n"
    "node6          1 debug*    idle  \n"
    "node6          1 short     idle  \n"
    "node7          1 debug*    down* \n"
    "node7          1 short     down* \n")

NODE_LONG_HEAD = (
    "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK "
    "WEIGHT AVAIL_FE REASON              \n")
NODE_LONG_ROW = ("%-9s      1 %-9s %11s    4    4:1:1 %6d        0      1"
                 "   (null) %-20s\n")

REASONS = (
    "REASON               USER      TIMESTAMP           NODELIST\n"
    "swap disk            root      <T>                 node[3-4]\n"
    "maint                root      <T>                 node5\n"
    "Not responding       root      <T>                 node7\n")

REASONS_LONG = (
    "REASON               USER         TIMESTAMP           STATE  NODELIST\n"
    "swap disk            root(0)      <T>                 drng   node3\n"
    "swap disk            root(0)      <T>                 drain  node4\n"
    "maint                root(0)      <T>                 down   node5\n"
    "Not responding       root(0)      <T>                 down*  node7\n")


def mem_of(c):
    """RealMemory of the nodes (arbor local gives them all the same)."""
    out = info(c, "-h", "-N", "-n", "node1", "-o", "%m")
    return int(out.split()[0])


def check_layouts(c, t0):
    assert info(c) == DEFAULT
    assert info(c, "-h") == "".join(DEFAULT.splitlines(True)[1:])
    assert info(c, "-s") == SUMMARIZE
    assert info(c, "-l") == LONG
    assert info(c, "-N") == NODE
    assert info(c, "-N", "-h") == "".join(NODE.splitlines(True)[1:])
    mem = mem_of(c)
    rows = [("node1", "debug*", "allocated", "none"),
            ("node2", "debug*", "mixed", "none"),
            ("node3", "debug*", "draining", "swap disk"),
            ("node4", "debug*", "drained", "swap disk"),
            ("node5", "debug*", "down", "maint"),
            ("node6", "debug*", "idle", "none"),
            ("node6", "short", "idle", "none"),
            ("node7", "debug*", "down*", "Not responding"),
            ("node7", "short", "down*", "Not responding")]
    assert info(c, "-N", "-l") == NODE_LONG_HEAD + "".join(
        NODE_LONG_ROW % (n, p, s, mem, r) for n, p, s, r in rows)
    # -R: who set each reason (root: the administrator, and ArborUser,
    # root here, for "Not responding") and when.
    out, when = stamps(info(c, "-R"))
    assert out == REASONS, out
    assert len(when) == 3 and all(t0 - 1 <= t <= time.time() for t in when)
    out, when = stamps(info(c, "-R", "-l"))
    assert out == REASONS_LONG, out
    assert info(c, "-R", "-h") == "".join(info(c, "-R").splitlines(True)[1:])


def check_fields(c):
    # The list: one line per partition and state, each field as
    # wide as its value.
    out = info(c, "-o", "%P %a %l %D %t %N %c %m %e %O %E %H %T %C")
    lines = out.splitlines()
    assert lines[0] == ("PARTITION AVAIL TIMELIMIT NODES STATE NODELIST CPUS "
                        "MEMORY FREE_MEM CPU_LOAD REASON TIMESTAMP STATE "
                        "CPUS(A/I/O/T)"), lines[0]
    num, load = r"(\d+|N/A)", r"(\d+\.\d\d|N/A)"
    want = [
        r"debug\* up infinite 1 drng node3 4 \d+ %s %s swap disk %s "
        r"draining 1/0/3/4" % (num, load, STAMP),
        r"debug\* up infinite 1 drain node4 4 \d+ %s %s swap disk %s "
        r"drained 0/0/4/4" % (num, load, STAMP),
        r"debug\* up infinite 1 mix node2 4 \d+ %s %s none Unknown mixed "
        r"1/3/0/4" % (num, load),
        r"debug\* up infinite 1 alloc node1 4 \d+ %s %s none Unknown "
        r"allocated 4/0/0/4" % (num, load),
        r"debug\* up infinite 1 idle node6 4 \d+ %s %s none Unknown idle "
        r"0/4/0/4" % (num, load),
        r"debug\* up infinite 1 down node5 4 \d+ %s %s maint %s down "
        r"0/0/4/4" % (num, load, STAMP),
        r"debug\* up infinite 1 down\* node7 4 \d+ %s %s Not responding %s "
        r"down\* 0/0/4/4" % (num, load, STAMP),
        r"short up 10:00 1 idle node6 4 \d+ %s %s none Unknown idle 0/4/0/4"
        % (num, load),
        r"short up 10:00 1 down\* node7 4 \d+ %s %s Not responding %s "
        r"down\* 0/0/4/4" % (num, load, STAMP),
    ]
    assert len(lines) == len(want) + 1, out
    for line, pat in zip(lines[1:], want):
        assert re.fullmatch(pat, line), (pat, line)
    # Widths and justification: '.' right, a size pads and cuts.
    assert info(c, "-h", "-p", "short", "-o", "%.8P|%3t|%4N|%3D") == (
        "   short|idl|node|1  \n"
        "   short|dow|node|1  \n")
    # -O names, any case; 20 wide by default, the separator included.
    assert info(c, "-h", "-p", "short", "-O",
                "partition:7,nodes:.3,StateCompact:7,NodeList") == (
        "short    1idle   node6               \n"
        "short    1down*  node7               \n")
    # No partition's field: each node counted once.
    assert info(c, "-h", "-o", "%D") == "7\n"
    assert info(c, "-h", "-o", "%F") == "2/1/4/7\n"


def names(out):
    return out.split()


def check_filters(c):
    def nodes(*args):
        # without a partition's field, a node is on one line
        return names(info(c, "-h", "-N", "-o", "%N", *args))
    assert nodes("-p", "short") == ["node6", "node7"]
    assert nodes("-t", "idle") == ["node6"]
    assert names(info(c, "-h", "-N", "-o", "%N%P", "-t", "idle")) == [
        "node6debug*", "node6short"]
    assert nodes("-t", "IDLE", "-p", "debug") == ["node6"]
    assert nodes("-t", "drain", "-p", "debug") == ["node3", "node4"]
    assert nodes("-t", "drng", "-p", "debug") == ["node3"]
    assert nodes("-t", "mix,alloc") == ["node1", "node2"]
    assert nodes("-t", "down", "-p", "debug") == ["node5", "node7"]
    assert nodes("-t", "down&no_respond", "-p", "debug") == ["node7"]
    assert nodes("-t", "maint") == []
    assert nodes("-d", "-p", "debug") == ["node7"]
    assert nodes("-r", "-p", "debug") == ["node%d" % i for i in range(1, 7)]
    assert nodes("-n", "node[2,6]") == ["node2", "node6"]
    assert nodes("-R", "-p", "debug") == ["node3", "node4", "node5", "node7"]
    # sinfo prints nothing for a partition that does not exist.
    assert info(c, "-p", "nosuch") == "PARTITION AVAIL  TIMELIMIT  NODES  " \
        "STATE NODELIST\n"
    assert info(c, "-h", "-p", "nosuch") == ""
    # -S: node names with their numbers as numbers, descending.
    assert names(info(c, "-h", "-o", "%N", "-N", "-p", "debug", "-S", "-N")) \
        == ["node%d" % i for i in range(7, 0, -1)]


def check_json(c):
    with open(SCHEMA) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    doc = json.loads(info(c, "--json"))
    validator.validate(doc)
    assert doc["schema"] == "arbor.info" and doc["version"] == 1
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert sorted(nodes) == ["node%d" % i for i in range(1, 8)]
    assert [(nodes[n]["state"], nodes[n]["state_code"])
            for n in sorted(nodes)] == [
        ("ALLOCATED", "alloc"), ("MIXED", "mix"), ("DRAINING", "drng"),
        ("DRAIN", "drain"), ("DOWN", "down"), ("IDLE", "idle"),
        ("DOWN", "down")]
    assert [n for n in sorted(nodes) if not nodes[n]["responding"]] == \
        ["node7"]
    assert nodes["node3"]["reason"] == "swap disk"
    assert nodes["node3"]["reason_user"] == "root"
    assert nodes["node3"]["reason_uid"] == 0
    assert nodes["node3"]["reason_time"] > 0
    assert nodes["node6"]["reason"] is None
    assert nodes["node6"]["reason_time"] is None
    assert nodes["node1"]["alloc_cpus"] == 4
    assert nodes["node2"]["alloc_cpus"] == 1
    parts = doc["partitions"]
    assert [(p["name"], p["default"], p["max_time_minutes"], p["nodes"])
            for p in parts] == [
        ("debug", True, None, ["node%d" % i for i in range(1, 8)]),
        ("short", False, 10, ["node6", "node7"])]
    # The selection applies, the layout does not.
    doc = json.loads(info(c, "--json", "-t", "idle", "-p", "short", "-N",
                          "-o", "%N"))
    validator.validate(doc)
    assert [n["name"] for n in doc["nodes"]] == ["node6"]
    assert [(p["name"], p["nodes"], p["total_cpus"])
            for p in doc["partitions"]] == [("short", ["node6"], 4)]


def check_env(c):
    env = {"SINFO_FORMAT": "%N %t"}
    # SINFO_FORMAT is an -o: it also outranks -N's layout; -o outranks it.
    assert info(c, "-h", "-p", "short", env=env) == "node6 idle\nnode7 down*\n"
    assert info(c, "-h", "-N", "-p", "short", env=env) == \
        "node6 idle\nnode7 down*\n"
    assert info(c, "-h", "-p", "short", "-o", "%D", env=env) == "2\n"
    env = {"SINFO_PARTITION": "short", "SINFO_SORT": "t"}
    assert info(c, "-h", "-o", "%P %t", env=env) == \
        "short down*\nshort idle\n"
    assert info(c, "-h", "-o", "%P %t", "-p", "debug", "-S", "-D,t",
                env=env).splitlines()[0] == "debug* down"


def test_layouts_fields_filters(cluster, test_user):
    t0 = time.time()
    c = cluster(7, cpus=4, PartitionName="short Nodes=node[6-7] MaxTime=10")
    assert info(c) == (
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
        "debug*       up   infinite      7   idle node[1-7]\n"
        "short        up      10:00      2   idle node[6-7]\n")
    assert info(c, "-R") == \
        "REASON               USER      TIMESTAMP           NODELIST\n"
    jobs = set_states(c)
    check_layouts(c, t0)
    check_fields(c)
    check_filters(c)
    check_json(c)
    check_env(c)

    # Who set the administrators' reasons, and when, survive a restart of
    # the controller (node7's "Not responding" is its own to find again).
    before = [l for l in info(c, "-R", "-h").splitlines()
              if not l.startswith("Not responding")]
    c.restart("ctld")
    after = [l for l in info(c, "-R", "-h").splitlines()
             if not l.startswith("Not responding")]
    assert after == before and len(before) == 2, (before, after)
    # SLURM_TIME_FORMAT
    out = info(c, "-h", "-R", "-p", "debug", "-t", "drain", "-o", "%H",
               env={"SLURM_TIME_FORMAT": "%d/%m %H.%M"})
    assert re.fullmatch(r"\d\d/\d\d \d\d\.\d\d\n", out), out
    c.run(["arbor", "cancel"] + [str(j) for j in jobs])


def test_bad_input(cluster, test_user):
    c = cluster(1)
    sinfo = os.path.join(os.path.dirname(c.arbor), "sinfo")
    cases = [
        (["-o", "%P %y"], "sinfo: error: Invalid node format specification: "
                          "%y"),
        (["-O", "Partition,Bogus"], "sinfo: error: Invalid node format "
                                    "specification: Bogus"),
        (["-t", "idle,sleepy"], "sinfo: error: Invalid node state specified: "
                                "sleepy"),
        (["-S", "P,Q"], "sinfo: error: Invalid sort specification: Q"),
        (["-o", "%P", "-O", "Partition"], "sinfo: error: -o/--format and "
                                          "-O/--Format cannot be used "
                                          "together"),
        (["--bogus"], "sinfo: unrecognized option '--bogus'"),
    ]
    for args, text in cases:
        p = c.run([sinfo] + args)
        assert p.returncode == 1, (args, p.stdout, p.stderr)
        assert p.stdout == "", (args, p.stdout)
        assert text in p.stderr, (args, p.stderr)
    # The same from "arbor info", and from the environment.
    p = c.run(["arbor", "info", "-o", "%y"])
    assert p.returncode == 1 and "Invalid node format specification: %y" \
        in p.stderr, p.stderr
    p = c.run(["arbor", "info"], env={"SINFO_FORMAT": "%y"})
    assert p.returncode == 1 and "Invalid node format specification: %y" \
        in p.stderr, p.stderr
    # An unknown partition is not an error (sinfo's way): nothing shown.
    p = c.run([sinfo, "-h", "-p", "nosuch"])
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", p
