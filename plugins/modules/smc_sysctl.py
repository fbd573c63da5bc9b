#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_sysctl
short_description: Set SMC buffer sizes and net.smc settings the way the running kernel understands them
version_added: 0.1.0
description:
  - Sets the default size of the SMC send and receive buffers (O(wmem), O(rmem)) and other
    C(net.smc.*) settings on Linux on IBM Z, persistently and, with O(apply), live.
  - How to ask for an SMC buffer size depends on the kernel. When C(/proc/sys/net/smc/rmem)
    exists (upstream 6.1 and later, or a distribution kernel with the backport), the module
    writes C(net.smc.rmem)/C(net.smc.wmem) (method C(net.smc)).
  - Without it (upstream before 6.1, for example RHEL 8.8 with 4.18 or SLES 15 SP5 with 5.14) SMC
    requests half of the TCP socket's initial buffer, so the module sets the default (middle)
    value of C(net.ipv4.tcp_rmem)/C(net.ipv4.tcp_wmem) to twice the wanted size and keeps the
    minimum and maximum (those in O(file) when it sets them, else the host's current ones) unless
    O(tcp_rmem_min) and friends are given (method C(tcp)). This changes the default buffer of every TCP socket; the module warns about it.
  - When C(smc) is not loaded and cannot be loaded (check mode, O(load_module=false), or a kernel
    without SMC) the kernel release decides the method.
  - The kernel allocates SMC buffers of 16 KiB x 2^n only, up to a maximum per protocol and
    kernel; RV(effective_rmem) and RV(effective_wmem) report the size it will use, with a warning
    when the request is rounded up or capped. See docs/smc-sizing.md for the rule per kernel.
  - The file O(file) is owned whole by this module. It holds one canonical C(key = value) line per
    setting. With O(load_module), O(modules_load_file) makes C(systemd-modules-load) load C(smc)
    at boot, before C(systemd-sysctl) applies O(file), so C(net.smc.*) keys exist by then.
  - C(net.smc.*) settings are per network namespace; O(file) and O(apply) act on the namespace the
    module runs in (the host's initial namespace at boot).
  - Keys that the running kernel does not have are written to O(file) but not applied live.
    The module never fails because the kernel has no SMC unless O(require_smc=true).
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
options:
  state:
    description:
      - V(present) writes O(file) (and O(modules_load_file)) and applies the values.
      - V(absent) removes both files. Live values stay as they are (the module does not know the
        values from before it was used).
    type: str
    choices: [present, absent]
    default: present
  rmem:
    description:
      - Wanted SMC receive buffer (RMB/DMB) size, in bytes or with a binary suffix
        (V(131072), V(128K), V(1M)).
      - At least V(16K); at most V(1073741823) bytes (INT_MAX/2, the kernel's limit since 6.5).
      - Omit to leave the receive buffer size alone.
    type: raw
  wmem:
    description:
      - Wanted SMC send buffer size, same format and limits as O(rmem).
    type: raw
  protocol:
    description:
      - SMC flavour that RV(effective_rmem)/RV(effective_wmem) and the capping warnings are computed
        for. SMC-D buffers are capped at 1 MiB (512 KiB before 5.16); SMC-R buffers at 512 KiB
        before 6.11, afterwards at 4 MiB with C(net.smc.smcr_buf_type=0) and 512 MiB otherwise.
    type: str
    choices: [smcd, smcr]
    default: smcd
  settings:
    description:
      - Other C(net.smc.*) settings, key without or with the C(net.smc.) prefix.
      - Known keys and ranges, checked before anything is changed
        (V(autocorking_size) 0..4294967295, V(smcr_buf_type) 0..2, V(smcr_testlink_time)
        0..21474836 seconds, V(smcr_max_links_per_lgr) 1..2, V(smcr_max_conns_per_lgr) 16..255,
        V(limit_smc_hs) 0..1, V(smcr_max_send_wr) 2..2048, V(smcr_max_recv_wr) 2..2048).
      - Use O(rmem) and O(wmem) for the buffer sizes.
    type: dict
    default: {}
  method:
    description:
      - V(auto) decides from the host as described above. V(net.smc) and V(tcp) force a method,
        for example to prepare O(file) for a kernel that is not booted yet.
    type: str
    choices: [auto, net.smc, tcp]
    default: auto
  tcp_rmem_min:
    description:
      - Minimum (first) value of C(net.ipv4.tcp_rmem) for method C(tcp); default is the value in
        O(file), or the host's current value when O(file) does not set it.
    type: raw
  tcp_rmem_max:
    description:
      - Maximum (third) value of C(net.ipv4.tcp_rmem) for method C(tcp); default as for
        O(tcp_rmem_min), raised to the new default value when it is below.
    type: raw
  tcp_wmem_min:
    description:
      - Minimum value of C(net.ipv4.tcp_wmem) for method C(tcp); default as for O(tcp_rmem_min).
    type: raw
  tcp_wmem_max:
    description:
      - Maximum value of C(net.ipv4.tcp_wmem) for method C(tcp); default as for O(tcp_rmem_min),
        raised to the new default value when it is below.
    type: raw
  core_rmem_max:
    description:
      - Also set C(net.core.rmem_max), the largest receive buffer an application may ask for with
        C(setsockopt(SO_RCVBUF)). C(libsmc-preload.so) (C(smc_run -r), C(SMC_RCVBUF)) asks that way,
        so a per-application SMC buffer above the kernel default of 212992 bytes needs this raised
        (C(smc_run) raises it itself). Omit to leave it alone.
    type: raw
  core_wmem_max:
    description:
      - Also set C(net.core.wmem_max), the same for C(SO_SNDBUF) (C(smc_run -t), C(SMC_SNDBUF)).
    type: raw
  file:
    description:
      - The sysctl.d file this module owns.
    type: path
    default: /etc/sysctl.d/90-smc.conf
  load_module:
    description:
      - Load C(smc) now (C(modprobe smc)) and at boot (O(modules_load_file)).
    type: bool
    default: true
  modules_load_file:
    description:
      - The modules-load.d file that loads C(smc) at boot, owned by this module when O(load_module).
    type: path
    default: /etc/modules-load.d/smc.conf
  apply:
    description:
      - Write the values to C(/proc/sys) now, for the keys the running kernel has.
      - New values apply to SMC sockets created afterwards, not to existing connections.
    type: bool
    default: true
  require_smc:
    description:
      - Fail when the kernel has no SMC (C(smc) not loaded and not loadable).
    type: bool
    default: false
notes:
  - Supports C(--check) and C(--diff). In check mode C(smc) is not loaded; the method is then
    decided from what is loaded already or from the kernel release.
seealso:
  - module: s390x.network.smcd_info
  - module: s390x.network.smc_pnet
  - plugin: s390x.network.smc_buffer_sysctls
    plugin_type: filter
    description: The same computation on the controller.
"""

EXAMPLES = r"""
- name: SMC buffers of 128 KiB (the study's tuning), whatever the kernel
  s390x.network.smc_sysctl:
    rmem: 128K
    wmem: 128K

- name: Larger buffers for SMC-R on a 6.12 kernel, plus a shorter TEST_LINK interval
  s390x.network.smc_sysctl:
    rmem: 1M
    wmem: 1M
    protocol: smcr
    settings:
      smcr_testlink_time: 10
      smcr_buf_type: 2

- name: RHEL 8 style with an explicit TCP maximum
  s390x.network.smc_sysctl:
    rmem: 128K
    wmem: 128K
    tcp_rmem_max: 6291456
    tcp_wmem_max: 4194304
  register: smc

- name: Show what the kernel will allocate
  ansible.builtin.debug:
    msg: "{{ smc.method }}: RMB {{ smc.effective_rmem }} bytes, send buffer {{ smc.effective_wmem }} bytes"
"""

RETURN = r"""
method:
  description: How the buffer sizes are requested, V(net.smc) or V(tcp).
  returned: always
  type: str
  sample: tcp
method_source:
  description: What decided the method, V(presence) of C(/proc/sys/net/smc/rmem), V(osrelease) or V(option).
  returned: always
  type: str
  sample: presence
kernel:
  description: The running kernel release.
  returned: always
  type: str
  sample: 4.18.0-477.10.1.el8_8.s390x
smc_loaded:
  description: Whether C(smc) is loaded after the module ran (in check mode, before).
  returned: always
  type: bool
sysctls:
  description: The settings this module manages (full key to value), as written to O(file).
  returned: always
  type: dict
  sample: {"net.ipv4.tcp_rmem": "4096 262144 6291456", "net.ipv4.tcp_wmem": "4096 262144 4194304"}
effective_rmem:
  description: Receive buffer size in bytes the kernel allocates for new SMC connections of O(protocol) (null when unknown).
  returned: always
  type: int
  sample: 131072
effective_wmem:
  description: Send buffer size in bytes the kernel allocates for new SMC connections of O(protocol) (null when unknown).
  returned: always
  type: int
  sample: 131072
applied:
  description: Keys written to C(/proc/sys) (or that would be, in check mode).
  returned: always
  type: list
  elements: str
not_present:
  description: Managed keys the running kernel does not have (kept in O(file), not applied).
  returned: always
  type: list
  elements: str
restored:
  description:
    - After a failure (a value the kernel refused, a file that could not be written), the keys whose
      live value was set in this run and put back to the old one.
  returned: on failure after a live value was set
  type: list
  elements: str
not_restored:
  description: Keys whose old live value could not be put back (they keep the new value).
  returned: on failure after a live value was set
  type: list
  elements: str
before:
  description: O(file) content (key to value) and live values of the managed keys before the run.
  returned: always
  type: dict
  sample: {"file": {}, "live": {"net.ipv4.tcp_rmem": "4096 131072 6291456"}}
after:
  description: The same after the run (in check mode, as it would be).
  returned: always
  type: dict
"""

import errno
import os
import platform

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.s390x.network.plugins.module_utils import smc_sysctl_file as sfile
from ansible_collections.s390x.network.plugins.module_utils.smc_sizing import (
    INT_MAX, METHOD_NET_SMC, METHOD_TCP, SMC_SYSCTL_PREFIX, SMC_SYSCTLS, TCP_KEYS, SizingError,
    current_effective, decide_method, parse_kernel_release, parse_size, plan_buffers, tcp_triplet_basis,
    validate_setting,
)

SYS_MODULE_SMC = "/sys/module/smc"
MODULE_NAME = "smc"


def kernel_release():
    content = sfile.read_file(sfile.proc_path("kernel.osrelease"))
    if content and content.strip():
        return content.strip()
    return platform.release()


def smc_loaded():
    return (os.path.isdir(sfile.proc_path("net.smc")) or os.path.isdir(SYS_MODULE_SMC))


def load_smc(module, check_mode, require):
    """Make sure smc is loaded; returns (loaded, changed)."""
    if smc_loaded():
        return True, False
    modprobe = module.get_bin_path("modprobe", opt_dirs=["/sbin", "/usr/sbin"])
    if modprobe is None:
        if require:
            module.fail_json(msg="smc is not loaded and modprobe was not found (require_smc=true)")
        module.warn("smc is not loaded and modprobe was not found; deciding from the kernel release")
        return False, False
    if check_mode:
        rc, dummy, err = module.run_command([modprobe, "--dry-run", MODULE_NAME])
        if rc != 0 and require:
            module.fail_json(msg="this kernel has no smc module (modprobe --dry-run smc: %s)" % err.strip(),
                             rc=rc, stderr=err)
        return False, rc == 0
    rc, dummy, err = module.run_command([modprobe, MODULE_NAME])
    if rc != 0:
        if require:
            module.fail_json(msg="cannot load smc (modprobe smc exited %d: %s)" % (rc, err.strip()),
                             rc=rc, stderr=err)
        module.warn("cannot load smc (modprobe smc: %s); deciding the method from the kernel release"
                    % err.strip())
        return False, False
    return smc_loaded(), True


def remove_files(module, kernel, old_text, old_modules, result):
    """state=absent: remove both files (live values stay) and exit."""
    params = module.params
    diffs = []
    for path, text in ((params["file"], old_text), (params["modules_load_file"], old_modules)):
        if text is None:
            continue
        diffs.append(dict(before_header=path, before=text, after_header=path, after=""))
        if not module.check_mode:
            sfile.remove_file(path)
    loaded = smc_loaded()
    method = decide_method(kernel, os.path.exists(sfile.proc_path("net.smc.rmem")) if loaded else None)
    result.update(changed=bool(diffs), method=method, method_source="presence" if loaded else "osrelease",
                  smc_loaded=loaded, sysctls={}, effective_rmem=None, effective_wmem=None,
                  before=dict(file=sfile.parse(old_text), live={}), after=dict(file={}, live={}))
    if module._diff:
        result["diff"] = diffs
    module.exit_json(**result)


def apply_live(module, desired, live_before):
    """Write the desired values that differ to /proc/sys (not in check mode).

    Returns (applied keys, keys the kernel does not have, live values after). When the kernel
    refuses a value, the keys already written get their old values back and the module fails:
    the live configuration is old or new, never mixed, and no file has been written yet.
    """
    applied, missing = [], []
    live_after = dict(live_before)
    for key in sorted(desired):
        if live_before.get(key) is None:
            missing.append(key)
            continue
        if not module.params["apply"] or sfile.normalize_value(desired[key]) == live_before[key]:
            continue
        if not module.check_mode:
            try:
                sfile.write_live(key, desired[key])
            except (IOError, OSError) as exc:
                reason = "the kernel refused the value (EINVAL: out of range)" if exc.errno == errno.EINVAL \
                    else to_native(exc)
                restored, not_restored = restore_live(applied, live_before)
                module.fail_json(
                    msg="cannot set %s = %s: %s; %s" % (key, desired[key], reason, _restore_text(restored, not_restored)),
                    changed=bool(not_restored), applied=[], restored=restored, not_restored=not_restored,
                    errno=exc.errno)
        applied.append(key)
        live_after[key] = sfile.normalize_value(desired[key])
    return applied, missing, live_after


def restore_live(keys, live_before):
    """Write the old values of ``keys`` back; returns (restored keys, keys that could not be)."""
    restored, failed = [], []
    for key in keys:
        try:
            sfile.write_live(key, live_before[key])
            restored.append(key)
        except (IOError, OSError):
            failed.append(key)
    return restored, failed


def _restore_text(restored, not_restored):
    text = "no file was written"
    if restored:
        text += "; the values already set were put back: %s" % ", ".join(restored)
    if not_restored:
        text += "; NOT put back (still the new value): %s" % ", ".join(not_restored)
    return text


def write_files(module, changes, applied, live_before):
    """Write the changed files (path, old text, new text) after the live values; when one cannot be
    written, put back the files already written and the live values, and fail."""
    written = []
    for path, old, new in changes:
        try:
            sfile.write_file_atomic(path, new)
            module.set_default_selinux_context(path, False)
        except (IOError, OSError) as exc:
            problems = []
            for wpath, wold, dummy in reversed(written):
                try:
                    if wold is None:
                        sfile.remove_file(wpath)
                    else:
                        sfile.write_file_atomic(wpath, wold)
                except (IOError, OSError) as rexc:
                    problems.append("%s (%s)" % (wpath, to_native(rexc)))
            restored, not_restored = restore_live(applied, live_before)
            msg = "cannot write %s: %s; the live values were put back" % (path, exc.strerror or to_native(exc))
            if not_restored:
                msg += " except %s" % ", ".join(not_restored)
            if problems:
                msg += "; files NOT put back: %s" % ", ".join(problems)
            module.fail_json(msg=msg, changed=bool(not_restored or problems), applied=[], restored=restored,
                             not_restored=not_restored)
        written.append((path, old, new))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", default="present", choices=["present", "absent"]),
            rmem=dict(type="raw"),
            wmem=dict(type="raw"),
            protocol=dict(type="str", default="smcd", choices=["smcd", "smcr"]),
            settings=dict(type="dict", default={}),
            method=dict(type="str", default="auto", choices=["auto", METHOD_NET_SMC, METHOD_TCP]),
            tcp_rmem_min=dict(type="raw"),
            tcp_rmem_max=dict(type="raw"),
            tcp_wmem_min=dict(type="raw"),
            tcp_wmem_max=dict(type="raw"),
            core_rmem_max=dict(type="raw"),
            core_wmem_max=dict(type="raw"),
            file=dict(type="path", default="/etc/sysctl.d/90-smc.conf"),
            load_module=dict(type="bool", default=True),
            modules_load_file=dict(type="path", default="/etc/modules-load.d/smc.conf"),
            apply=dict(type="bool", default=True),
            require_smc=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    check = module.check_mode
    release = kernel_release()
    try:
        kernel = parse_kernel_release(release)
    except SizingError as exc:
        module.fail_json(msg="cannot read the kernel release: %s" % exc)

    # Validate everything the user gave before touching the host.
    settings = {}
    try:
        for key, value in sorted((params["settings"] or {}).items()):
            short, number = validate_setting(key, value)
            if short in ("rmem", "wmem"):
                raise SizingError("settings.%s: use the %s option for the SMC buffer size" % (short, short))
            settings[SMC_SYSCTL_PREFIX + short] = str(number)
        for option, key in (("core_rmem_max", "net.core.rmem_max"), ("core_wmem_max", "net.core.wmem_max")):
            if params[option] is not None:
                number = parse_size(params[option], option)
                if not 1 <= number <= INT_MAX:
                    raise SizingError("%s: must be between 1 and %d bytes, got %d" % (option, INT_MAX, number))
                settings[key] = str(number)
        # A first plan with the kernel-release method only validates sizes and TCP limits.
        plan_buffers(kernel, params["rmem"], params["wmem"], method=METHOD_TCP, protocol=params["protocol"],
                     tcp_rmem_min=params["tcp_rmem_min"], tcp_rmem_max=params["tcp_rmem_max"],
                     tcp_wmem_min=params["tcp_wmem_min"], tcp_wmem_max=params["tcp_wmem_max"])
    except SizingError as exc:
        module.fail_json(msg=str(exc))

    result = dict(changed=False, kernel=release, applied=[], not_present=[])
    old_text = sfile.read_file(params["file"])
    old_modules = sfile.read_file(params["modules_load_file"])

    if params["state"] == "absent":
        remove_files(module, kernel, old_text, old_modules, result)

    changed = False
    loaded = smc_loaded()
    would_load = False
    if params["load_module"] and not loaded:
        loaded, would_load = load_smc(module, check, params["require_smc"])
        changed = would_load
    if params["require_smc"] and not loaded and not (check and would_load):
        module.fail_json(msg="smc is not loaded on this host (require_smc=true, load_module=%s)"
                         % params["load_module"])

    if params["method"] != "auto":
        method, method_source = params["method"], "option"
        present = os.path.exists(sfile.proc_path("net.smc.rmem"))
        if loaded and present != (method == METHOD_NET_SMC):
            module.warn("method=%s, but this kernel %s net.smc.rmem: the SMC buffer size will not follow"
                        % (method, "has" if present else "has no"))
    elif loaded:
        method = decide_method(kernel, os.path.exists(sfile.proc_path("net.smc.rmem")))
        method_source = "presence"
    else:
        method, method_source = decide_method(kernel), "osrelease"

    live_tcp = sfile.read_live(list(TCP_KEYS.values()))
    old_file = sfile.parse(old_text)
    # The TCP minimum and maximum come from the file this module owns when it sets them: a live
    # change of them behind Ansible's back is drift to undo, not a new value to persist.
    tcp_basis = dict((key, tcp_triplet_basis(old_file.get(key), live_tcp.get(key), key))
                     for key in TCP_KEYS.values())
    smcr_buf_type = settings.get("net.smc.smcr_buf_type")
    if smcr_buf_type is None:
        live_type = sfile.read_live(["net.smc.smcr_buf_type"]).get("net.smc.smcr_buf_type")
        smcr_buf_type = live_type if live_type and live_type.isdigit() else 0
    try:
        plan = plan_buffers(
            kernel, params["rmem"], params["wmem"], method=method, protocol=params["protocol"],
            smcr_buf_type=int(smcr_buf_type),
            tcp_rmem=tcp_basis[TCP_KEYS["rmem"]], tcp_wmem=tcp_basis[TCP_KEYS["wmem"]],
            tcp_rmem_min=params["tcp_rmem_min"], tcp_rmem_max=params["tcp_rmem_max"],
            tcp_wmem_min=params["tcp_wmem_min"], tcp_wmem_max=params["tcp_wmem_max"])
    except SizingError as exc:
        module.fail_json(msg=str(exc))
    for warning in plan["warnings"]:
        module.warn(warning)

    desired = dict(settings)
    desired.update(plan["sysctls"])
    managed_keys = sorted(set(desired) | set(old_file))
    live_before = sfile.read_live(managed_keys)

    diffs = []
    file_changes = []
    new_text = sfile.render(desired)
    if new_text != (old_text or ""):
        diffs.append(dict(before_header=params["file"], before=old_text or "",
                          after_header=params["file"], after=new_text))
        file_changes.append((params["file"], old_text, new_text))
    if params["load_module"]:
        new_modules = sfile.render_modules_load([MODULE_NAME])
        if new_modules != (old_modules or ""):
            diffs.append(dict(before_header=params["modules_load_file"], before=old_modules or "",
                              after_header=params["modules_load_file"], after=new_modules))
            file_changes.append((params["modules_load_file"], old_modules, new_modules))
    changed = changed or bool(diffs)

    # Live first: a value the kernel refuses must not reach the file every boot applies.
    applied, skipped, live_after = apply_live(module, desired, live_before)
    if not check:
        write_files(module, file_changes, applied, live_before)
    if applied:
        changed = True
    if skipped and (loaded or method == METHOD_TCP):
        module.warn("not present on this kernel (%s), written to %s only: %s"
                    % (release, params["file"], ", ".join(skipped)))
    for key in settings:
        short = key[len(SMC_SYSCTL_PREFIX):]
        if key in skipped and short in SMC_SYSCTLS and kernel[:2] < SMC_SYSCTLS[short]["since"]:
            module.warn("%s first appeared in upstream %d.%d; kernel %s may not know it"
                        % (key, SMC_SYSCTLS[short]["since"][0], SMC_SYSCTLS[short]["since"][1], release))

    eff_rmem, eff_wmem = plan["effective_rmem"], plan["effective_wmem"]
    if eff_rmem is None or eff_wmem is None:
        live_now = dict(live_after)
        live_now.update(sfile.read_live([k for k in (SMC_SYSCTL_PREFIX + "rmem", SMC_SYSCTL_PREFIX + "wmem")
                                         if k not in live_now] + [v for v in TCP_KEYS.values() if v not in live_now]))
        cur_rmem, cur_wmem = current_effective(kernel, method, live_now, params["protocol"], int(smcr_buf_type))
        eff_rmem = cur_rmem if eff_rmem is None else eff_rmem
        eff_wmem = cur_wmem if eff_wmem is None else eff_wmem

    result.update(
        changed=changed, method=method, method_source=method_source,
        smc_loaded=smc_loaded() if not check else loaded,
        sysctls=desired, effective_rmem=eff_rmem, effective_wmem=eff_wmem,
        applied=applied, not_present=skipped,
        before=dict(file=old_file, live=live_before),
        after=dict(file=sfile.parse(new_text), live=live_after),
    )
    if module._diff:
        result["diff"] = diffs
    module.exit_json(**result)


if __name__ == "__main__":
    main()
