#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: iocp
short_description: Render, validate, parse and compare IOCP statements for HiperSockets, ISM and Network Express
version_added: 0.1.0
description:
  - Works on the C(cpc) inventory data model of this collection (documented in
    C(docs/cpc-model.md)) on the Ansible controller; nothing on a managed host is touched.
  - O(state=rendered) returns the IOCP card-image source (ID, RESOURCE, UUID, CHPID, CNTLUNIT,
    IODEVICE and FUNCTION statements) for the HiperSockets (IQD) CHPIDs, ISM VCHIDs and FIDs and
    the optional OSA, RoCE Express (z15, z16) and Network Express (z17 / LinuxONE 5, FUNCTION
    TYPE=NETH or TYPE=NETD, and the OSH CHPID on a hybrid-mode port) definitions of one CPC, with
    a header comment naming the CPC and what is included; with O(dest) it also writes it to a file.
  - O(state=validated) returns the validation errors and warnings of the model, changing nothing.
  - O(state=parsed) reads IOCP source from O(deck) and returns the model it describes;
    statements this module does not model are returned as RV(unparsed).
  - O(state=compared) compares the inventory O(cpc) with an existing IOCP O(deck) and returns the
    differences (partitions, UID checking, CHPIDs, control units and devices, FIDs with UID, VF
    or PF, partition, VCHID or PCHID, PNET ID and FIDPARM).
  - Validation covers duplicate FIDs, a FID in the access list of more than one partition, UIDs
    outside 0001-FFFF or duplicated in a partition with UID checking, VFs outside 1-255 or
    duplicated within a VCHID, more than 32 ISM VCHIDs, CHPID number clashes, overlapping device
    numbers, more than 64 control units per IQD CHPID, frame sizes, PNET ID syntax and reuse, and
    whether the partitions and guests listed in C(smcd_peers) can use SMC-D with each other.
  - 'For Network Express it checks the IOCP keyword rules of each type: no C(PORT=) (the PCHID is
    the port), C(PF) only on NETD and never with C(VF), C(VF) required otherwise (NETH 0-123, NETD
    0-127, unique per port), C(FIDPARM) 00 or 01 on NETH only, one PNET ID per port (the OSH
    CHPID''s too), an OSH CHPID only on a NETH port, both ports of a card in one mode; RoCE Express
    is refused on a z17 / LinuxONE 5 and Network Express before it.'
  - Every error names the object (for a function its FID) and the field.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
  - ansible.builtin.files
attributes:
  check_mode:
    support: full
    details: With O(dest), check mode reports whether the file would change and writes nothing.
  diff_mode:
    support: full
    details: With O(dest), returns the old and the new file content.
  idempotent:
    support: full
options:
  cpc:
    description:
      - The CPC model (the C(cpc) inventory variable). Required unless O(state=parsed), not used with
        O(state=parsed).
      - 'Top-level keys: C(name), C(machine) (V(z15), V(z16), V(z17), a LinuxONE name such as
        V(LinuxONE 5), or a machine type such as V(9176)), C(css), C(uid_checking), C(partitions),
        C(hipersockets), C(ism), C(osa), C(roce), C(network_express), C(smcd_peers). FIDs, UIDs,
        VCHIDs and PCHIDs are ints (YAML C(0x605)) or hex strings (C("605")); CHPIDs, control unit
        and device numbers are hex strings. See C(docs/cpc-model.md) for every field.'
    type: dict
  state:
    description:
      - What to do, see the description.
    type: str
    choices: [rendered, validated, parsed, compared]
    default: rendered
  deck:
    description:
      - IOCP source text (card images), for O(state=parsed) and O(state=compared) only.
    type: str
  dest:
    description:
      - With O(state=rendered), write the fragment to this file on the host the module runs on
        (the controller when run with C(delegate_to=localhost)). Parent directories must exist.
      - The task reports a change only when the file content (or its attributes) changes.
    type: path
  fail_on_error:
    description:
      - With O(state=rendered) and O(state=compared), fail when the model has validation errors.
      - O(state=validated) and O(state=parsed) never fail on validation errors; they return them.
    type: bool
    default: true
notes:
  - The fragment contains comment cards starting with C(*@) that carry inventory-only data
    (partition hosts, KVM guests of FIDs, SMC-D peer groups); IOCP ignores them and O(state=parsed)
    reads them back, so parsing a rendered fragment returns the same model.
  - The fragment includes ID and RESOURCE statements so that it is a complete deck IOCP can check
    on its own; when merging into a production deck keep that deck's ID and RESOURCE statements.
seealso:
  - name: Rules for coding IOCP statements (IOCP User's Guide)
    description: Statement syntax and coding rules used by this module; all sources are listed in
      C(docs/iocp-sources.md).
    link: https://www.ibm.com/docs/en/systems-hardware/zsystems/3932-A02?topic=statements-rules-coding-iocp
"""

EXAMPLES = r"""
- name: Render the IOCP fragment of the lab CPC to a file on the controller
  s390x.network.iocp:
    cpc: "{{ cpc }}"
    state: rendered
    dest: "{{ playbook_dir }}/iocds-output/ZLAB.iocp"
  delegate_to: localhost
  run_once: true

- name: Validate the CPC model and stop on errors
  s390x.network.iocp:
    cpc: "{{ cpc }}"
    state: validated
  delegate_to: localhost
  run_once: true
  register: iocp_check
  failed_when: iocp_check.errors | length > 0

- name: Read an existing deck back into the data model
  s390x.network.iocp:
    state: parsed
    deck: "{{ lookup('ansible.builtin.file', 'IOCDS.A0.txt') }}"
  delegate_to: localhost
  register: iocp_deck

- name: Compare the inventory with the deck currently on the machine
  s390x.network.iocp:
    cpc: "{{ cpc }}"
    state: compared
    deck: "{{ lookup('ansible.builtin.file', 'IOCDS.A0.txt') }}"
  delegate_to: localhost
  register: iocp_drift
"""

RETURN = r"""
fragment:
  description: IOCP card-image source of the model (80-column cards, newline separated).
  returned: state is rendered
  type: str
  sample: " CHPID    PATH=(CSS(0),F0),SHARED,...\n"
model:
  description:
    - The normalised model (FIDs, UIDs and VCHIDs as ints, CHPIDs and device numbers as
      upper-case hex strings). For O(state=parsed) the model read from the deck.
  returned: always
  type: dict
  sample: {"name": "ZLAB", "machine": "z16", "css": 0, "uid_checking": ["LPARA", "LPARB"]}
errors:
  description: Validation errors, each naming the object and the field.
  returned: always
  type: list
  elements: str
  sample: ["ISM VCHID 7C8 FID 0x605: fid is a duplicate FID, already defined in ISM VCHID 7C8 FID 0x605"]
validation_warnings:
  description: Validation (and, for O(state=parsed), deck reading) warnings. They are also shown as
    task warnings except for O(state=validated).
  returned: always
  type: list
  elements: str
  sample: ["HiperSockets CHPID F0 control unit F000: devices count 2 is below 3; ..."]
valid:
  description: Whether the model has no validation errors.
  returned: always
  type: bool
  sample: true
unparsed:
  description: Statements of O(deck) that are not modelled, with line number, reason and text.
  returned: state is parsed or compared
  type: list
  elements: dict
  sample: [{"line": 12, "statement": "CHPID", "reason": "CHPID TYPE=FC is not modelled", "text": " CHPID ..."}]
unparsed_count:
  description: Number of entries in RV(unparsed).
  returned: state is parsed or compared
  type: int
  sample: 3
differences:
  description:
    - Differences between inventory and deck. C(kind) is C(missing_in_deck), C(extra_in_deck) or
      C(different); C(message) says it in words.
  returned: state is compared
  type: list
  elements: dict
  sample: [{"object": "FID 0x605", "field": "uid", "kind": "different", "inventory": "0605", "deck": "0615", "message": "..."}]
deck_errors:
  description: Validation errors of the model read from O(deck) (for example a deck without ID statement has no CPC name).
  returned: state is compared
  type: list
  elements: str
  sample: ["cpc: name None is not a CPC name (1-8 characters A-Z 0-9, starting with a letter)"]
deck_warnings:
  description: Warnings from reading O(deck) and validating its model.
  returned: state is compared
  type: list
  elements: str
  sample: ["line 5: RESOURCE partitions of CSS 1 are not modelled (model CSS 0)"]
in_sync:
  description: True when RV(differences) is empty.
  returned: state is compared
  type: bool
  sample: false
report:
  description: Markdown report of the CPC (partitions, CHPIDs, ISM FIDs, SMC-D reachability, errors).
  returned: state is rendered or validated
  type: str
  sample: "# IOCDS report: CPC ZLAB (z16)\n..."
topology_dot:
  description: Graphviz source of the topology (CPC, partitions, guests, CHPIDs, VCHIDs, FIDs, SMC-D pairs).
  returned: state is rendered or validated
  type: str
  sample: "digraph \"cpc_ZLAB\" {\n..."
smcd_pairs:
  description: For each pair of partitions or guests with ISM functions, whether they can use SMC-D.
  returned: state is rendered or validated
  type: list
  elements: dict
  sample: [{"a": "LPARB", "b": "g1", "smcd": true, "reason": "non-native", "vchid": 1992}]
dest:
  description: The file written.
  returned: state is rendered and O(dest) is set
  type: str
  sample: /home/admin/iocds-output/ZLAB.iocp
diff:
  description: Old and new content of O(dest) when run with C(--diff).
  returned: O(dest) is set and diff mode is on
  type: dict
  sample: {"before": "", "after": "* ..."}
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc
from ansible_collections.s390x.network.plugins.module_utils.iocp.compare import compare_models
from ansible_collections.s390x.network.plugins.module_utils.iocp.parse import parse_deck
from ansible_collections.s390x.network.plugins.module_utils.iocp.render import render_fragment
from ansible_collections.s390x.network.plugins.module_utils.iocp.report import (
    render_dot,
    render_report,
)
from ansible_collections.s390x.network.plugins.module_utils.iocp.validate import (
    endpoints,
    smcd_pairs,
)


def _mode_ok(mode):
    """Whether ``mode`` is a file mode AnsibleModule can apply: an octal number up to 07777 or
    symbolic clauses (``u=rw,g=r``); checked before the file is written."""
    if mode is None:
        return True
    if isinstance(mode, int) and not isinstance(mode, bool):
        return 0 <= mode <= 0o7777
    text = str(mode)
    if re.fullmatch(r"[0-7]+", text):
        return int(text, 8) <= 0o7777
    return all(re.fullmatch(r"[ugoa]*(?:[-+=][rwxXstugo]*)+", clause) for clause in text.split(","))


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except IOError:
        return None


def _write(module, dest, content, result):
    data = to_bytes(content)
    real = host_files.path(dest)
    before = _read(real)
    if module._diff:
        result["diff"] = {
            "before_header": dest,
            "after_header": dest,
            "before": to_native(before) if before is not None else "",
            "after": content,
        }
    result["dest"] = dest
    if before == data:
        file_args = module.load_file_common_arguments(module.params, path=real)
        result["changed"] = module.set_fs_attributes_if_different(file_args, False)
        return
    result["changed"] = True
    if module.check_mode:
        return
    directory = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(host_files.path(directory)):
        module.fail_json(msg="dest: directory %s does not exist" % directory, **result)
    try:
        # a new file: 0666 & ~umask (then O(mode), if given); an existing one keeps its attributes
        host_files.write_atomic(os.path.abspath(dest), data, module=module, mode=None)
    except (IOError, OSError) as exc:
        module.fail_json(msg="dest: cannot write %s: %s" % (dest, to_native(exc)), **result)
    file_args = module.load_file_common_arguments(module.params, path=real)
    module.set_fs_attributes_if_different(file_args, True)


def _views(model, errors, warnings, result, dest):
    names = sorted(n for n, sig in endpoints(model).items() if sig)
    result["smcd_pairs"] = smcd_pairs(model, names)
    result["report"] = render_report(model, errors, warnings, os.path.basename(dest) if dest else None)
    result["topology_dot"] = render_dot(model)


def run(module):
    params = module.params
    state = params["state"]
    result = {"changed": False}
    if state in ("rendered", "validated", "compared") and params["cpc"] is None:
        module.fail_json(msg="cpc is required with state=%s" % state)
    if state in ("parsed", "compared") and params["deck"] is None:
        module.fail_json(msg="deck is required with state=%s (IOCP source text)" % state)
    misused = []
    if params["dest"] is not None:
        if state != "rendered":
            misused.append("dest is only used with state=rendered, not state=%s" % state)
        elif not params["dest"] or params["dest"].endswith("/"):
            misused.append("dest: %r is not a path to a file" % params["dest"])
    if params["deck"] is not None and state not in ("parsed", "compared"):
        misused.append("deck is only used with state=parsed or state=compared, not state=%s" % state)
    if params["cpc"] is not None and state == "parsed":
        misused.append("cpc is not used with state=parsed (it returns the model read from deck)")
    if not _mode_ok(params.get("mode")):
        misused.append(
            "mode: %r is not a file mode (octal such as 0644, or symbolic such as u=rw,g=r,o=r)" % (params["mode"],)
        )
    if misused:
        module.fail_json(msg="; ".join(misused))

    if state == "parsed":
        parsed = parse_deck(params["deck"])
        model, errors, warnings = normalize_cpc(parsed["cpc"])
        warnings = parsed["warnings"] + warnings
        result.update(
            model=model,
            errors=errors,
            validation_warnings=warnings,
            valid=not errors,
            unparsed=parsed["unparsed"],
            unparsed_count=len(parsed["unparsed"]),
        )
        for warning in warnings:
            module.warn(warning)
        return result

    model, errors, warnings = normalize_cpc(params["cpc"])
    result.update(model=model, errors=errors, validation_warnings=warnings, valid=not errors)
    if state == "validated":
        if not errors:
            _views(model, errors, warnings, result, None)
        return result
    for warning in warnings:
        module.warn(warning)
    if errors and params["fail_on_error"]:
        module.fail_json(msg="cpc has %d validation error(s): %s" % (len(errors), "; ".join(errors)), **result)
    if state == "compared":
        parsed = parse_deck(params["deck"])
        deck_model, deck_errors, deck_warnings = normalize_cpc(parsed["cpc"])
        differences = compare_models(model, deck_model)
        result.update(
            differences=differences,
            in_sync=not differences,
            deck_errors=deck_errors,
            deck_warnings=parsed["warnings"] + deck_warnings,
            unparsed=parsed["unparsed"],
            unparsed_count=len(parsed["unparsed"]),
        )
        return result
    if errors:
        return result
    result["fragment"] = render_fragment(model)
    _views(model, errors, warnings, result, params["dest"])
    if params["dest"]:
        _write(module, params["dest"], result["fragment"], result)
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            cpc=dict(type="dict"),
            state=dict(type="str", default="rendered", choices=["rendered", "validated", "parsed", "compared"]),
            deck=dict(type="str"),
            dest=dict(type="path"),
            fail_on_error=dict(type="bool", default=True),
        ),
        required_if=[
            ("state", "rendered", ("cpc",)),
            ("state", "validated", ("cpc",)),
            ("state", "compared", ("cpc", "deck")),
            ("state", "parsed", ("deck",)),
        ],
        add_file_common_args=True,
        supports_check_mode=True,
    )
    module.exit_json(**run(module))


if __name__ == "__main__":
    main()
