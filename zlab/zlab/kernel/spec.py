# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""HostSpec: what the lab tells the kernel about a host (see docs/contributing.md, "Kernel internals")."""

import re

from .. import profiles

_BUSID = re.compile(r"^([0-9a-f]{1,2})\.([0-9a-f])\.([0-9a-f]{4})$")
FRAME_SIZES = ("16K", "24K", "40K", "64K")
CHPID_TYPES = ("IQD", "OSD", "OSX", "OSM")
PCI_TYPES = ("ism", "roce", "roce2", "roce3", "neth", "netd")
# PCI vendor, device and function type (PFT) per kind of function: ISM (IBM 1014:04ed); RoCE Express
# (a ConnectX-3 VF, mlx4: 15b3:1004, PFT 0x02 ROCE, one FID for both ports); RoCE Express2 (a
# ConnectX-4 Lx VF, mlx5: 15b3:1016) and RoCE Express3 (the mlx5 "ConnectX Family mlx5Gen" VF
# 15b3:101e), both PFT 0x0a ROC2 with one FID per port. Device ids: the kernel's mlx4/mlx5 PCI id
# tables and smc-tools dev.c (MASK_ROCE_V1/V2/V3_HEX). Network Express (z17): mlx5 functions of
# PFT 0x0c NETH (hybrid mode) and 0x0f NETD (direct mode); a VF shows 15b3:101e like RoCE Express3,
# so only the PFT tells them apart. A NETD physical function (``sriov_totalvfs`` set) shows the
# ConnectX-6 Dx PF id 15b3:101d of the mlx5 id table (the lab's choice: the sources name the VF id only).
PCI_IDS = {
    "ism": (0x1014, 0x04ED, 0x05),
    "roce": (0x15B3, 0x1004, 0x02),
    "roce2": (0x15B3, 0x1016, 0x0A),
    "roce3": (0x15B3, 0x101E, 0x0A),
    "neth": (0x15B3, 0x101E, 0x0C),
    "netd": (0x15B3, 0x101E, 0x0F),
}
NETD_PF_DEVICE = 0x101D
NETWORK_EXPRESS = ("neth", "netd")
ROLES = ("lpar", "kvm_host", "guest")


def norm_busid(devno):
    """'8200', '0.0.8200', '0.0.820A' -> '0.0.820a'; ValueError otherwise."""
    s = str(devno).strip().lower()
    if re.match(r"^[0-9a-f]{1,4}$", s):
        s = "0.0." + s.zfill(4)
    m = _BUSID.match(s)
    if not m:
        raise ValueError("invalid CCW device number %r" % (devno,))
    return "%x.%x.%04x" % (int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))


def busid_devno(busid):
    return int(busid.split(".")[2], 16)


class HostSpec:
    """Validated host description. ``to_dict`` returns the normalised form stored in kernel.json."""

    def __init__(self, d):
        self.d = self._validate(d)

    @classmethod
    def from_dict(cls, d):
        return cls(d)

    def to_dict(self):
        return self.d

    def __getattr__(self, name):
        try:
            return self.__dict__["d"][name]
        except KeyError:
            raise AttributeError(name)

    @staticmethod
    def _validate(d):
        if not isinstance(d, dict):
            raise ValueError("host spec must be a dict")
        name = d.get("name")
        if not name:
            raise ValueError("host spec: name is required")
        prof = d.get("kernel_profile", "rhel8.8")
        if prof not in profiles.PROFILES:
            raise ValueError(
                "host spec %s: kernel_profile %r not one of %s" % (name, prof, ", ".join(sorted(profiles.PROFILES)))
            )
        role = d.get("role", "lpar")
        if role not in ROLES:
            raise ValueError("host spec %s: role %r not one of %s" % (name, role, ", ".join(ROLES)))
        out = {
            "name": name,
            "partition": d.get("partition") or name.upper(),
            "role": role,
            "kernel_profile": prof,
            "uid_checking": bool(d.get("uid_checking", False)),
            "ccw": [],
            "pci": [],
            # kernel parameter cio_ignore= (None: not set)
            "cio_ignore": str(d["cio_ignore"]) if d.get("cio_ignore") not in (None, "") else None,
            # /proc/sysinfo: the CPC (name, machine z15|z16|z17), the partition's number, and
            # of a KVM guest its domain's vCPUs and UUID
            "cpc": {
                "name": str((d.get("cpc") or {}).get("name") or "ZLAB"),
                "machine": str((d.get("cpc") or {}).get("machine") or "z16").lower(),
            },
            "lpar_number": int(d.get("lpar_number") or 1),
        }
        if role == "guest":
            out["vcpus"] = int(d.get("vcpus") or 2)
            out["uuid"] = d.get("uuid")
        seen = set()
        for c in d.get("ccw") or []:
            busid = norm_busid(c["devno"])
            if busid in seen:
                raise ValueError("host spec %s: duplicate ccw device %s" % (name, busid))
            seen.add(busid)
            ctype = str(c.get("chpid_type", "IQD")).upper()
            if ctype not in CHPID_TYPES:
                raise ValueError("host spec %s: chpid_type %r not one of %s" % (name, ctype, ", ".join(CHPID_TYPES)))
            fs = str(c.get("frame_size", "16K")).upper()
            if fs not in FRAME_SIZES:
                raise ValueError("host spec %s: frame_size %r not one of %s" % (name, fs, ", ".join(FRAME_SIZES)))
            chpid = "%02X" % int(str(c.get("chpid", "00")), 16)
            cpnet = c.get("pnet_id")
            if cpnet and (len(cpnet) > 16 or not re.match(r"^[A-Za-z0-9]+$", cpnet)):
                raise ValueError("host spec %s: PNET ID %r must be 1-16 alphanumerics" % (name, cpnet))
            out["ccw"].append(
                {
                    "devno": busid,
                    "chpid": chpid,
                    "chpid_type": ctype,
                    "frame_size": fs,
                    "ports": int(c.get("ports", 1)),
                    "card_type": c.get("card_type"),
                    "layer_enforced": c.get("layer_enforced"),
                    # the CHPID's PNET ID from the IOCDS (chp util_string), None without one
                    "pnet_id": cpnet.upper() if cpnet else None,
                }
            )
        fids = set()
        for p in d.get("pci") or []:
            fid = int(p["fid"])
            if fid in fids:
                raise ValueError("host spec %s: duplicate FID 0x%x" % (name, fid))
            fids.add(fid)
            ptype = str(p.get("type", "ism")).lower()
            if ptype not in PCI_TYPES:
                raise ValueError("host spec %s: pci type %r not one of %s" % (name, ptype, ", ".join(PCI_TYPES)))
            dv, dd, pft = PCI_IDS[ptype]
            total = p.get("sriov_totalvfs")
            if total is not None and ptype != "netd":
                raise ValueError("host spec %s: FID 0x%x: sriov_totalvfs is for a netd PF, not %s" % (name, fid, ptype))
            if total is not None:
                dd = NETD_PF_DEVICE
            pf = p.get("pf")
            if pf is not None and (ptype != "netd" or not int(p.get("vfn", 0))):
                raise ValueError("host spec %s: FID 0x%x: pf names the PF of a netd VF (vfn 1 or more)" % (name, fid))
            pnet = p.get("pnet_id")
            pnets = p.get("pnet_ids")
            if pnets is None:
                pnets = [pnet] if pnet else []
            for pid in pnets:
                if pid and (len(pid) > 16 or not re.match(r"^[A-Za-z0-9]+$", pid)):
                    raise ValueError("host spec %s: PNET ID %r must be 1-16 alphanumerics" % (name, pid))
            out["pci"].append(
                {
                    "fid": fid,
                    "uid": int(p.get("uid", fid)),
                    "pchid": int(p.get("pchid", 0)),
                    "pft": int(p.get("pft", pft)),
                    "vfn": int(p.get("vfn", 0)),
                    "port": int(p.get("port", 0 if ptype == "ism" else 1)),
                    "pnet_ids": [x.upper() for x in pnets if x],
                    "vendor": int(p.get("vendor", dv)),
                    "device": int(p.get("device", dd)),
                    "type": ptype,
                    "pfgid": int(p.get("pfgid", 0)),
                    "state": p.get("state", "standby"),
                    "num_vfs": int(p.get("num_vfs", 0)),
                    # Network Express: fidparm (Linux 6.13+ shows it; 0x01 on NETH: promiscuous mode),
                    # the VF count a NETD PF offers, and the FID of a VF's PF in this partition
                    "fidparm": int(p.get("fidparm") or 0),
                    "sriov_totalvfs": None if total is None else int(total),
                    "pf": None if pf is None else int(pf),
                }
            )
        for p in out["pci"]:
            if p["pf"] is not None and not any(q["fid"] == p["pf"] and q["sriov_totalvfs"] for q in out["pci"]):
                raise ValueError(
                    "host spec %s: FID 0x%x: pf 0x%x is no netd PF of this host" % (name, p["fid"], p["pf"])
                )
        return out
