# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zlab.kernel: the emulated s390 kernel of one host (state store + semantics).

Public API (module functions, ``state_dir`` first; see docs/contributing.md, "Kernel internals"):

    boot(state_dir, spec)                     fresh IPL state (spec: HostSpec or dict)
    apply_persistent(state_dir, host_root)    udev/systemd boot processing -> [(sysctl, value)]
    apply_sysctl_defaults(state_dir)          the profile's sysctl boot values (before that)
    modules_loaded, load_module, unload_module
    pnet_list, pnet_add, pnet_del, pnet_flush
    ueid_list, ueid_add, ueid_remove, ueid_flush, seid_show, seid_set (the SMC_NETLINK_*_UEID/_SEID
        commands; OSError(errno) as the kernel answers, EAGAIN for removing the last UEID)
    smc_stats, smc_stats_set, smcd_devices, smcr_devices, linkgroups, linkgroups_set, smc_sockets,
    smc_sockets_set, smc_sysctl, netdev_info
    add_write_fault, add_tool_fault, consume_tool_fault, record_service_fault,
    forget_service_fault, pending_faults, clear_faults
    set_pci_functions(state_dir, list_of_pci_dicts)
    sysfs_read / sysfs_write / sysfs_listdir / sysfs_readlink / sysfs_exists (host paths such as
        "/sys/devices/qeth/0.0.8200/online" or "/proc/sys/net/smc/rmem"; OSError(errno) as the
        kernel returns it)
    view(state_dir, real_sys=None, real_proc_sys_net=None) -> KernelView

Never do file I/O on the emulated /sys while holding a kernel transaction (the FUSE daemon needs
the same lock to serve writes).
"""

import copy
import errno
import os

from .. import profiles
from . import core, faults, hooks, persist, store
from .core import ModuleError
from .spec import HostSpec, norm_busid
from .view import KernelView

__all__ = [
    "HostSpec",
    "KernelView",
    "ModuleError",
    "boot",
    "apply_persistent",
    "modules_loaded",
    "load_module",
    "unload_module",
    "pnet_list",
    "pnet_add",
    "pnet_del",
    "pnet_flush",
    "ueid_list",
    "ueid_add",
    "ueid_remove",
    "ueid_flush",
    "seid_show",
    "seid_set",
    "smc_stats",
    "smc_stats_set",
    "smcd_devices",
    "smcr_devices",
    "netdev_info",
    "linkgroups",
    "linkgroups_set",
    "smc_sockets",
    "smc_sockets_set",
    "smc_sysctl",
    "add_write_fault",
    "add_tool_fault",
    "consume_tool_fault",
    "record_service_fault",
    "forget_service_fault",
    "pending_faults",
    "clear_faults",
    "set_pci_functions",
    "set_pci_holder",
    "sysfs_read",
    "sysfs_write",
    "sysfs_listdir",
    "sysfs_readlink",
    "sysfs_exists",
    "view",
    "state",
    "profile",
    "norm_busid",
    "set_host_paths",
    "module_present",
    "apply_sysctl_defaults",
]


def _spec_dict(spec):
    if isinstance(spec, HostSpec):
        return spec.to_dict()
    return HostSpec.from_dict(spec).to_dict()


def _tx(state_dir):
    return store.transaction(state_dir)


def view(state_dir, real_sys=None, real_proc_sys_net=None, log=None):
    return KernelView(state_dir, real_sys=real_sys, real_proc_sys_net=real_proc_sys_net, log=log)


def state(state_dir):
    """A copy of the whole state (read-only use: status, tests)."""
    return store.load(state_dir)


def profile(state_dir):
    return profiles.get(store.load(state_dir)["spec"]["kernel_profile"])


def set_host_paths(state_dir, real_proc_sys_net=None):
    """Recorded by the FUSE daemon: where the host's real /proc/sys/net is (for tcp_*mem)."""
    with _tx(state_dir) as st:
        if real_proc_sys_net:
            st.setdefault("host", {})["real_proc_sys_net"] = real_proc_sys_net


def boot(state_dir, spec):
    """Fresh state of a freshly IPLed host: everything (devices, modules, sysctls, PNET table,
    statistics, faults) is discarded except the host paths the daemon recorded. Runs no hooks:
    the netdevs of the previous boot went away with the host's network namespace."""
    sd = _spec_dict(spec)
    os.makedirs(state_dir, exist_ok=True)
    with store.locked(state_dir):
        old = None
        if os.path.exists(store.state_path(state_dir)):
            try:
                old = store.load(state_dir)
            except (OSError, ValueError):
                old = None
        st = core.new_state(sd, old)
        st["_state_dir"] = state_dir
        core.boot_actions(st)
        st.pop("_state_dir", None)
        core.take_hooks()
        store.save(state_dir, st)
    return st


def apply_persistent(state_dir, host_root, real_sys=None):
    """Boot-time processing of persistent config under ``host_root``. Returns the non-emulated
    sysctls as [(key, value)] for the lab to apply with the real sysctl; the per-item failures
    are kept in state['persist']['skipped']."""
    other, _log = persist.apply(view(state_dir, real_sys=real_sys), host_root)
    return other


def apply_sysctl_defaults(state_dir, proc_sys="/proc/sys"):
    """Write the kernel profile's boot values of the sysctls under ``proc_sys`` (a host's new
    network namespace has the build machine's). At boot, before :func:`apply_persistent` (which
    may load smc: net.smc.{r,w}mem start from tcp_{r,w}mem[1] on 6.1-6.4). Returns the
    [(key, value)] written."""
    done = []
    for key, value in sorted(profile(state_dir)["sysctls"].items()):
        try:
            with open(os.path.join(proc_sys, *key.split(".")), "w", encoding="ascii") as f:
                f.write(value + "\n")
        except OSError:
            continue
        done.append((key, value))
    return done


# ---- modules ---------------------------------------------------------------------------------


def modules_loaded(state_dir):
    """[{'name', 'refcnt', 'holders', 'params', 'size'}] most recently loaded first (loadable
    modules only; built-ins are in profile(state_dir)['modules'])."""
    return core.modules_loaded(store.load(state_dir))


def load_module(state_dir, name, params=None):
    """modprobe NAME [params]: True if loaded now, False if already loaded or built in.
    Raises ModuleError(reason='not_found')."""
    with hooks.transaction(state_dir) as st:
        return core.load_module(st, name, params=params)


def unload_module(state_dir, name):
    """modprobe -r / rmmod NAME. Raises ModuleError(reason in not_found|builtin|not_loaded|in_use)."""
    with hooks.transaction(state_dir) as st:
        return core.unload_module(st, name)


def module_present(state_dir, name):
    return core.module_present(store.load(state_dir), name)


# ---- SMC -----------------------------------------------------------------------------------


def pnet_list(state_dir):
    return copy.deepcopy(store.load(state_dir)["pnet"])


def pnet_add(state_dir, pnet_id, eth=None, ib=None, port=None):
    with _tx(state_dir) as st:
        core.pnet_add(st, pnet_id, eth=eth, ib=ib, port=port)


def pnet_del(state_dir, pnet_id):
    with _tx(state_dir) as st:
        core.pnet_del(st, pnet_id)


def pnet_flush(state_dir):
    with _tx(state_dir) as st:
        core._need_smc(st)
        st["pnet"] = []


def ueid_list(state_dir):
    """The UEIDs as the kernel stores them (32 characters, blank padded), in the order added."""
    return core.ueid_list(store.load(state_dir))


def ueid_add(state_dir, ueid):
    with _tx(state_dir) as st:
        core.ueid_add(st, ueid)


def ueid_remove(state_dir, ueid):
    """Removes ``ueid``; OSError EAGAIN after the change when it was the last one."""
    eagain = None
    with _tx(state_dir) as st:
        try:
            core.ueid_remove(st, ueid)
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                raise
            eagain = exc  # raised after the transaction, which saves the change
    if eagain is not None:
        raise eagain


def ueid_flush(state_dir):
    with _tx(state_dir) as st:
        core.ueid_flush(st)


def seid_show(state_dir):
    """``(system EID, enabled)``; ``(None, None)`` on a host without an ISM device (no ISMv2)."""
    return core.seid_show(store.load(state_dir))


def seid_set(state_dir, enabled):
    with _tx(state_dir) as st:
        core.seid_set(st, enabled)


def smc_stats(state_dir, proto="SMCD"):
    """{'SMCD': {63 counters named as smcd stats json}, 'CLNT_HS_ERR_CNT', 'SRV_HS_ERR_CNT',
    'CLNT_FBACK_CNT', 'SRV_FBACK_CNT', 'FBACK_RSN': {'clnt': [[code, count]], 'srv': [...]}}"""
    proto = proto.upper()
    return copy.deepcopy(store.load(state_dir)["smc_stats"][proto])


def smc_stats_set(state_dir, proto, values):
    """Tests/drift: merge ``values`` (same layout as smc_stats, partial allowed)."""
    proto = proto.upper()
    with _tx(state_dir) as st:
        cur = st["smc_stats"][proto]
        for k, v in values.items():
            if isinstance(v, dict) and isinstance(cur.get(k), dict):
                cur[k].update(v)
            else:
                cur[k] = v


def smcd_devices(state_dir):
    return core.smcd_devices(store.load(state_dir))


def smcr_devices(state_dir):
    """RoCE RDMA devices registered with SMC-R, with their ports (see core.smcr_devices)."""
    return core.smcr_devices(store.load(state_dir))


def netdev_info(state_dir, ifname):
    """``ethtool -i`` facts of an emulated RoCE netdev (driver, firmware-version, bus-info), or
    None for any other name."""
    return core.netdev_info(store.load(state_dir), ifname)


def linkgroups(state_dir, proto="SMCD"):
    return copy.deepcopy(store.load(state_dir)["linkgroups"][proto.upper()])


def linkgroups_set(state_dir, proto, groups):
    """Tests/labs: the link groups of ``proto``. SMC-D: ``{id, vlan, conns, pnet_id, device (PCI
    address), ...}``; SMC-R: ``{id, role (CLNT|SERV), type (SINGLE|SYM|ASYMP|ASYML|NONE), vlan,
    conns, pnet_id, sndbuf, rmb, version, peer_rel, peer_host, peer_os, direct, eid, links: [{id,
    state (0-3, LINK_ACTIVE 3), conns, netdev, ib_dev, ib_port, link_uid, peer_uid, gid,
    peer_gid}]}``."""
    with _tx(state_dir) as st:
        st["linkgroups"][proto.upper()] = list(groups)


def smc_sockets(state_dir):
    return copy.deepcopy(store.load(state_dir)["smc_sockets"])


def smc_sockets_set(state_dir, sockets):
    with _tx(state_dir) as st:
        st["smc_sockets"] = list(sockets)


def smc_sysctl(state_dir):
    """Current net.smc.* values, or None when smc is not loaded."""
    return copy.deepcopy(store.load(state_dir).get("smc_sysctl"))


# ---- faults (zlab fault; records and consumption in faults.py) ------------------------------


def _fault_key(state_dir, path):
    tp = "/" + path.strip("/")
    try:
        cpath, _node = view(state_dir).resolve(tp)
        return cpath
    except OSError:
        from .vfs import tree_path

        return tree_path(tp)


def add_write_fault(state_dir, path, errno_, count=1, after=0):
    """The next ``count`` writes to ``path`` fail with ``errno_``, after ``after`` writes that
    work. ``path``: a host path of the emulated trees (e.g. /sys/devices/qeth/0.0.8200/online,
    links resolved) or of a directory zlab.fusefs.faultdir serves (taken as given). Returns the
    key."""
    key = _fault_key(state_dir, path)
    rec = faults.new_write(errno_, count=count, after=after)
    with _tx(state_dir) as st:
        faults.section(st, "write")[key] = rec
    return key


def add_tool_fault(state_dir, tool, exit_code, count=1, stderr="", after=0, sleep=0.0, half_way=False):
    """The next ``count`` runs of ``tool`` exit with ``exit_code``, after ``after`` runs that
    work normally (e.g. the second chzdev call of a module: ``after=1``). ``sleep``: seconds
    each faulty run waits first (``exit_code`` None: then it runs normally); ``half_way``: it
    does part of its work first (zlab.tools._real.HALF_WAY)."""
    rec = faults.new_tool(exit_code, count=count, stderr=stderr, after=after, sleep=sleep, half_way=half_way)
    with _tx(state_dir) as st:
        faults.section(st, "tool")[tool] = rec


def consume_tool_fault(state_dir, tool):
    """Tools call this first: returns the pending fault of ``tool`` (and consumes one run) as
    {"exit_code" (None: run normally after the sleep), "stderr", "sleep", "half_way"}, or None."""
    try:
        st0 = store.load(state_dir)
    except (OSError, ValueError):
        return None
    if tool not in st0.get("faults", {}).get("tool", {}):
        return None
    with _tx(state_dir) as st:
        return faults.take_tool(faults.section(st, "tool"), tool)


def record_service_fault(state_dir, name, argv):
    """`zlab fault HOST service NAME stop` stopped daemon ``name`` that ran as ``argv``."""
    with _tx(state_dir) as st:
        faults.section(st, "service")[name] = {"argv": list(argv)}


def forget_service_fault(state_dir, name):
    """The record of a stopped daemon (None if there is none), removed."""
    with _tx(state_dir) as st:
        return faults.section(st, "service").pop(name, None)


def pending_faults(state_dir):
    """{"write": {...}, "tool": {...}, "service": {...}, "dirs": {...}} (copies)."""
    got = store.load(state_dir).get("faults", {})
    return {k: copy.deepcopy(got.get(k, {})) for k in faults.KINDS + ("dirs",)}


def clear_faults(state_dir):
    """Remove every pending write, tool and service fault; returns them as pending_faults does
    (the directories zlab.fusefs.faultdir serves are released by ``faultdir release``)."""
    with _tx(state_dir) as st:
        out = {}
        for kind in faults.KINDS:
            out[kind] = faults.section(st, kind)
            st["faults"][kind] = {}
        return out


# ---- guests -----------------------------------------------------------------------------------


def set_pci_functions(state_dir, functions):
    """Guest start: replace the guest's PCI functions (list of HostSpec pci dicts); each appears
    configured at domain = uid and is probed (ism binds when present)."""
    with hooks.transaction(state_dir) as st:
        core.set_pci_functions(st, functions)


def set_pci_holder(state_dir, fid, holder):
    """KVM host side of pass-through: mark FID as held by guest ``holder`` (None releases).
    While held, slot power 0 and unbinding from vfio-pci fail with EBUSY. Raises ENODEV if the
    function is not configured. Returns the PCI address."""
    with _tx(state_dir) as st:
        ent = st["pci"].get(str(int(fid)))
        if ent is None or not ent["configured"] or ent["removed"]:
            raise core.oserr(core.errno.ENODEV, "FID 0x%x not configured" % int(fid))
        ent["held_by"] = holder
        return ent["addr"]


# ---- path access ------------------------------------------------------------------------------


def sysfs_read(state_dir, path, real_sys=None):
    return view(state_dir, real_sys=real_sys).read(path)


def sysfs_write(state_dir, path, data, real_sys=None):
    return view(state_dir, real_sys=real_sys).write(path, data)


def sysfs_listdir(state_dir, path, real_sys=None):
    return view(state_dir, real_sys=real_sys).listdir(path)


def sysfs_readlink(state_dir, path, real_sys=None):
    return view(state_dir, real_sys=real_sys).readlink(path)


def sysfs_exists(state_dir, path, real_sys=None):
    return view(state_dir, real_sys=real_sys).exists(path)
