# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_services on the resource engine: each service's drop-in
``/etc/systemd/system/UNIT.d/DROPIN_NAME`` is one object (scope persistent: systemd reads it when
the unit starts). The texts and every name come from ``services.smc_services_plan`` (fullmatch of
the unit-name and file-name grammars, ``Environment=`` quoting); the drop-ins on the host are found
by listing ``/etc/systemd/system`` for ``*.d/DROPIN_NAME``, never by a pattern built from input.

After the files, one ``systemd`` change reloads the manager and, with ``restart``, restarts the
changed services that are running, so that they run with the new environment. Both only where
systemd runs (``/run/systemd/system`` exists, as sd_booted(3) decides): in an image being built or
a container the files are all there is.

The preload library: a drop-in sets ``LD_PRELOAD=libsmc-preload.so`` (smc-tools); where the
dynamic linker cannot find it, the service starts with TCP and a warning from ld.so on every start.
The module looks for it in the linker's cache (``ldconfig -p``) and the default directories, and
warns (or fails, ``missing_preload: fail``) naming the library and the package before it writes.
"""

import errno
import os

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step
from ansible_collections.s390x.network.plugins.module_utils.smc import services as plan_mod

STATES = ("merged", "overridden", "deleted", "gathered")
SYSTEMD = "systemd"
BOOTED_MARK = "/run/systemd/system"
LIB_NAME = plan_mod.PRELOAD[1]
#: where ld.so looks when the cache does not name a library (ld.so(8)), and the multiarch dirs
LIB_DIRS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib64", "/usr/local/lib")
C_LOCALE = {"LC_ALL": "C"}
SIZE_VARIABLES = (("rmem", "SMC_RCVBUF"), ("wmem", "SMC_SNDBUF"))


def environment_of(text):
    """``{NAME: value}`` of the ``Environment=`` lines of a drop-in's ``text``, and whether the
    text has lines that this module does not write (``(env, foreign)``)."""
    env, foreign = {}, False
    for line in (text or "").split("\n"):
        if line.startswith("Environment="):
            try:
                env.update(unit_syntax.parse_environment_line(line))
            except unit_syntax.UnitSyntaxError:
                foreign = True
        elif line.strip() and not line.startswith("#") and line.strip() != "[Service]":
            foreign = True
    return env, foreign


def find_dropins(dropin_name):
    """Host paths ``/etc/systemd/system/UNIT.d/DROPIN_NAME`` that exist, for every valid unit name
    (``services.stale_dropins`` picks among them). Raises OSError."""
    base = host_files.path(plan_mod.UNIT_DIR)
    try:
        entries = sorted(os.listdir(base))
    except (IOError, OSError) as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return []
        raise
    found = []
    for entry in entries:
        if entry.endswith(".d") and os.path.lexists(os.path.join(base, entry, dropin_name)):
            found.append("%s/%s/%s" % (plan_mod.UNIT_DIR, entry, dropin_name))
    return found


def preload_found(ldconfig_out):
    """Whether ld.so finds ``libsmc-preload.so``: named in ``ldconfig -p``'s output, or in a
    default or multiarch library directory of the host."""
    for line in (ldconfig_out or "").split("\n"):
        if line.strip().startswith(LIB_NAME + " ") or line.strip() == LIB_NAME:
            return True
    dirs = list(LIB_DIRS)
    for parent in ("/lib", "/usr/lib"):
        try:
            dirs += ["%s/%s" % (parent, d) for d in os.listdir(host_files.path(parent)) if d.endswith("-linux-gnu")]
        except (IOError, OSError):
            pass
    return any(os.path.lexists(host_files.path("%s/%s" % (d, LIB_NAME))) for d in dirs)


class SmcServices(Resource):
    kind = "smc drop-in"
    drift_kind = "dropin"
    scopes = ("persistent",)
    runner_name = "smc_services"
    restores = "previous drop-ins"

    def __init__(self, module):
        super(SmcServices, self).__init__(module)
        self.files = host_files.FileChanges(module)
        self.plan_data = None
        self.restarted = []

    # -- no host -------------------------------------------------------------------------------
    def validate(self):
        params = self.params
        config = [] if params["state"] == "gathered" else params["config"]
        self.plan_data = plan_mod.smc_services_plan(
            config, dropin_name=params["dropin_name"], field="config", name_field="dropin_name"
        )
        errors = list(self.plan_data["errors"])
        names = self.plan_data["names"]
        for name in sorted(set(n for n in names if names.count(n) > 1)):
            errors.append("config: %s is listed twice" % name)
        return errors

    # -- host ----------------------------------------------------------------------------------
    def read(self):
        name = self.plan_data["dropin_name"]
        try:
            found = find_dropins(name)
            texts = dict((p, host_files.read_text(p)) for p in found)
            for service in self.plan_data["services"]:
                if service["path"] not in texts:
                    texts[service["path"]] = host_files.read_text(service["path"])
        except (IOError, OSError) as exc:
            raise ResourceError("cannot read the drop-ins %s: %s" % (name, exc))
        return {"found": found, "texts": texts, "booted": os.path.isdir(host_files.path(BOOTED_MARK))}

    def gather(self, current):
        config = []
        for path in current["found"]:
            unit = os.path.basename(os.path.dirname(path))[: -len(".d")]
            env, dummy = environment_of(current["texts"].get(path))
            entry = {"name": unit}
            for key, variable in SIZE_VARIABLES:
                if variable in env:
                    entry[key] = env[variable]
            config.append(entry)
        return config

    def _wanted(self, current):
        """``{path: text or None}`` for every drop-in the state decides about."""
        state, plan = self.params["state"], self.plan_data
        wanted = {}
        if state in ("merged", "overridden"):
            for service in plan["services"]:
                wanted[service["path"]] = service["dropin"]
        if state == "overridden":
            for item in plan_mod.stale_dropins(current["found"], plan["dropin_name"], plan["names"]):
                wanted[item["path"]] = None
        if state == "deleted":
            listed = set(s["path"] for s in plan["services"])
            for path in current["found"]:
                if not listed or path in listed:
                    wanted[path] = None
        return wanted

    def plan(self, current):
        changes = []
        for path, text in sorted(self._wanted(current).items()):
            old = current["texts"].get(path)
            if old == text:
                continue
            steps = [
                Step(
                    action=lambda p=path, t=text: self.files.write(p, t),
                    text=host_files.change_text(path, text),
                    scope="persistent",
                    kind="write" if text is not None else "remove",
                )
            ]
            changes.append(Change(path, steps, want=text))
        if changes and current["booted"]:
            changes.append(Change(SYSTEMD, self._systemd_steps(changes), label=SYSTEMD))
        return changes

    def _systemd_steps(self, changes):
        systemctl = self.module.get_bin_path("systemctl", required=False)
        if not systemctl:
            return []
        steps = [Step(argv=[systemctl, "daemon-reload"], kind="reload")]
        if self.params["restart"]:
            for change in changes:
                unit = os.path.basename(os.path.dirname(change.subject))[: -len(".d")]
                rc, dummy, dummy = self.module.run_command(
                    [systemctl, "is-active", "--quiet", unit], environ_update=C_LOCALE
                )
                if rc == 0:
                    self.restarted.append(unit)
                    steps.append(Step(argv=[systemctl, "restart", unit], kind="restart"))
        return steps

    def guard(self, current, changes):
        writes = [c for c in changes if c.subject != SYSTEMD and c.want is not None]
        if not writes or self.params["missing_preload"] == "ignore":
            return
        ldconfig = self.module.get_bin_path("ldconfig", opt_dirs=["/sbin", "/usr/sbin"])
        out = self.module.run_command([ldconfig, "-p"], environ_update=C_LOCALE)[1] if ldconfig else ""
        if preload_found(out):
            return
        msg = (
            "%s (smc-tools) is not on this host: a service started with these drop-ins runs with TCP; "
            "install smc-tools (package smc-tools) or set the application up for SMC otherwise" % LIB_NAME
        )
        if self.params["missing_preload"] == "fail":
            raise ResourceError(msg)
        self.module.warn(msg)

    def predict(self, current, changes):
        texts = dict(current["texts"])
        for change in changes:
            if change.subject != SYSTEMD:
                texts[change.subject] = change.want
        found = sorted(p for p, t in texts.items() if t is not None)
        return dict(current, texts=texts, found=found)

    def view(self, state, change):
        if change.subject == SYSTEMD:
            return {"persistent": None}
        text = state["texts"].get(change.subject)
        if text is None:
            return {"persistent": None}
        env, foreign = environment_of(text)
        view = dict(env)
        view["other lines"] = "yes" if foreign else "no"
        return {"persistent": view}

    def drift(self, before, after, change):
        if change.subject == SYSTEMD:
            return []
        return super(SmcServices, self).drift(before, after, change)

    def diff_text(self, state, changes):
        return super(SmcServices, self).diff_text(state, [c for c in changes if c.subject != SYSTEMD])

    def views(self, state, changes):
        return [dict(path=p, text=state["texts"].get(p)) for p in state["found"]]

    def extras(self, state, changes, failed=False):
        return {"restarted": list(self.restarted), "services": self.plan_data["names"]}

    def rollback(self, before, now, change, ran):
        if change.subject == SYSTEMD:
            steps = []
            for path in self.files.changed:
                steps.append(
                    Step(
                        action=lambda p=path: self.files.restore(p), text=self.files.restore_text(path), kind="rollback"
                    )
                )
            return steps + [s for s in change.steps if s.kind == "reload"]
        if change.subject in self.files.changed:
            return [
                Step(
                    action=lambda: self.files.restore(change.subject),
                    text=self.files.restore_text(change.subject),
                    kind="rollback",
                )
            ]
        return []
