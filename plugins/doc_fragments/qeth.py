# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """Requirements and notes shared by the qeth modules."""

    DOCUMENTATION = r"""
options: {}
requirements:
  - Linux on IBM Z or LinuxONE (s390x), or a host that emulates its sysfs interfaces.
  - The C(qeth) device driver.
  - C(chzdev) and C(lszdev) from s390-tools (package C(s390utils-base) on Red Hat Enterprise Linux,
    C(s390-tools) on SUSE Linux Enterprise Server and Ubuntu), where the module changes devices.
notes:
  - A qeth group device is named by its three CCW device numbers (read, write, data), for example
    C(0.0.8200:0.0.8201:0.0.8202); its bus ID is the read device C(0.0.8200). A single device number
    is completed to the group the way C(chzdev) does it (consecutive read/write devices on the same
    CHPID).
  - The active configuration is read from C(/sys/bus/ccwgroup/drivers/qeth) and
    C(/sys/devices/qeth/<busid>); the persistent configuration from the udev rules that C(chzdev)
    writes, C(/etc/udev/rules.d/41-qeth-<busid>.rules).
"""
