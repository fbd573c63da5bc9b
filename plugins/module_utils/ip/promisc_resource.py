# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ip_promisc on the resource engine: one change per interface, its promiscuous flag now
(``ip link set dev IF promisc on|off``) and its boot unit (link_promisc.render_unit, enabled with
``systemctl enable``).

Before anything changes, every interface must exist and, to be made promiscuous, may be so: a
Network Express NETH function needs fidparm 0x01 (link_promisc.promisc_problem). A failed step puts
the flag and the unit file back as they were.
"""

import os

from ansible_collections.s390x.network.plugins.module_utils.engine import drift_text
from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Resource, ResourceError, Change, Step
from ansible_collections.s390x.network.plugins.module_utils.ip import link_promisc as lp

STATES = ("merged", "deleted")
FUNCTION_TYPES = tuple(sorted(lp.NETWORK_EXPRESS.values()))
SYSTEMD_RUNNING = "/run/systemd/system"


class PromiscLinks(Resource):
    kind = "interface"
    drift_kind = "link"
    scopes = ("active", "persistent")
    runner_name = "ip_promisc"
    restores = "previous promiscuous mode and boot unit"

    def __init__(self, module):
        super(PromiscLinks, self).__init__(module)
        self.names = []
        self.files = host_files.FileChanges(module)
        self.left_alone = []
        self.ip = None
        self.systemctl = None

    # -- no host -------------------------------------------------------------------------------
    def validate(self):
        errors = []
        seen = set()
        for index, name in enumerate(self.params["interfaces"]):
            problem = lp.ifname_problem(name)
            if problem:
                errors.append("interfaces[%d]: %s" % (index, problem))
            elif name in seen:
                errors.append("interfaces[%d]: %s is listed twice" % (index, name))
            else:
                seen.add(name)
                self.names.append(name)
        return errors

    # -- host ----------------------------------------------------------------------------------
    def read(self):
        state = {}
        for name in self.names:
            flags = lp.read_flags(name) if lp.exists(name) else None
            state[name] = {
                "exists": lp.exists(name),
                "promisc": lp.is_promisc(flags),
                "function": lp.pci_function(name),
                "unit": host_files.read_text(lp.unit_path(name)),
                "enabled": os.path.lexists(host_files.path(lp.wants_link(name))),
            }
        return state

    def _tool(self, name):
        path = self.module.get_bin_path(name)
        if path is None:
            raise ResourceError("%s was not found on the host; ip_promisc needs it" % name)
        return path

    def plan(self, current):
        merged = self.params["state"] == "merged"
        types = self.params["function_types"]
        errors, changes = [], []
        for index, name in enumerate(self.names):
            info = current[name]
            where = "interfaces[%d]" % index
            if types and lp.network_express_type(info["function"]) not in types:
                self.left_alone.append(name)
                continue
            if not info["exists"] and merged:
                errors.append("%s: network interface %s does not exist on this host" % (where, name))
                continue
            if merged:
                problem = lp.promisc_problem(name, info["function"])
                if problem:
                    errors.append("%s: %s" % (where, problem))
                    continue
            changes.append(self._change(name, info, merged))
        if errors:
            raise ResourceError("; ".join(errors), errors=errors)
        return changes

    def _change(self, name, info, on):
        try:
            unit = lp.render_unit(name) if on else None
        except unit_syntax.UnitSyntaxError as exc:
            raise ResourceError("%s: the boot unit cannot hold the name: %s" % (name, exc))
        steps = []
        if info["exists"] and info["promisc"] != on:
            self.ip = self.ip or self._tool(lp.IP)
            steps.append(Step(argv=lp.argv_promisc(name, on, self.ip), scope="active", subject=name))
        unit_differs = unit != info["unit"]
        if unit_differs or info["enabled"] != on:
            self.systemctl = self.systemctl or self._tool("systemctl")
        if not on and info["enabled"]:
            steps.append(Step(argv=[self.systemctl, "disable", lp.unit_name(name)], scope="persistent", subject=name))
        if unit_differs:
            path = lp.unit_path(name)
            steps.append(
                Step(
                    action=lambda: self.files.write(path, unit),
                    text=host_files.change_text(path, unit),
                    scope="persistent",
                    kind="file",
                    subject=name,
                )
            )
            if self._systemd_running():
                steps.append(Step(argv=[self.systemctl, "daemon-reload"], scope="persistent", subject=name))
        if on and not info["enabled"]:
            steps.append(Step(argv=[self.systemctl, "enable", lp.unit_name(name)], scope="persistent", subject=name))
        want = dict(info, promisc=on if info["exists"] else None, unit=unit, enabled=on)
        return Change(name, steps, want=want, label=name)

    @staticmethod
    def _systemd_running():
        """Without systemd as init (a container, an image being built) ``daemon-reload`` fails while
        ``enable`` works on the files alone."""
        return os.path.isdir(host_files.path(SYSTEMD_RUNNING))

    def rollback(self, before, now, change, ran):
        old, name = before[change.subject], change.subject
        steps = []
        for step in ran:
            if step.kind == "file":
                path = lp.unit_path(name)
                steps.append(
                    Step(
                        action=lambda: self.files.restore(path),
                        text=self.files.restore_text(path),
                        kind="rollback",
                        scope="persistent",
                        subject=name,
                    )
                )
            elif step.argv is not None and step.argv[1:3] == ["link", "set"] and step is not ran[-1]:
                steps.append(Step(argv=lp.argv_promisc(name, old["promisc"], self.ip), kind="rollback", scope="active"))
            elif step.argv is not None and step.argv[1] in ("enable", "disable") and step is not ran[-1]:
                verb = "enable" if old["enabled"] else "disable"
                steps.append(Step(argv=[self.systemctl, verb, lp.unit_name(name)], kind="rollback", scope="persistent"))
        steps.reverse()
        if any(step.argv is not None and step.argv[1:] == ["daemon-reload"] for step in ran):
            # systemd read the unit this run wrote: read the directory again
            steps.append(Step(argv=[self.systemctl, "daemon-reload"], kind="rollback", scope="persistent"))
        return steps

    # -- results -------------------------------------------------------------------------------
    def predict(self, current, changes):
        predicted = dict(current)
        for change in changes:
            predicted[change.subject] = change.want
        return predicted

    def view(self, state, change):
        info = state[change.subject]
        active = {"promisc": info["promisc"]} if info["exists"] else None
        persistent = None
        if info["unit"] is not None or info["enabled"]:
            persistent = {
                "unit": None if info["unit"] is None else drift_text.Content(info["unit"]),
                "enabled": info["enabled"],
            }
        return {"active": active, "persistent": persistent}

    def extras(self, state, changes, failed=False):
        functions = {}
        for name in self.names:
            function = state[name]["function"]
            if function is not None:
                functions[name] = dict(function, fidparm_text=lp.fidparm_text(function))
        return {"left_alone": list(self.left_alone), "functions": functions}
