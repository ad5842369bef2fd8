"""The site's policy (issue 36): sacctmgr's accounts, users and
coordinators, and AccountingStorageEnforce=associations, on a real
arbor local cluster, as two real unprivileged users (arbortest,
arbortest2) in two accounts. root, the cluster's ArborUser, is its
administrator; arbortest2 is nobody until it is made a coordinator."""
import re

import arbor_cluster

SECOND = arbor_cluster.TEST_USER2


def acctmgr(c, *args, user="root", input=None):
    """sacctmgr, by default as the administrator."""
    return c.run(["arbor", "acctmgr"] + list(args), user=user, input=input)


def ok(p):
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def submit(c, *args, user=None):
    return c.run(["arbor", "batch", "-o", "/dev/null"] + list(args)
                 + ["--wrap", "sleep 30"], user=user)


def test_accounts_users_and_enforcement(cluster, test_user, second_user):
    c = cluster(1, cpus=4, AccountingStorageEnforce="associations")
    me = test_user.pw_name
    # a new database holds the cluster and the root account
    assert ok(acctmgr(c, "-n", "-P", "show", "account",
                      "format=account")).split() == ["root"]
    assert ok(acctmgr(c, "-n", "-P", "show", "cluster",
                      "format=cluster")).split() == [c_name(c)]
    # without -i it asks; no answer discards
    out = ok(acctmgr(c, "add", "account", "physics", input=""))
    assert "Would you like to commit changes?" in out
    assert "Changes Discarded" in out
    assert ok(acctmgr(c, "-n", "-P", "show", "account",
                      "format=account")).split() == ["root"]
    out = ok(acctmgr(c, "add", "account", "physics,chem",
                     "Description=Science", input="y\n"))
    assert " Adding Account(s)\n  physics\n  chem\n" in out
    ok(acctmgr(c, "-i", "add", "user", me, "Account=physics"))
    ok(acctmgr(c, "-i", "add", "user", SECOND, "Account=chem"))
    rows = ok(acctmgr(c, "-n", "-P", "show", "assoc",
                      "format=account,user")).splitlines()
    assert rows == ["root|", "physics|", "physics|" + me, "chem|",
                    "chem|" + SECOND], rows
    out = ok(acctmgr(c, "show", "user", me))
    assert re.search(r"\s+%s\s+physics\s+None *\n" % me, out), out

    # each user runs in its own account by default, not in the other's
    p = submit(c)
    assert p.returncode == 0, p.stderr
    job = p.stdout.split()[-1]
    assert ok(c.run(["arbor", "queue", "-h", "-j", job, "-o",
                     "%a"])).strip() == "physics"
    p = submit(c, "-A", "chem")
    assert p.returncode != 0
    assert "Invalid account or account/partition combination specified" \
        in p.stderr, p.stderr
    p = submit(c, "-A", "chem", user=SECOND)
    assert p.returncode == 0, p.stderr

    # the policy is in the accounting database: a restart keeps it
    c.restart("ctld")
    rows = ok(acctmgr(c, "-n", "-P", "show", "user",
                      "format=user,defaultaccount")).split()
    assert sorted(rows) == sorted([me + "|physics", SECOND + "|chem"])


def test_coordinator_and_escalation(cluster, test_user, second_user):
    c = cluster(1, cpus=2)
    me = test_user.pw_name
    ok(acctmgr(c, "-i", "add", "account", "physics,chem"))
    ok(acctmgr(c, "-i", "add", "user", SECOND, "Account=chem"))
    # nobody: shows, changes nothing
    ok(acctmgr(c, "show", "account", user=SECOND))
    p = acctmgr(c, "-i", "add", "account", "bio", user=SECOND)
    assert p.returncode == 1
    assert "Access/permission denied" in p.stderr, p.stderr
    # the coordinator of chem manages chem, not physics
    ok(acctmgr(c, "-i", "add", "coordinator", "Account=chem",
               "Names=" + SECOND))
    ok(acctmgr(c, "-i", "add", "user", me, "Account=chem", user=SECOND))
    ok(acctmgr(c, "-i", "add", "account", "organic", "Parent=chem",
               user=SECOND))
    p = acctmgr(c, "-i", "add", "user", me, "Account=physics", user=SECOND)
    assert p.returncode == 1 and "account physics" in p.stderr, p.stderr
    # and can never raise anyone's level, its own least of all
    p = acctmgr(c, "-i", "modify", "user", "where", "name=" + SECOND, "set",
                "AdminLevel=Administrator", user=SECOND)
    assert p.returncode == 1
    assert "Access/permission denied" in p.stderr, p.stderr
    out = ok(acctmgr(c, "-n", "-P", "show", "user", SECOND,
                     "format=adminlevel"))
    assert out.strip() == "None"
    # unknown keys and entities are named
    p = acctmgr(c, "-i", "add", "user", "x", "Acount=chem")
    assert p.returncode == 1 and "acount=chem" in p.stderr.lower(), p.stderr
    p = acctmgr(c, "-i", "delete", "account", "chem")
    assert p.returncode == 1 and "it has" in p.stderr, p.stderr


def c_name(c):
    with open(c.conf) as f:
        m = re.search(r"^ClusterName=(\S+)", f.read(), re.M)
    return m.group(1) if m else "arbor"


def test_qos(cluster, test_user, second_user):
    c = cluster(1, cpus=2, AccountingStorageEnforce="associations,qos",
                PriorityType="priority/multifactor", PriorityWeightQOS="1000")
    me = test_user.pw_name
    ok(acctmgr(c, "-i", "add", "account", "physics"))
    ok(acctmgr(c, "-i", "add", "user", me, SECOND, "Account=physics"))
    ok(acctmgr(c, "-i", "add", "qos", "high", "Priority=100"))
    ok(acctmgr(c, "-i", "add", "qos", "low", "Priority=10",
               "Preempt=normal", "PreemptMode=requeue", "MaxWall=1-0"))
    rows = ok(acctmgr(c, "-n", "-P", "show", "qos",
                      "format=name,priority,preempt,maxwall")).splitlines()
    assert sorted(rows) == ["high|100||", "low|10|normal|1-00:00:00",
                            "normal|0||"], rows
    # a QOS is changed by operators and administrators only
    p = acctmgr(c, "-i", "modify", "qos", "where", "name=high", "set",
                "Priority=1000", user=me)
    assert p.returncode == 1 and "Access/permission denied" in p.stderr
    # the cores taken, then two pending jobs: QOS orders them
    first = submit(c, "-n", "2")
    assert first.returncode == 0, first.stderr
    low = submit(c, "--qos=low").stdout.split()[-1]
    high = submit(c, "-q", "HIGH").stdout.split()[-1]
    out = ok(c.run(["arbor", "queue", "-h", "-t", "pd", "-o", "%i %q"]))
    assert sorted(out.split("\n")[:-1]) == sorted(
        ["%s low" % low, "%s high" % high]), out
    out = ok(c.run(["arbor", "prio", "-l"]))
    assert " QOS " in out.splitlines()[0], out
    first_job = out.splitlines()[1].split()[0]
    assert first_job == high, out
    # the job's QOS in its environment and in scontrol
    out = ok(c.run(["arbor", "control", "show", "job", high]))
    assert "QOS=high" in out, out
    # one that is none, and under qos one the association may not use
    p = submit(c, "--qos=nosuch")
    assert p.returncode != 0 and "Invalid qos specification" in p.stderr
    ok(acctmgr(c, "-i", "modify", "user", "where", "name=" + SECOND, "set",
               "QOS=normal,low", "DefaultQOS=low"))
    p = submit(c, "--qos=high", user=SECOND)
    assert p.returncode != 0 and "Invalid qos specification" in p.stderr
    p = submit(c, user=SECOND)
    assert p.returncode == 0, p.stderr
    job = p.stdout.split()[-1]
    assert ok(c.run(["arbor", "queue", "-h", "-j", job, "-o",
                     "%q"])).strip() == "low"
    # a QOS in use stays
    p = acctmgr(c, "-i", "delete", "qos", "low")
    assert p.returncode == 1 and "use it" in p.stderr, p.stderr
