# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kvm_guest_network role honours check mode.

Runs the role's tasks/main.yml with the real ansible-playbook on localhost, with stand-ins for
``s390x.network.libvirt_device`` and ``s390x.network.ip_promisc`` in a private collection tree
that record whether they ran in check mode (ip_promisc also its arguments). Regression: the role's
module task had ``check_mode: "{{ not kvm_guest_network_apply }}"``, which is ``false`` by default
and so overrode a play's ``check_mode: true`` (and ``--check``): a check run changed the guests.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROLE = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'roles', 'kvm_guest_network'))

STUB_MODULE = textwrap.dedent('''\
    #!/usr/bin/python
    from ansible.module_utils.basic import AnsibleModule

    def main():
        module = AnsibleModule(argument_spec=dict(
            domain=dict(type='str', required=True), uri=dict(type='str'), state=dict(type='str'),
            live=dict(type='str'), hostdevs=dict(type='list', elements='dict'),
            interfaces=dict(type='list', elements='dict'), record=dict(type='str')),
            supports_check_mode=True)
        with open(module.params['record'], 'a') as handle:
            handle.write('%s %s\\n' % (module.params['domain'], module.check_mode))
        module.exit_json(changed=True, changed_devices=[{'action': 'attach'}], domain_active=False)

    main()
    ''')

STUB_PROMISC = textwrap.dedent('''\
    #!/usr/bin/python
    from ansible.module_utils.basic import AnsibleModule

    def main():
        module = AnsibleModule(argument_spec=dict(
            interfaces=dict(type='list', elements='str'), function_types=dict(type='list', elements='str'),
            state=dict(type='str'), record=dict(type='str')), supports_check_mode=True)
        with open(module.params['record'], 'a') as handle:
            handle.write('promisc %s %s %s\\n' % (','.join(module.params['interfaces']),
                         ','.join(module.params['function_types']), module.check_mode))
        module.exit_json(changed=False, drift=[])

    main()
    ''')

CASES = [
    # (play check_mode, kvm_guest_network_apply, check mode the module must see)
    (False, True, 'False'),  # the normal run changes the guests
    (True, True, 'True'),  # a check run must not (the regression)
    (False, False, 'True'),  # kvm_guest_network_apply false: report only
    (True, False, 'True'),
]

PLAY = textwrap.dedent('''\
    - name: play {name}
      hosts: localhost
      connection: local
      gather_facts: false
      check_mode: {play_check}
      vars:
        kvm_guests:
          - {{name: g1, macvtap: [{{source: eno4}}, {{source: enc8200}}]}}
          - {{name: g2, macvtap: [{{source: eno4}}]}}
          - {{name: g3, state: deleted, macvtap: [{{source: eno5}}]}}
        kvm_guest_network_apply: {apply}
      module_defaults:
        s390x.network.libvirt_device:
          record: "{{{{ record_dir }}}}/{name}"
        s390x.network.ip_promisc:
          record: "{{{{ record_dir }}}}/{name}"
      tasks:
        - name: The role
          ansible.builtin.import_role:
            name: s390x.network.kvm_guest_network

        - name: Save the registered result
          ansible.builtin.copy:
            content: "{{{{ kvm_guest_network_result | to_json }}}}"
            dest: "{{{{ record_dir }}}}/{name}.result"
            mode: "0600"
          check_mode: false
    ''')


def case_name(play_check, apply):
    return 'check-%s-apply-%s' % (play_check, apply)


def run_cases(root):
    """Runs every case (one ansible-playbook run, one play per case, so one worker pays for it)."""
    coll = root / 'ansible_collections' / 's390x' / 'network'
    (coll / 'plugins' / 'modules').mkdir(parents=True)
    (coll / 'roles').mkdir()
    (coll / 'galaxy.yml').write_text('namespace: s390x\nname: network\nversion: 0.0.1\n')
    (coll / 'plugins' / 'modules' / 'libvirt_device.py').write_text(STUB_MODULE)
    (coll / 'plugins' / 'modules' / 'ip_promisc.py').write_text(STUB_PROMISC)
    os.symlink(ROLE, str(coll / 'roles' / 'kvm_guest_network'))
    # the role reports its drift with the collection's filter
    for sub in ('filter', 'plugin_utils', 'module_utils'):
        os.symlink(os.path.join(ROLE, '..', '..', 'plugins', sub), str(coll / 'plugins' / sub))
    (root / 'ansible.cfg').write_text('[defaults]\n')
    plays = ''.join(
        PLAY.format(name=case_name(c, a), play_check=str(c).lower(), apply=str(a).lower()) for c, a, dummy in CASES
    )
    (root / 'play.yml').write_text(plays)
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(root),
        ANSIBLE_CONFIG=str(root / 'ansible.cfg'),
        ANSIBLE_LOCALHOST_WARNING='false',
        ANSIBLE_INVENTORY_UNPARSED_WARNING='false',
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )
    playbook = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
    proc = subprocess.run(
        [playbook, '-i', 'localhost,', str(root / 'play.yml'), '-e', 'record_dir=%s' % root],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout
    return root


@pytest.mark.slow
def test_module_runs_once_per_guest_in_the_expected_mode(tmp_path):
    run_cases(tmp_path)
    seen = {}
    for play_check, apply, dummy in CASES:
        name = case_name(play_check, apply)
        # the role's registered result is the one of the call that ran, for callers and later tasks
        result = json.loads((tmp_path / (name + '.result')).read_text())
        assert result['changed'] is True, name
        assert [item['item']['name'] for item in result['results']] == ['g1', 'g2', 'g3'], name
        assert 'skipped' not in result['results'][0], name
        seen[name] = (tmp_path / name).read_text().split('\n')[:-1]
    # ip_promisc first, once, on the MacVTap sources of the guests that keep their devices
    assert seen == dict(
        (
            case_name(c, a),
            ['promisc eno4,enc8200 NETH,NETD %s' % mode] + ['%s %s' % (g, mode) for g in ('g1', 'g2', 'g3')],
        )
        for c, a, mode in CASES
    )
