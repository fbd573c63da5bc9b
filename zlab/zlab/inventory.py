# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""`zlab inventory`: an Ansible inventory of a running lab.

It keeps the source inventory's groups and variables (so playbooks see ``cpc`` and every host
var) for the hosts the lab emulates, and adds the connection variables. Hosts of the source
inventory that the lab does not emulate are left out; guests that the source inventory does not
list are added to group ``kvm_guests``.
"""

import yaml

# the keepalive ends a session whose host vanished (zlab fault HOST link off) in ~15 s
SSH_ARGS = (
    "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "
    "-o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=3"
)


def connection_vars(lab, hname):
    out = {
        "ansible_host": lab.hosts[hname]["ip"],
        "ansible_user": "root",
        "ansible_port": 22,
        "ansible_ssh_private_key_file": lab.key_file(),
        "ansible_python_interpreter": "/usr/bin/python3",
        "ansible_ssh_common_args": SSH_ARGS,
        "zlab_lab": lab.name,
        "zlab_role": lab.hosts[hname]["role"],
        "zlab_partition": lab.hosts[hname]["partition"],
    }
    if lab.hosts[hname].get("python"):
        # the distribution's own Python (zlab_python): Ansible's interpreter discovery finds it
        del out["ansible_python_interpreter"]
    return out


def build(lab):
    """Inventory as a dict in Ansible's YAML inventory layout."""
    groups = lab.data.get("groups") or {}
    own = lab.data.get("own_hostvars") or {}
    ours = set(lab.hosts)
    all_hosts = {}
    for h in lab.hosts:
        v = dict(own.get(h) or {})
        v.update(connection_vars(lab, h))
        all_hosts[h] = v
    out = {"all": {"hosts": all_hosts, "vars": dict(groups.get("all", {}).get("vars") or {}), "children": {}}}
    listed = set()

    def group_entry(name):
        g = groups.get(name, {})
        entry = {}
        hosts = [h for h in g.get("hosts", []) if h in ours]
        listed.update(hosts)
        if hosts:
            entry["hosts"] = {h: None for h in hosts}
        if g.get("vars"):
            entry["vars"] = dict(g["vars"])
        kids = {}
        for c in g.get("children", []):
            if c in groups:
                kids[c] = group_entry(c)
        if kids:
            entry["children"] = kids
        return entry

    for c in groups.get("all", {}).get("children", []):
        if c == "ungrouped":
            continue
        out["all"]["children"][c] = group_entry(c)
    # emulated guests the source inventory does not list
    missing = [h for h in lab.hosts if lab.hosts[h]["role"] == "guest" and h not in listed]
    if missing:
        kg = out["all"]["children"].setdefault("kvm_guests", {})
        kg.setdefault("hosts", {}).update({h: None for h in missing})
    # a group of every emulated host, by role
    out["all"]["children"]["zlab"] = {"hosts": {h: None for h in lab.hosts}}
    if not out["all"]["vars"]:
        del out["all"]["vars"]
    return out


def to_yaml(lab):
    return "# zlab lab %s (%s)\n" % (lab.name, lab.data.get("inventory")) + yaml.safe_dump(
        build(lab), default_flow_style=False, sort_keys=False, width=100
    )


def _ini_value(v):
    if isinstance(v, str) and (" " in v or "=" in v or not v):
        return "'%s'" % v.replace("'", "\\'")
    return str(v)


def to_ini(lab):
    """INI form: connection variables and group membership only (INI cannot carry ``cpc``)."""
    lines = ["# zlab lab %s: connection variables only; use the YAML form for the CPC vars" % lab.name, "[all]"]
    for h in lab.hosts:
        cv = connection_vars(lab, h)
        lines.append(h + " " + " ".join("%s=%s" % (k, _ini_value(v)) for k, v in cv.items()))
    inv = build(lab)

    def walk(name, entry):
        lines.append("")
        lines.append("[%s]" % name)
        for h in entry.get("hosts") or {}:
            lines.append(h)
        if entry.get("children"):
            lines.append("")
            lines.append("[%s:children]" % name)
            for c in entry["children"]:
                lines.append(c)
            for c, ce in entry["children"].items():
                walk(c, ce)

    for name, entry in inv["all"]["children"].items():
        walk(name, entry)
    return "\n".join(lines) + "\n"
