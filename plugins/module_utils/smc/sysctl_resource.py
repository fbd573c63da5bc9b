# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_sysctl on the resource engine: the SMC buffer sysctls of a host are one object.

Its steps run live values first, then the boot files: a value the kernel refuses (EINVAL) stops
the run before it reaches the file every boot applies. A failure on the way puts back every live
value and file already written (all of them, not just up to the first that cannot be put back):
the live configuration ends old or new, never mixed. The files are host files
(``host_files.FileChanges``: the rollback puts back what the run replaced); ``smc`` is loaded when
``/proc/sys/net/smc`` or ``/sys/module/smc`` exists.
"""

import errno
import os

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.smc import kernel_support
from ansible_collections.s390x.network.plugins.module_utils.smc import sysctl_file as sfile
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step
from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import (
    INT_MAX,
    METHOD_NET_SMC,
    METHOD_TCP,
    SMC_SYSCTL_PREFIX,
    SMC_SYSCTLS,
    TCP_KEYS,
    SizingError,
    buffer_size,
    current_effective,
    decide_method,
    parse_kernel_release,
    parse_size,
    plan_buffers,
    tcp_default_for,
    tcp_min_above_default,
    tcp_triplet_basis,
    tcp_value,
    validate_setting,
)

SYS_MODULE_SMC = "/sys/module/smc"
SYSCTL_DIR = "/etc/sysctl.d"
MODULE_NAME = "smc"
CORE_KEYS = {"core_rmem_max": "net.core.rmem_max", "core_wmem_max": "net.core.wmem_max"}
SYSCTLS = "smc sysctls"
# the resource-module states and the names of earlier releases, which stay as aliases
STATE_ALIASES = {"present": "merged", "absent": "deleted"}
STATES = ("merged", "deleted") + tuple(STATE_ALIASES)


# smc-tools commands whose absence smc_tools_missing reports (the smc role installs smc-tools then)
SMC_TOOLS = ("smcd", "smc_pnet")


def smc_loaded():
    return any(os.path.isdir(host_files.path(p)) for p in (sfile.proc_path("net.smc"), SYS_MODULE_SMC))


def _known_keys(file_keys):
    keys = set(TCP_KEYS.values()) | set(CORE_KEYS.values()) | set(file_keys)
    keys.update(SMC_SYSCTL_PREFIX + short for short in SMC_SYSCTLS)
    return sorted(keys)


class SmcSysctls(Resource):
    kind = "sysctl"
    drift_kind = "sysctl"
    scopes = ("active", "persistent")
    runner_name = "smc_sysctl"
    restores = "live values and files"
    rollback_continues = True

    def __init__(self, module):
        super(SmcSysctls, self).__init__(module)
        self.state = STATE_ALIASES.get(self.params["state"], self.params["state"])
        self.release = None
        self.kernel = None
        self.settings = {}
        self.would_load = False
        self.support = None  # kernel_support.probe: what the host shows about SMC
        self.method = None
        self.method_source = None
        self.smcr_buf_type = 0
        self.buffers = None
        self.desired = {}
        self.managed = []
        self.applied = []
        self.missing = []
        self.absent = []  # settings keys the loaded smc does not have: neither applied nor written
        self.restored = []
        self.not_restored = []
        self.files = host_files.FileChanges(module)
        self.paths = {}  # option -> host path, once validate() accepted the name

    # -- no host -------------------------------------------------------------------------------
    def validate(self):
        """Every check of the parameters; the kernel release is read with the host (prepare)."""
        params = self.params
        errors = []
        spelled = {}  # full key -> the settings key that named it
        for key, value in sorted((params["settings"] or {}).items(), key=lambda item: str(item[0])):
            try:
                short, number = validate_setting(key, value)
            except SizingError as exc:
                errors.append(str(exc))
                continue
            full = SMC_SYSCTL_PREFIX + short
            if short in ("rmem", "wmem"):
                errors.append("settings.%s: use the %s option for the SMC buffer size" % (key, short))
            elif full in spelled:
                errors.append(
                    "settings.%s: names the same sysctl %s as settings.%s; give it once" % (key, full, spelled[full])
                )
            else:
                spelled[full] = key
                self.settings[full] = number if isinstance(number, str) else str(number)
        for option, key in sorted(CORE_KEYS.items()):
            if params[option] is not None:
                try:
                    number = parse_size(params[option], option)
                except SizingError as exc:
                    errors.append(str(exc))
                    continue
                if not 1 <= number <= INT_MAX:
                    errors.append("%s: must be between 1 and %d bytes, got %d" % (option, INT_MAX, number))
                    continue
                self.settings[key] = str(number)
        for name in ("rmem", "wmem"):
            errors.extend(self._check_buffer(name))
        errors.extend(self._check_files())
        return errors

    def _check_buffer(self, name):
        """Errors of ``name`` (rmem, wmem) and its TCP minimum and maximum."""
        params, errors, values = self.params, [], {}
        for option in (name, "tcp_%s_min" % name, "tcp_%s_max" % name):
            if params[option] is None:
                continue
            try:
                values[option] = (buffer_size if option == name else tcp_value)(params[option], option)
            except SizingError as exc:
                errors.append(str(exc))
        size, low, high = (values.get(o) for o in (name, "tcp_%s_min" % name, "tcp_%s_max" % name))
        for option in ("tcp_%s_min" % name, "tcp_%s_max" % name):
            if params[option] is None:
                continue
            if params[name] is None:
                errors.append(
                    "%s: used only with %s (a limit of the %s that %s sets on kernels without net.smc.%s); give %s "
                    "or leave %s out" % (option, name, TCP_KEYS[name], name, name, name, option)
                )
            elif params["method"] == METHOD_NET_SMC:
                errors.append("%s: used only with method tcp or auto, not %s" % (option, METHOD_NET_SMC))
        if low is not None and high is not None and low > high:
            errors.append("tcp_%s_min: %d is above tcp_%s_max %d" % (name, low, name, high))
        if low is not None and size is not None and low > tcp_default_for(size):
            errors.append(tcp_min_above_default(name, low, size))
        return errors

    def _check_files(self):
        """``file`` and ``modules_load_file`` are names of files in the fixed directories
        (``SYSCTL_DIR``, ``MODULES_LOAD_DIR``): ``[A-Za-z0-9_][A-Za-z0-9_.-]*.conf``, so no path can
        leave them and only the ``*.conf`` files the boot services read are written."""
        errors = []
        for option, directory in (("file", SYSCTL_DIR), ("modules_load_file", host_files.MODULES_LOAD_DIR)):
            try:
                name = unit_syntax.check_conf_name(self.params[option], option)
            except unit_syntax.UnitSyntaxError as exc:
                errors.append(
                    "%s; it names a file in %s, which %s reads"
                    % (exc, directory, "systemd-sysctl" if option == "file" else "systemd-modules-load")
                )
                continue
            self.paths[option] = "%s/%s" % (directory, name)
        return errors

    def _tcp_limits(self):
        return dict(
            (name, self.params[name]) for name in ("tcp_rmem_min", "tcp_rmem_max", "tcp_wmem_min", "tcp_wmem_max")
        )

    # -- host ----------------------------------------------------------------------------------
    def prepare(self):
        """Read the kernel release; load smc when asked: it creates net.smc.*, whose presence decides
        the method."""
        params = self.params
        self.release = kernel_support.kernel_release()
        try:
            self.kernel = parse_kernel_release(self.release)
        except SizingError as exc:
            raise ResourceError("cannot read the kernel release: %s" % exc)
        self.support = kernel_support.probe(self.release)
        ran = []
        if (
            self.state == "merged"
            and params["load_module"]
            and not smc_loaded()
            and self.support["available"] is not False
        ):
            ran = self._load()
        if self.state == "merged" and self.support["available"] is False:
            # nothing that needs SMC can work here: no drop-in, no modules-load file, no TCP change
            if params["require_smc"]:
                raise ResourceError("%s (require_smc=true); nothing was written" % self.support["reason"])
            self.module.warn("%s; smc_sysctl wrote nothing" % self.support["reason"])
            return ran
        if params["require_smc"] and self.state == "merged" and not smc_loaded() and not self.would_load:
            raise ResourceError(
                "smc is not loaded on this host (require_smc=true, load_module=%s)" % params["load_module"]
            )
        return ran

    def _load(self):
        module, require = self.module, self.params["require_smc"]
        modprobe = module.get_bin_path("modprobe", opt_dirs=["/sbin", "/usr/sbin"])
        if modprobe is None:
            if require:
                raise ResourceError("smc is not loaded and modprobe was not found (require_smc=true)")
            module.warn("smc is not loaded and modprobe was not found; deciding from the kernel release")
            return []
        if module.check_mode:
            rc, dummy, err = module.run_command([modprobe, "--dry-run", MODULE_NAME], environ_update={"LC_ALL": "C"})
            if rc != 0:
                self.support = kernel_support.with_modprobe_error(self.support, err)
            if rc != 0 and require and self.support["available"] is not False:
                raise ResourceError(
                    "this kernel has no smc module (modprobe --dry-run smc: %s)" % err.strip(), rc=rc, stderr=err
                )
            self.would_load = rc == 0
            return ["modprobe %s" % MODULE_NAME] if rc == 0 else []
        rc, dummy, err = module.run_command([modprobe, MODULE_NAME], environ_update={"LC_ALL": "C"})
        if rc != 0:
            self.support = kernel_support.with_modprobe_error(self.support, err)
            if self.support["available"] is False:
                return []
            if require:
                raise ResourceError(
                    "cannot load smc (modprobe smc exited %d: %s)" % (rc, err.strip()), rc=rc, stderr=err
                )
            module.warn("cannot load smc (modprobe smc: %s); deciding the method from the kernel release" % err.strip())
            return []
        return ["modprobe %s" % MODULE_NAME]

    def read(self):
        try:
            text = host_files.read_text(self.paths["file"])
            modules = host_files.read_text(self.paths["modules_load_file"])
            live = sfile.read_live(_known_keys(sfile.parse(text)))
        except (IOError, OSError) as exc:
            raise ResourceError(
                "cannot read %s: %s" % (getattr(exc, "filename", None) or "the host", exc.strerror or exc)
            )
        return {
            "file": text,
            "modules": modules,
            "live": live,
            "loaded": smc_loaded(),
            "rmem_present": os.path.exists(host_files.path(sfile.proc_path("net.smc.rmem"))),
        }

    def _decide_method(self, current):
        loaded, present = current["loaded"], current["rmem_present"]
        if self.params["method"] != "auto":
            self.method, self.method_source = self.params["method"], "option"
            if loaded and present != (self.method == METHOD_NET_SMC):
                self.module.warn(
                    "method=%s, but this kernel %s net.smc.rmem: the SMC buffer size will not follow"
                    % (self.method, "has" if present else "has no")
                )
        elif loaded:
            self.method, self.method_source = decide_method(self.release, present), "presence"
        else:
            self.method, self.method_source = decide_method(self.release), "osrelease"

    def plan(self, current):
        params = self.params
        if self.state == "merged" and self.support["available"] is False:
            self.method_source = "no smc"
            return [Change(SYSCTLS, [], want=current)]
        if self.state == "deleted":
            self.method = decide_method(self.release, current["rmem_present"] if current["loaded"] else None)
            self.method_source = "presence" if current["loaded"] else "osrelease"
            steps = [
                self._remove_step(path)
                for part, path in (("file", self.paths["file"]), ("modules", self.paths["modules_load_file"]))
                if current[part] is not None
            ]
            return [Change(SYSCTLS, steps, want=dict(current, file=None, modules=None))]

        self._decide_method(current)
        live = current["live"]
        old_file = sfile.parse(current["file"])
        # The TCP minimum and maximum come from the file this module owns when it sets them: a live
        # change of them behind Ansible's back is drift to undo, not a new value to persist.
        basis = dict((key, tcp_triplet_basis(old_file.get(key), live.get(key), key)) for key in TCP_KEYS.values())
        buf_type = self.settings.get("net.smc.smcr_buf_type") or live.get("net.smc.smcr_buf_type")
        self.smcr_buf_type = int(buf_type) if buf_type and str(buf_type).isdigit() else 0
        try:
            self.buffers = plan_buffers(
                self.release,
                params["rmem"],
                params["wmem"],
                method=self.method,
                protocol=params["protocol"],
                smcr_buf_type=self.smcr_buf_type,
                tcp_rmem=basis[TCP_KEYS["rmem"]],
                tcp_wmem=basis[TCP_KEYS["wmem"]],
                **self._tcp_limits(),
            )
        except SizingError as exc:
            raise ResourceError(str(exc))
        for warning in self.buffers["warnings"]:
            self.module.warn(warning)
        self.desired = self._present_settings(current)
        self.desired.update(self.buffers["sysctls"])
        if params["core_mem_max_at_least"]:
            # lower bounds: a larger value of the host stays (and is what the file keeps)
            for key in CORE_KEYS.values():
                now = str(live.get(key) or "").strip()
                if key in self.desired and now.isdigit() and int(now) > int(self.desired[key]):
                    self.desired[key] = now
        self.managed = sorted(set(self.desired) | set(old_file))

        steps, want_live = [], dict(live)
        for key in sorted(self.desired):
            value = sfile.normalize_value(self.desired[key])
            if live.get(key) is None:
                self.missing.append(key)
            elif params["apply"] and value != live[key]:
                steps.append(self._live_step(key, value))
                want_live[key] = value
                self.applied.append(key)
        # Live first: a value the kernel refuses must not reach the file every boot applies.
        want = dict(current, live=want_live, file=sfile.render(self.desired))
        if want["file"] != (current["file"] or ""):
            steps.append(self._write_step(self.paths["file"], want["file"]))
        if params["load_module"]:
            want["modules"] = host_files.modules_load_text(sfile.MODULES_LOAD_HEADER, [MODULE_NAME])
            if want["modules"] != (current["modules"] or ""):
                steps.append(self._write_step(self.paths["modules_load_file"], want["modules"]))
        self._warn_missing(current)
        return [Change(SYSCTLS, steps, want=want)]

    def _present_settings(self, current):
        """The ``settings`` the host has. With ``smc`` loaded, /proc/sys/net/smc lists the keys this
        kernel has (a release says nothing: distributions backport, and ``hs_ctrl`` depends on a
        build option); a key it lacks is reported, not applied and not written to the boot file.
        Without ``smc`` loaded nothing can be probed and every key goes to the file."""
        present = {}
        for key, value in sorted(self.settings.items()):
            if current["loaded"] and key.startswith(SMC_SYSCTL_PREFIX) and current["live"].get(key) is None:
                self.absent.append(key)
            else:
                present[key] = value
        if self.absent:
            self.module.warn(
                "not on this host (kernel %s has no %s in /proc/sys/net/smc), neither applied nor written to %s: %s"
                % (
                    self.release,
                    "key" if len(self.absent) == 1 else "keys",
                    self.paths["file"],
                    ", ".join(self.absent),
                )
            )
        return present

    def _warn_missing(self, current):
        if self.missing and (current["loaded"] or self.method == METHOD_TCP):
            self.module.warn(
                "not present on this kernel (%s), written to %s only: %s"
                % (self.release, self.paths["file"], ", ".join(self.missing))
            )

    # -- steps ---------------------------------------------------------------------------------
    def _live_step(self, key, value, kind="change"):
        return Step(
            action=lambda: sfile.write_live(key, value),
            scope="active",
            kind=kind,
            subject=key,
            text="echo %s > %s" % (value, sfile.proc_path(key)),
        )

    def _write_step(self, path, text, kind="change"):
        return Step(
            action=lambda: self.files.write(path, text),
            text=host_files.change_text(path, text),
            scope="persistent",
            kind=kind,
            subject=path,
        )

    def _remove_step(self, path, kind="change"):
        return self._write_step(path, None, kind)

    def _restore_step(self, path):
        return Step(
            action=lambda: self.files.restore(path),
            text=self.files.restore_text(path),
            scope="persistent",
            kind="rollback",
            subject=path,
        )

    def error_text(self, exc):
        return exc.strerror or str(exc)

    def run_step(self, step):
        rc, out, err = super(SmcSysctls, self).run_step(step)
        if step.kind == "rollback" and step.scope == "active":
            (self.not_restored if rc else self.restored).append(step.subject)
        return rc, out, err

    def rollback(self, before, now, change, ran):
        """Every step that completed, undone in reverse (the failed one changed nothing: the kernel
        refused the value, or the file was never renamed into place)."""
        steps = []
        for step in reversed(ran[:-1]):
            if step.scope == "active":
                steps.append(self._live_step(step.subject, before["live"][step.subject], kind="rollback"))
            else:
                steps.append(self._restore_step(step.subject))
        return steps

    def failure_message(self, change, step, rc, out, err):
        exc = step.error
        if step.kind == "rollback":
            return "cannot put back %s: %s" % (step.subject, err)
        if step.scope == "active":
            reason = err
            if exc is not None and exc.errno == errno.EINVAL:
                reason = "the running kernel refused the value (EINVAL: out of range)"
                short = step.subject[len(SMC_SYSCTL_PREFIX) :]
                spec = SMC_SYSCTLS.get(short) if step.subject.startswith(SMC_SYSCTL_PREFIX) else None
                if spec is not None and not spec.get("string"):
                    reason = "settings.%s: the running kernel refused it (EINVAL); its range is %d..%d" % (
                        short,
                        spec["min"],
                        spec["max"],
                    )
            return "cannot set %s = %s: %s; no file was written" % (
                step.subject,
                self.desired.get(step.subject),
                reason,
            )
        return "cannot write %s: %s" % (step.subject, err)

    # -- results -------------------------------------------------------------------------------
    def predict(self, current, changes):
        return changes[0].want

    def public_view(self, state, change):
        if self.state == "deleted":
            return {"file": sfile.parse(state["file"]), "live": {}}
        return {"file": sfile.parse(state["file"]), "live": dict((key, state["live"].get(key)) for key in self.managed)}

    def view(self, state, change):
        public = self.public_view(state, change)
        return {
            "active": dict(sorted(public["live"].items())),
            "persistent": dict(sorted(public["file"].items())),
        }

    def views(self, state, changes):
        return self.public_view(state, changes[0])

    def diff(self, before_state, after_state, changes):
        diffs = []
        for part, path in (("file", self.paths["file"]), ("modules", self.paths["modules_load_file"])):
            old, new = before_state[part] or "", after_state[part] or ""
            if old != new:
                diffs.append(dict(before_header=path, before=old, after_header=path, after=new))
        return diffs

    def remaining(self, after, change):
        want = change.want
        steps = [
            self._live_step(key, value)
            for key, value in sorted(want["live"].items())
            if key in self.applied and after["live"].get(key) != value
        ]
        for part, path in (("file", self.paths["file"]), ("modules", self.paths["modules_load_file"])):
            if (after[part] or None) != (want[part] or None):
                steps.append(self._remove_step(path) if want[part] is None else self._write_step(path, want[part]))
        return steps

    def extras(self, state, changes, failed=False):
        eff_rmem = eff_wmem = None
        if self.state == "merged" and self.buffers is not None:
            eff_rmem, eff_wmem = self.buffers["effective_rmem"], self.buffers["effective_wmem"]
            if eff_rmem is None or eff_wmem is None:
                cur_rmem, cur_wmem = current_effective(
                    self.release, self.method, state["live"], self.params["protocol"], self.smcr_buf_type
                )
                eff_rmem = cur_rmem if eff_rmem is None else eff_rmem
                eff_wmem = cur_wmem if eff_wmem is None else eff_wmem
        result = dict(
            kernel=self.release,
            method=self.method,
            method_source=self.method_source,
            smc_loaded=state["loaded"],
            kernel_smc=self.support,
            sysctls=self.desired,
            effective_rmem=eff_rmem,
            effective_wmem=eff_wmem,
            applied=[] if failed else list(self.applied),
            not_present=sorted(self.missing + self.absent),
            smc_tools_missing=[tool for tool in SMC_TOOLS if not self.module.get_bin_path(tool)],
        )
        if failed:
            result.update(restored=list(self.restored), not_restored=list(self.not_restored))
        return result
