#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_rnics_info
short_description: List ISM, RoCE and Network Express PCI functions with smc_rnics
version_added: 0.1.0
description:
  - Runs C(smc_rnics) (smc-tools) and returns its table as data.
  - Reads the layout of smc-tools 1.8.5 and later (PFT and VF columns) and the older layout
    without them, including values wider than their column, blank fields and functions in
    standby (O(all)). A column of a later release that the module does not know is returned in
    RV(functions[].extra) instead of failing the read.
  - Every row the tool prints is returned. RV(functions[].kind) names the function type by its zPCI
    C(pft) (C(NETH), C(NETD) for Network Express on z17, C(ROCE), C(ROC2), C(ISM), ...), never by the
    PCI id, which a Network Express VF shares with a RoCE Express3 (15b3:101e). A row whose type the
    output does not tell has the kind C(unknown) - a type smc_rnics does not name (listed with O(all)),
    a blank PFT, and with smc-tools before 1.8.5 every name but C(ISM), C(RoCE_Express) and
    C(RoCE_Express2) (a Network Express VF prints as C(Mlx_0x101e) or C(RoCE_Express3) there).
  - smc-tools from 1.8.5 until the fix in 1.8.7 list no function without O(all) when the kernel has
    no C(pft) attribute (seen with 1.8.5); the module then warns and suggests O(all), with which they
    list the functions with a blank PFT.
  - "Fails with the tool's own message when smc_rnics fails (for example C(Error: s390/s390x
    supported only))."
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes.info_module
options:
  all:
    description:
      - Include functions in standby (C(smc_rnics -a)); they have only RV(functions[].fid) and
        RV(functions[].power).
    type: bool
    default: false
  fid:
    description:
      - List only this FID (integer or hexadecimal string). The module fails when smc_rnics does
        not list it (in standby without O(all), or not a network function).
    type: raw
  raw_ids:
    description:
      - Show PCI vendor:device ids as type and the raw PFT and VF number (C(smc_rnics -r)).
    type: bool
    default: false
  ib_device:
    description:
      - List InfiniBand devices and ports instead of network interfaces (C(smc_rnics -I)).
    type: bool
    default: false
requirements:
  - smc-tools (C(smc_rnics))
seealso:
  - module: s390x.network.zpci_function
"""

EXAMPLES = r"""
- name: List ISM and RoCE functions, including those in standby
  s390x.network.smc_rnics_info:
    all: true
  register: rnics

- name: PCI address of FID 0x605
  ansible.builtin.debug:
    msg: "{{ (rnics.functions | selectattr('fid', 'equalto', 0x605) | first).pci_id }}"
"""

RETURN = r"""
functions:
  description: One entry per row of smc_rnics (a two-port RoCE Express function has two rows).
  returned: success
  type: list
  elements: dict
  contains:
    fid:
      description: Function ID.
      type: int
      sample: 1541
    power:
      description: Whether the function is configured.
      type: bool
      sample: true
    pci_id:
      description: PCI address; null in standby.
      type: str
      sample: "0605:00:00.0"
    pchid:
      description: PCHID (VCHID for ISM) as printed, 4 hex digits.
      type: str
      sample: "07c8"
    type:
      description: >-
        Device type as printed (C(ISM), C(RoCE_Express2), C(Network_Express) ...; vendor:device with O(raw_ids)
        and for types smc_rnics does not name); null when blank.
      type: str
      sample: Network_Express
    pft:
      description: >-
        The zPCI PCI function type (the kernel's C(pft)) the row shows, from the PFT column (C(ROC) 0x02,
        C(ISM) 0x05, C(ROC2) 0x0a, C(NETH) 0x0c, C(NETD) 0x0f, or the raw C(0x..)); with the older layout
        from the type names only one function type has (C(ISM), C(RoCE_Express), C(RoCE_Express2)); null
        when the output does not tell.
      type: int
      sample: 12
    kind:
      description: >-
        The function type named by RV(functions[].pft) (C(ROCE), C(ISM), C(ROC2), C(NVMe), C(NETH), C(CNW),
        C(NETD)), or C(unknown).
      type: str
      sample: NETH
    vf:
      description: Whether the function is a virtual function; null when not shown.
      type: bool
      sample: true
    vfn:
      description: Virtual function number where smc_rnics prints it (O(raw_ids)), else null.
      type: int
    port:
      description: Physical port (IB port with O(ib_device)); null for C(n/a).
      type: int
    pnet_id:
      description: PNET ID without the C(*) suffix; null for C(n/a) (non-native ISMv2).
      type: str
    pnet_id_user_set:
      description: The PNET ID was set by the user with smc_pnet (C(*) suffix).
      type: bool
    net_device:
      description: Network interface; null for C(n/a) or blank.
      type: str
    ib_device:
      description: InfiniBand device (O(ib_device)).
      type: str
    extra:
      description: Columns of a later smc-tools release the module does not know, by lower-cased header name.
      type: dict
      returned: when the header has such a column
layout:
  description: The table layout read (C(v1.8.5), C(v1.8.4) or C(generic) for an unknown header).
  returned: success
  type: str
  sample: v1.8.5
cmd:
  description: The command that ran.
  returned: success
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.s390x.network.plugins.module_utils.smc.rnics import (
    SMC_RNICS,
    SmcRnicsError,
    build_argv,
    error_message,
    parse,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import parse_fid


def main():
    module = AnsibleModule(
        argument_spec=dict(
            all=dict(type='bool', default=False),
            fid=dict(type='raw'),
            raw_ids=dict(type='bool', default=False),
            ib_device=dict(type='bool', default=False),
        ),
        supports_check_mode=True,
    )
    fid = None
    if module.params['fid'] is not None:
        try:
            fid = parse_fid(module.params['fid'])
        except ValueError as exc:
            module.fail_json(msg='fid: %s' % to_native(exc))
    binary = module.get_bin_path(SMC_RNICS, opt_dirs=['/usr/sbin', '/sbin'])
    if not binary:
        module.fail_json(msg='smc_rnics not found: install smc-tools')
    argv = build_argv(
        binary,
        all_functions=module.params['all'],
        raw_ids=module.params['raw_ids'],
        ib_device=module.params['ib_device'],
        fid=fid,
    )
    rc, out, err = module.run_command(argv, environ_update={"LC_ALL": "C"})
    if rc != 0:
        module.fail_json(msg=error_message(rc, out, err, fid), rc=rc, stdout=out, stderr=err, cmd=argv)
    try:
        layout, functions = parse(out)
    except SmcRnicsError as exc:
        module.fail_json(msg=to_native(exc), stdout=out, stderr=err, cmd=argv)
    if err and err.strip():
        module.warn('smc_rnics: %s' % err.strip())
        if 'pft' in err and not functions and not module.params['all']:
            module.warn(
                'smc_rnics could not read the pft attribute and listed no function (smc-tools 1.8.5 until 1.8.7; '
                'fixed in 1.8.7): with all=true it lists them with a blank PFT'
            )
    module.exit_json(changed=False, functions=functions, layout=layout, cmd=argv)


if __name__ == '__main__':
    main()
