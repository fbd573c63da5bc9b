# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""KVM guests: a guest's devices follow its KVM host's persistent domain XML at every start.

At ``zlab start-guest G`` / ``zlab reboot G`` (and at ``up``) the lab reads
``virsh dumpxml --inactive G`` on the KVM host, the way a guest start would:

- every ``<hostdev mode='subsystem' type='pci'>`` whose source function exists on the host (its
  slot powered on) and, unless ``managed='yes'``, is bound to ``vfio-pci`` appears in the guest at
  PCI domain = ``<zpci uid>``, function_id = ``<zpci fid>``, with the host function's VCHID/PCHID,
  PFT, VF number and PNET ID (``zlab.kernel.set_pci_functions``). ``managed='yes'`` functions are
  bound to vfio-pci on the host for the guest's lifetime (and rebound to their driver when the
  guest stops), as libvirt does.
- every ``<interface type='direct'>`` becomes a virtio-net netdev in the guest (named
  ``enc<ccw devno>`` as on s390, e.g. ``enc1``) attached to the bridge of the source netdev's
  CHPID, or for a Network Express source to its port's segment, with the domain's MAC address.

Mismatches fail the start with libvirt's messages and leave the guest shut off.
"""

import json
import re
import xml.etree.ElementTree as ET

from . import kernel, network
from .kernel.spec import NETWORK_EXPRESS
from .errors import LabError

# Read every referenced function on the KVM host in one exec: "ADDR present fid driver".
PROBE = r"""
for a in "$@"; do
  d=/sys/bus/pci/devices/$a
  if [ -e "$d" ]; then
    fid=$(cat "$d/function_id" 2>/dev/null || echo -)
    drv=$(basename "$(readlink "$d/driver" 2>/dev/null)" 2>/dev/null)
    echo "$a 1 $fid ${drv:--}"
  else
    echo "$a 0 - -"
  fi
done
"""

DETACH = r"""
a="$1"; d=/sys/bus/pci/devices/$a
modprobe vfio-pci 2>/dev/null || true
echo vfio-pci > "$d/driver_override"
if [ -e "$d/driver" ]; then echo "$a" > "$d/driver/unbind"; fi
echo "$a" > /sys/bus/pci/drivers_probe
"""

REATTACH = r"""
a="$1"; d=/sys/bus/pci/devices/$a
[ -e "$d" ] || exit 0
if [ -e "$d/driver" ]; then echo "$a" > "$d/driver/unbind"; fi
echo > "$d/driver_override"
echo "$a" > /sys/bus/pci/drivers_probe
"""


class StartError(LabError):
    pass


def _hex(value, default=None):
    if value is None:
        return default
    return int(value, 16) if value.lower().startswith("0x") else int(value)


def parse_domain(xml_text):
    """Hostdevs and direct interfaces of a domain XML."""
    root = ET.fromstring(xml_text)
    hostdevs, nics = [], []
    used_uids, used_fids = set(), set()
    for hd in root.findall("./devices/hostdev"):
        if hd.get("mode") != "subsystem" or hd.get("type") != "pci":
            continue
        src = hd.find("./source/address")
        if src is None:
            continue
        addr = "%04x:%02x:%02x.%x" % (
            _hex(src.get("domain"), 0),
            _hex(src.get("bus"), 0),
            _hex(src.get("slot"), 0),
            _hex(src.get("function"), 0),
        )
        zpci = hd.find("./address/zpci")
        uid = _hex(zpci.get("uid")) if zpci is not None else None
        fid = _hex(zpci.get("fid")) if zpci is not None else None
        hostdevs.append({"addr": addr, "managed": hd.get("managed") == "yes", "uid": uid, "fid": fid})
        if uid is not None:
            used_uids.add(uid)
        if fid is not None:
            used_fids.add(fid)
    # libvirt assigns missing zpci ids (uid from 1, fid from 0)
    for hd in hostdevs:
        if hd["uid"] is None:
            hd["uid"] = next(i for i in range(1, 0x10000) if i not in used_uids)
            used_uids.add(hd["uid"])
        if hd["fid"] is None:
            hd["fid"] = next(i for i in range(0, 0x10000) if i not in used_fids)
            used_fids.add(hd["fid"])
    devnos = set()
    for iface in root.findall("./devices/interface"):
        a = iface.find("./address[@type='ccw']")
        if a is not None and a.get("devno"):
            devnos.add(_hex(a.get("devno")))
    for iface in root.findall("./devices/interface"):
        if iface.get("type") != "direct":
            continue
        src = iface.find("./source")
        mac = iface.find("./mac")
        a = iface.find("./address[@type='ccw']")
        if a is not None and a.get("devno"):
            devno = _hex(a.get("devno"))
        else:
            devno = next(i for i in range(1, 0x10000) if i not in devnos)
            devnos.add(devno)
        nics.append(
            {
                "source": src.get("dev") if src is not None else None,
                "mode": src.get("mode", "vepa") if src is not None else None,
                "mac": mac.get("address") if mac is not None else None,
                "ifname": "enc%x" % devno,
            }
        )
    return hostdevs, nics


def _host_functions(lab, kvm_host, addrs):
    out = {}
    if not addrs:
        return out
    proc = lab.exec(kvm_host, ["/bin/sh", "-c", PROBE, "probe"] + addrs)
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            out[parts[0]] = {
                "present": parts[1] == "1",
                "fid": None if parts[2] == "-" else int(parts[2], 16),
                "driver": None if parts[3] == "-" else parts[3],
            }
    return out


def _source_chpid(lab, kvm_host, dev):
    """CHPID of the KVM host's netdev ``enc<devno>`` (a qeth device of its partition)."""
    m = re.fullmatch(r"enc([0-9a-f]{1,4})", dev or "")
    if not m:
        return None
    devno = int(m.group(1), 16)
    for c in lab.hosts[kvm_host]["spec"]["ccw"]:
        if int(c["devno"].split(".")[-1], 16) == devno:
            return c["chpid"]
    return None


def _source_port(lab, kvm_host, dev):
    """PCHID of the Network Express function whose netdev is the KVM host's ``dev`` (``eno<UID>``
    with UID checking, else ``ens<FID>``, as the kernel names it), or None."""
    spec = lab.hosts[kvm_host]["spec"]
    m = re.fullmatch(r"(eno|ens)([1-9][0-9]*)", dev or "")
    if not m or (m.group(1) == "eno") != bool(spec.get("uid_checking")):
        return None
    for p in spec["pci"]:
        if p["type"] in NETWORK_EXPRESS and p["uid" if m.group(1) == "eno" else "fid"] == int(m.group(2)):
            return p["pchid"]
    return None


def holders(lab, kvm_host):
    """addr -> guest for functions held by running guests of this KVM host."""
    out = {}
    for g in lab.hosts[kvm_host].get("guests") or []:
        if lab.running(g):
            for held in lab.hosts[g].get("held") or []:
                out[held["addr"]] = g
    return out


def plan(lab, guest):
    """Derive the guest's PCI functions and NICs; raises StartError like libvirt would."""
    h = lab.host(guest)
    if h["role"] != "guest":
        raise LabError("%s is not a KVM guest" % guest)
    kvm = h["kvm_host"]
    fail = "error: Failed to start domain '%s'\nerror: " % guest
    if not lab.running(kvm):
        raise StartError(fail + "failed to connect to the hypervisor (%s is down)" % kvm)
    proc = lab.exec(kvm, ["virsh", "-q", "dumpxml", "--inactive", guest])
    if proc.returncode != 0:
        raise StartError(fail + (proc.stderr.strip().replace("error: ", "", 1) or "failed to get domain '%s'" % guest))
    hostdevs, nics = parse_domain(proc.stdout)
    funcs = _host_functions(lab, kvm, [d["addr"] for d in hostdevs])
    held_by = holders(lab, kvm)
    host_pci = {p["fid"]: p for p in lab.hosts[kvm]["spec"]["pci"]}
    pci, held = [], []
    for d in hostdevs:
        f = funcs.get(d["addr"], {"present": False})
        if not f["present"]:
            raise StartError(
                fail + "internal error: Device %s not found: could not access "
                "/sys/bus/pci/devices/%s/config: No such file or directory" % (d["addr"], d["addr"])
            )
        other = held_by.get(d["addr"])
        if other and other != guest:
            raise StartError(
                fail + "Requested operation is not valid: PCI device %s is in use "
                "by driver QEMU, domain %s" % (d["addr"], other)
            )
        if not d["managed"] and f["driver"] != "vfio-pci":
            raise StartError(
                fail + "Requested operation is not valid: Unmanaged PCI device %s "
                "must be manually detached from the host" % d["addr"]
            )
        src = host_pci.get(f["fid"])
        if src is None:
            raise StartError(
                fail + "internal error: zlab: host function %s (FID %s) is not "
                "in the CPC model" % (d["addr"], f["fid"])
            )
        entry = dict(src, fid=d["fid"], uid=d["uid"])
        pci.append(entry)
        held.append({"addr": d["addr"], "managed": d["managed"], "driver": f["driver"], "fid": f["fid"]})
    for n in nics:
        chpid = _source_chpid(lab, kvm, n["source"])
        pchid = None if chpid else _source_port(lab, kvm, n["source"])
        probe = lab.exec(kvm, ["ip", "link", "show", n["source"] or "-"])
        if probe.returncode != 0:
            raise StartError(fail + "Cannot get interface MTU on '%s': No such device" % n["source"])
        if chpid is None and pchid is None:
            raise StartError(
                fail + "internal error: zlab: macvtap source '%s' is not a qeth "
                "(HiperSockets/OSA) or Network Express netdev of %s" % (n["source"], kvm)
            )
        n["chpid"] = chpid
        n["pchid"] = pchid
        if chpid:
            n["bridge"] = network.bridge_name(chpid)
            n["mtu"] = lab.data["chpids"].get(chpid, {}).get("mtu", 1500)
        else:
            n["bridge"] = network.pchid_bridge(pchid)
            n["mtu"] = 1500
    return pci, nics, held


def hold(lab, kvm, held, guest):
    """The KVM host's kernel side of pass-through: QEMU has the functions open (vfio-pci's unbind
    and slot power 0 fail with EBUSY, ``enable`` reads 1) while the guest runs."""
    if not lab.data["emulator"] or not lab.running(kvm):
        return
    for item in held:
        try:
            kernel.set_pci_holder(lab.state_dir(kvm), item["fid"], guest)
        except (OSError, KeyError):
            pass  # the function went away (KVM host rebooted: state rebuilt without holders)


def release(lab, guest):
    """Give managed hostdevs back to the host's driver (guest stopped)."""
    h = lab.hosts[guest]
    kvm = h["kvm_host"]
    hold(lab, kvm, h.get("held") or [], None)
    for held in h.get("held") or []:
        if held.get("managed") and lab.running(kvm):
            lab.exec(kvm, ["/bin/sh", "-c", REATTACH, "reattach", held["addr"]])
    h["held"] = []
    h["held_pci"] = []
    h["nics"] = []
    lab.save()


def stop(lab, guest):
    if lab.running(guest):
        lab.stop_host(guest)
    release(lab, guest)


def start(lab, guest, derive=True):
    """Start a guest as its KVM host's domain XML says (derive=False: base devices only)."""
    h = lab.host(guest)
    if lab.running(guest):
        # not libvirt's "domain is already running": `zlab up` starts every guest (base devices
        # only), so this is what a start right after `up` meets
        raise LabError(
            "%s is already running (zlab up starts every guest, with its base devices "
            "only); zlab stop-guest %s first, or zlab reboot %s to restart it with the "
            "devices of its domain XML" % (guest, guest, guest)
        )
    pci, nics, held = plan(lab, guest) if derive else ([], [], [])
    kvm = h["kvm_host"]
    for item in held:
        if item["managed"] and item["driver"] != "vfio-pci":
            r = lab.exec(kvm, ["/bin/sh", "-c", DETACH, "detach", item["addr"]])
            if r.returncode != 0:
                raise StartError(
                    "error: Failed to start domain '%s'\nerror: internal error: "
                    "Failed to bind PCI device '%s' to vfio-pci: %s" % (guest, item["addr"], r.stderr.strip())
                )
    h["held"] = held
    hold(lab, kvm, held, guest)
    h["held_pci"] = pci
    h["nics"] = nics
    spec = dict(h["spec"], pci=[])

    def wire():
        kernel_pci(lab, guest, pci)
        for n in nics:
            network.add_guest_nic(lab.name, h["netns"], h["index"], n["ifname"], n["bridge"], n["mac"], n["mtu"])

    lab.start_host(guest, spec=spec, before_init=wire)
    lab.wait_ready([guest])
    return {"pci": pci, "nics": nics}


def kernel_pci(lab, guest, pci):
    if not lab.data["emulator"]:
        return
    kernel.set_pci_functions(lab.state_dir(guest), pci)


def restart(lab, guest):
    stop(lab, guest)
    return start(lab, guest)


def describe(result):
    return json.dumps(result, indent=1, sort_keys=True)
