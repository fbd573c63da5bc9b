# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""libvirt_device on the resource engine: each device operation (attach, detach, update, replace)
on one domain is a change of one step, run through the libvirt API.

libvirt applies a device call to the definition and the running domain together or not at all, so
a failed call changes nothing; only a replace (detach, then attach) can stop half way, and its
rollback attaches the old device again.
"""

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.s390x.network.plugins.module_utils.libvirt import conn as libvirt_conn
from ansible_collections.s390x.network.plugins.module_utils.libvirt import host as libvirt_host
from ansible_collections.s390x.network.plugins.module_utils.libvirt import xml as lx
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step

# the resource-module states and the names of earlier releases, which stay as aliases
STATE_ALIASES = {"present": "merged", "exact": "overridden", "absent": "deleted"}
PLAN_STATES = {"merged": "present", "overridden": "exact", "deleted": "absent"}
STATES = ("merged", "overridden", "deleted", "gathered", "rendered") + tuple(STATE_ALIASES)


def merge_live(config_ops, live_ops, live_mode):
    """Decide per operation whether it affects the definition, the running domain or both.

    ``live_ops`` is the plan against the running domain (empty when it is not running or live is
    false). An operation goes live when the running domain needs the same one; with live=true the
    running domain's own differences are corrected too.
    """
    steps = []
    live_by_key = {}
    for op in live_ops:
        live_by_key[(op["action"], op["key"])] = op
    for op in config_ops:
        twin = live_by_key.pop((op["action"], op["key"]), None)
        steps.append((op, True, twin is not None))
    if live_mode == "true":
        for op in live_ops:
            if (op["action"], op["key"]) in live_by_key:
                steps.append((op, False, True))
    return steps


def _calls(op, combined=False):
    """(call, device XML) pairs of one operation; ``combined``: one call for definition and running
    domain, with XML that does not pin the guest address (see libvirt_xml.portable)."""
    convert = lx.portable if combined else lx.strip_live_only
    if op["action"] == "replace":
        return [("detach", lx.to_text(convert(op["current"]))), ("attach", lx.to_text(convert(op["element"])))]
    return [(op["action"], lx.to_text(convert(op["element"])))]


def apply_step(dom, op, config, live, live_mode, warnings, live_pending):
    """Run the libvirt calls of one operation; returns (config_done, live_done)."""
    try:
        for call, xml in _calls(op, combined=config and live):
            getattr(dom, call)(xml, config=config, live=live)
        return config, live
    except libvirt_conn.LibvirtCallError as exc:
        if not (live and config and live_mode == "auto"):
            raise
        text = "%s %s" % (op["action"], lx.key_text(op["key"]))
        warnings.append(
            "%s: the running domain could not be changed (%s); changed the definition only, "
            "effective at the next guest start" % (text, exc.libvirt_message)
        )
        live_pending.append(text)
    # a failed call changes nothing (libvirt applies definition and running domain together or not
    # at all): change the definition only, with its own guest address
    calls = _calls(op)
    if op["action"] == "replace":
        # the combined detach may have succeeded before the combined attach failed
        if lx.find_device(lx.parse_domain(dom.xml(inactive=True)), op["key"]) is None:
            calls = calls[1:]
    for call, xml in calls:
        getattr(dom, call)(xml, config=True, live=False)
    return True, False


def desired_devices(root, hostdevs, interfaces, state):
    """The desired devices as returned in ``devices`` (with the MAC a matched interface has), and
    their device elements (None for state deleted)."""
    views = []
    if state == "deleted":
        for spec in hostdevs:
            views.append({"kind": lx.HOSTDEV, "fid": spec["fid"]})
        for spec in interfaces:
            views.append({"kind": lx.INTERFACE, "source": spec["source"], "mac": spec["mac"]})
        return views, None
    elements = []
    pairs, dummy, dummy2 = lx.match_devices(root, hostdevs, interfaces)
    for spec, element, desc in pairs:
        complete = dict(spec)
        if spec["kind"] == lx.INTERFACE and not spec["mac"] and desc is not None:
            complete["mac"] = desc["mac"]
        view = lx.public_view(complete)
        built = lx.build_device(complete)
        view["xml"] = lx.to_text(built)
        views.append(view)
        elements.append(built)
    return views, elements


def _where(config, live):
    if config and live:
        return "definition and running domain"
    return "definition" if config else "running domain"


class DomainDevices(Resource):
    kind = "domain"
    drift_kind = "guest"
    scopes = ("active", "persistent")
    runner_name = "libvirt_device"
    restores = "old device"
    step_errors = (libvirt_conn.LibvirtCallError, lx.DomainXMLError, IOError, OSError)

    def __init__(self, module):
        super(DomainDevices, self).__init__(module)
        self.state = STATE_ALIASES.get(self.params["state"], self.params["state"])
        self.name = self.params["domain"]
        self.hostdevs = []
        self.interfaces = []
        self.hypervisor = None
        self.dom = None
        self.standby = []
        self.planned = []
        self.live_pending = []
        self.done = 0
        self.before_xml = None

    def _error(self, msg, **extra):
        return ResourceError(msg, changed_devices=[], devices=[], live_pending=[], **extra)

    # -- no host -------------------------------------------------------------------------------
    def validate(self):
        errors = []
        name_problem = lx.domain_name_problem(self.name)
        if name_problem:
            errors.append("domain: " + name_problem)
        uri_problem = lx.uri_problem(self.params["uri"])
        if uri_problem:
            errors.append("uri: " + uri_problem)
        plan_state = PLAN_STATES.get(self.state, "present")
        for attr, parse in (("hostdevs", lx.hostdevs_from_params), ("interfaces", lx.interfaces_from_params)):
            try:
                setattr(self, attr, parse(self.params[attr], plan_state))
            except lx.DeviceSpecError as exc:
                errors.append(str(exc))
        if self.state == "rendered":
            errors.extend(
                "%s.address: the host PCI address of fid 0x%x is not known (give it for state rendered)"
                % (spec["param"], spec["fid"])
                for spec in self.hostdevs
                if spec["address"] is None
            )
        return errors

    def render(self):
        """The device XML for the listed devices (validate() checked that hostdevs have their host
        ``address``)."""
        return [
            dict(lx.public_view(spec), xml=lx.to_text(lx.build_device(spec)))
            for spec in self.hostdevs + self.interfaces
        ]

    # -- host ----------------------------------------------------------------------------------
    def _check_host(self):
        errors, warnings = [], []
        if self.state in ("merged", "overridden"):
            for spec in self.hostdevs:
                address, errs, warns = libvirt_host.check_hostdev(spec, state_is_error=not self.module.check_mode)
                errors.extend(errs)
                warnings.extend(warns)
                if spec["address"] is None:
                    spec["address"] = address
                    if address is None:
                        self.standby.append(spec)
            for spec in self.interfaces:
                errs, warns = libvirt_host.check_macvtap_source(spec, offline_is_error=not self.module.check_mode)
                errors.extend(errs)
                warnings.extend(warns)
        if errors:
            raise self._error("; ".join(errors), errors=errors)
        for warning in warnings:
            self.module.warn(warning)

    def _connect(self):
        if not libvirt_conn.HAS_LIBVIRT:
            raise self._error(
                missing_required_lib(libvirt_conn.LIBVIRT_PACKAGES), exception=libvirt_conn.LIBVIRT_IMPORT_ERROR
            )
        self.hypervisor = libvirt_conn.Hypervisor(self.params["uri"])
        domains = self.hypervisor.domains()
        for candidate in domains:
            if candidate.name == self.name:
                self.dom = candidate
        if self.dom is None:
            names = sorted(d.name for d in domains)
            raise self._error(
                "domain: %s is not defined on %s; defined domains: %s"
                % (self.name, self.params["uri"], ", ".join(names) or "none"),
                domains=names,
            )
        if not self.dom.is_persistent():
            raise self._error(
                "domain: %s is transient (not defined); this module changes persistent definitions only" % self.name
            )
        self.others = [d for d in domains if d.name != self.name]

    def read(self):
        try:
            if self.dom is None:
                if self.state != "gathered":
                    self._check_host()
                self._connect()
            active = self.dom.is_active()
            config = lx.parse_domain(self.dom.xml(inactive=True))
            live = lx.parse_domain(self.dom.xml(inactive=False)) if active else None
        except (lx.DomainXMLError, libvirt_conn.LibvirtCallError) as exc:
            raise self._error(str(exc))
        if self.before_xml is None:
            self.before_xml = lx.to_text(config)
        return {"config": config, "live": live, "active": active}

    def gather(self, current):
        return [lx.public_view(desc) for dummy, desc in lx.managed_devices(current["config"])]

    def plan(self, current):
        try:
            return self._plan(current)
        except (lx.DeviceSpecError, lx.DomainXMLError, libvirt_conn.LibvirtCallError) as exc:
            raise self._error(str(exc))

    def _plan(self, current):
        plan_state = PLAN_STATES[self.state]
        config_root = current["config"]
        # check mode, FID in standby: predict with the address the domain already has for it; a
        # hostdev the domain does not have yet is an attach whose XML is known only once the FID is
        # configured (its host address comes with the PCI function)
        pending = []
        for spec in self.standby:
            spec["address"] = lx.hostdev_address(config_root, spec["fid"])
            if spec["address"] is None:
                pending.append(spec)
                self.module.warn(
                    "%s.fid: FID %s is in standby; the hostdev is attached once it is configured "
                    "(its XML is not shown in check mode)" % (spec["param"], lx.format_fid(spec["fid"]))
                )
        self.planned = [spec for spec in self.hostdevs if not any(spec is waiting for waiting in pending)]
        config_ops = lx.plan(config_root, self.planned, self.interfaces, plan_state)
        live_ops = []
        if current["active"] and self.params["live"] != "false":
            live_ops = lx.plan(current["live"], self.planned, self.interfaces, plan_state)
        errors = []
        if plan_state != "absent" and self.hostdevs:
            others = [(d.name, lx.parse_domain(d.xml(inactive=True))) for d in self.others]
            errors.extend(lx.foreign_owners(self.hostdevs, others))
        predicted = lx.simulate(config_root, config_ops)
        known = set(lx.check_unique(config_root, self.name))
        errors.extend(e for e in lx.check_unique(predicted, self.name) if e not in known)
        if errors:
            raise self._error("; ".join(errors), errors=errors)

        changes = []
        for op, config, live in merge_live(config_ops, live_ops, self.params["live"]):
            entry = {
                "action": op["action"],
                "device": op["device"],
                "fields": op["fields"],
                "config": config,
                "live": live,
                "xml": op["xml"],
            }
            step = Step(
                action=self._applier(op, entry),
                scope="both" if config and live else ("persistent" if config else "active"),
                text="%s %s in %s (%s)" % (op["action"], lx.key_text(op["key"]), self.name, _where(config, live)),
            )
            change = Change(op["key"], [step], want=entry, label="%s %s" % (self.name, lx.key_text(op["key"])))
            change.op = op
            changes.append(change)
        for spec in pending:
            device = {
                "kind": lx.HOSTDEV,
                "fid": spec["fid"],
                "uid": spec["uid"],
                "address": None,
                "managed": spec["managed"],
            }
            entry = {"action": "attach", "fields": [], "config": True, "live": False, "xml": None, "device": device}
            key = (lx.HOSTDEV, spec["fid"])
            # only in check mode: a real run fails earlier on a FID in standby
            step = Step(
                action=self._unreachable,
                scope="persistent",
                text="attach %s in %s once it is configured (definition)" % (lx.key_text(key), self.name),
            )
            change = Change(key, [step], want=entry, label="%s %s" % (self.name, lx.key_text(key)))
            change.op = None
            changes.append(change)
        return changes

    def _applier(self, op, entry):
        def act():
            warnings = []
            try:
                entry["config"], entry["live"] = apply_step(
                    self.dom, op, entry["config"], entry["live"], self.params["live"], warnings, self.live_pending
                )
            finally:
                for warning in warnings:
                    self.module.warn(warning)

        return act

    @staticmethod
    def _unreachable():
        raise OSError("the FID is in standby")

    def run_step(self, step):
        rc, out, err = super(DomainDevices, self).run_step(step)
        if rc == 0 and step.kind != "rollback":
            self.done += 1
        return rc, out, err

    def rollback(self, before, now, change, ran):
        """A replace whose detach went through and whose attach did not: attach the old device again."""
        op = change.op
        if op is None or op["action"] != "replace":
            return []
        if lx.find_device(now["config"], op["key"]) is not None:
            return []
        xml = lx.to_text(lx.strip_live_only(op["current"]))
        return [
            Step(
                action=lambda: self.dom.attach(xml, config=True, live=False),
                kind="rollback",
                scope="persistent",
                text="attach %s in %s (definition)" % (lx.key_text(op["key"]), self.name),
            )
        ]

    def failure_message(self, change, step, rc, out, err):
        if step.kind == "rollback":
            return "%s: putting the old device back failed: %s" % (change.label, err)
        return "%s (changes made before the failure: %d)" % (err, self.done)

    # -- results -------------------------------------------------------------------------------
    def predict(self, current, changes):
        config_ops = [c.op for c in changes if c.op is not None and c.want["config"]]
        live_ops = [c.op for c in changes if c.op is not None and c.want["live"]]
        live = lx.simulate(current["live"], live_ops) if current["live"] is not None else None
        return {"config": lx.simulate(current["config"], config_ops), "live": live, "active": current["active"]}

    def view(self, state, change):
        def find(root):
            desc = lx.find_device(root, change.subject) if root is not None else None
            return lx.public_view(desc) if desc is not None else None

        return {"persistent": find(state["config"]), "active": find(state["live"])}

    def views(self, state, changes):
        return [lx.public_view(desc) for dummy, desc in lx.managed_devices(state["config"])]

    def drift(self, before, after, change):
        if change.op is None:  # a hostdev whose FID is in standby: attached once it is configured
            return [(change.label, "persistent", "missing")]
        return super(DomainDevices, self).drift(before, after, change)

    def diff(self, before_state, after_state, changes):
        return {
            "prepared": lx.unified_diff(self.before_xml, lx.to_text(after_state["config"]), "domain %s" % self.name)
        }

    def extras(self, state, changes, failed=False):
        entries = [c.want for c in changes]
        views, elements = desired_devices(state["config"], self.planned, self.interfaces, self.state)
        return {
            "changed_devices": entries[: self.done] if failed else entries,
            "devices": views,
            "devices_xml": None if elements is None else lx.devices_document(elements),
            "live_pending": list(self.live_pending),
            "domain_active": state["active"],
            "before_xml": self.before_xml,
            "after_xml": lx.to_text(state["config"]),
        }

    def close(self):
        if self.hypervisor is not None:
            self.hypervisor.close()
