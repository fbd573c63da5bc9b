# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the active configuration of qeth devices from sysfs (read-only; chzdev does the writing).

Layout (kernel drivers/s390/cio/ccwgroup.c, drivers/s390/net/qeth_core_*.c):
- ``/sys/bus/ccwgroup/drivers/qeth/<busid>``: group devices bound to qeth (links to
  ``/sys/devices/qeth/<busid>``), with ``online``, ``state``, ``card_type``, ``chpid``, ``layer2``,
  ``buffer_count``, ``portno``, ``isolation``, ``inbuf_size``, ``if_name``, links ``cdev0..2``
  and ``net/<ifname>`` while online.
- ``/sys/bus/ccw/drivers/qeth/<ccwid>``: CCW devices bound to the qeth CCW driver; each CCW device
  ``/sys/bus/ccw/devices/<ccwid>`` has ``cutype``, ``devtype``, ``group_device`` once grouped, and its
  subchannel's ``chpids`` one directory up.

``SysfsReader`` reads below the host root (``host_files.path``): unit tests point that root at a
fake tree; modules have no option for it.
"""

import os
import re

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import CcwInfo, ccw_sort_key

# if_name of a qeth device that never was online: its netdev has no name yet
UNNAMED_NETDEV = "(unnamed net_device)"

_CCW_NAME = re.compile(r"[0-9a-f]{1,2}\.[0-3]\.[0-9a-f]{4}")

# Files read for every group device, beyond the extra attributes a caller asks for.
BASE_FILES = (
    "online",
    "state",
    "card_type",
    "chpid",
    "layer2",
    "buffer_count",
    "portno",
    "isolation",
    "inbuf_size",
    "if_name",
)


class SysfsReader(object):
    def __init__(self):
        self._ungrouped = None

    def forget(self):
        """Drop cached reads (call after something changed the devices)."""
        self._ungrouped = None

    # -- helpers -------------------------------------------------------------------------
    @staticmethod
    def host_path(*parts):
        """``/sys/<parts>`` as a host path (what ``kernel_write`` and messages take)."""
        return "/".join(("/sys",) + parts)

    def path(self, *parts):
        """``/sys/<parts>`` below the host root, for reading."""
        return host_files.path(self.host_path(*parts))

    @staticmethod
    def read_text(path, dir_fd=None):
        """Contents without the trailing newline, or None when the file cannot be read. ``path``
        is relative to the open directory ``dir_fd`` when one is given (one path walk for all of a
        device's attributes)."""
        # not host_files.read_attr: any attribute a caller names is read, and one the card does not
        # offer fails with its own errno (EOPNOTSUPP, EPERM ...); it is then not there
        try:
            return host_files.read_kernel_file(path, dir_fd).decode("utf-8").rstrip("\n")
        except (IOError, OSError, UnicodeDecodeError):
            return None

    @staticmethod
    def _listdir(path):
        try:
            return os.listdir(path)
        except (IOError, OSError):
            return []

    # -- group devices -------------------------------------------------------------------
    def group_busids(self):
        """Bus IDs of all qeth group devices, sorted."""
        names = [n for n in self._listdir(self.path("bus", "ccwgroup", "drivers", "qeth")) if _CCW_NAME.fullmatch(n)]
        if not names:
            names = [n for n in self._listdir(self.path("devices", "qeth")) if _CCW_NAME.fullmatch(n)]
        return sorted(set(names), key=ccw_sort_key)

    def _group_dirs(self, busid):
        return (
            self.path("bus", "ccwgroup", "devices", busid),
            self.path("devices", "qeth", busid),
            self.path("bus", "ccwgroup", "drivers", "qeth", busid),
        )

    def read_group(self, busid, extra_names=()):
        """Active state of one group device as raw strings, or None when it does not exist."""
        for directory in self._group_dirs(busid):
            try:
                dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            except (IOError, OSError):
                continue
            try:
                return self._read_group_at(busid, directory, dir_fd, extra_names)
            finally:
                os.close(dir_fd)
        return None

    def _read_group_at(self, busid, directory, dir_fd, extra_names):
        data = {"busid": busid}
        for name in BASE_FILES:
            data[name] = self.read_text(name, dir_fd)
        cdevs = []
        for index in range(3):
            try:
                cdevs.append(os.path.basename(os.readlink("cdev%d" % index, dir_fd=dir_fd)))
            except (IOError, OSError):
                cdevs.append(None)
        data["cdevs"] = cdevs
        # A device that never was online has a netdev without a name yet: the kernel prints
        # "(unnamed net_device)" (older kernels: nothing).
        if data["if_name"] == UNNAMED_NETDEV:
            data["if_name"] = None
        if not data["if_name"]:
            netdirs = sorted(self._listdir(os.path.join(directory, "net")))
            data["if_name"] = netdirs[0] if netdirs else None
        extras = {}
        for name in extra_names:
            extras[name] = self.read_text(name, dir_fd)
        data["extra"] = extras
        return data

    # -- CCW devices ---------------------------------------------------------------------
    def ccw_dir(self, ccwid):
        candidate = self.path("bus", "ccw", "devices", ccwid)
        return candidate if os.path.isdir(candidate) else None

    def group_of_ccw(self, ccwid):
        """Bus ID of the group a CCW device belongs to, or None."""
        directory = self.ccw_dir(ccwid)
        if directory is None:
            return None
        try:
            return os.path.basename(os.readlink(os.path.join(directory, "group_device")))
        except (IOError, OSError):
            return None

    def qeth_ccw_ids(self):
        """All CCW devices bound to the qeth CCW driver (grouped or not), sorted."""
        names = [n for n in self._listdir(self.path("bus", "ccw", "drivers", "qeth")) if _CCW_NAME.fullmatch(n)]
        return sorted(set(names), key=ccw_sort_key)

    def ccw_info(self, ccwid):
        directory = self.ccw_dir(ccwid)
        if directory is None:
            return None
        chpids = self.read_text(os.path.join(directory, "..", "chpids")) or ""
        pim = (self.read_text(os.path.join(directory, "..", "pimpampom")) or "").split(" ", 1)[0]
        return CcwInfo(
            ccwid,
            chpids=("%s/%s" % (pim, " ".join(chpids.split()))).lower(),
            cutype=(self.read_text(os.path.join(directory, "cutype")) or "").lower(),
            devtype=(self.read_text(os.path.join(directory, "devtype")) or "").lower(),
        )

    def ungrouped_qeth_ccw(self):
        """CcwInfo for every CCW device bound to the qeth CCW driver that is not grouped yet.

        Read once per reader (ID completion asks for every device of a task); ``forget()`` drops it.
        """
        if self._ungrouped is not None:
            return list(self._ungrouped)
        infos = []
        for ccwid in self.qeth_ccw_ids():
            directory = self.ccw_dir(ccwid)
            if directory is None or os.path.lexists(os.path.join(directory, "group_device")):
                continue
            info = self.ccw_info(ccwid)
            if info is not None:
                infos.append(info)
        self._ungrouped = infos
        return list(infos)

    # -- network interfaces --------------------------------------------------------------
    def netdev_uppers(self, ifname):
        """Names of the upper devices stacked on a network interface (macvtap, vlan, bond...)."""
        if not ifname:
            return []
        entries = self._listdir(self.path("class", "net", ifname))
        return sorted(e[len("upper_") :] for e in entries if e.startswith("upper_"))

    def is_macvtap(self, ifname):
        entries = self._listdir(self.path("class", "net", ifname))
        return "macvtap" in entries or ifname.startswith("macvtap")
