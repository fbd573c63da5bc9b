# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kvm_guest_network role writes to <render_dir>/<guest>-devices.xml.

The role has no XML template: libvirt_device returns the document (``devices_xml``, built with
ElementTree) and the role's copy task writes it as it is. Each hostile value below goes through
the module (against the fake libvirt of tests/unit/fixtures/libvirt) and the role's task, and the
file text is parsed back with an XML parser, which must find exactly the values given.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import xml.etree.ElementTree as ET

import pytest
import yaml

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

try:
    from ansible.template import trust_as_template

    def registered(result):
        return result

except ImportError:  # ansible-core before 2.19 templates every string it is given

    def trust_as_template(value):
        return value

    # and marks what a module returned as unsafe (never templated again) when it registers it
    from ansible.utils.unsafe_proxy import wrap_var as registered


from ansible_collections.s390x.network.plugins.module_utils.libvirt import conn as libvirt_conn
from ansible_collections.s390x.network.plugins.module_utils.libvirt import xml as lx
from ansible_collections.s390x.network.plugins.modules import libvirt_device
from ansible_collections.s390x.network.tests.unit.fixtures.libvirt import fakes

ROLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "kvm_guest_network")


def role_tasks():
    with open(os.path.join(ROLE, "tasks", "main.yml")) as handle:
        tasks = yaml.safe_load(handle)
    flat = []
    for task in tasks:
        flat.append(task)
        flat.extend(task.get("block") or [])
    return flat


def write_task():
    return [t for t in role_tasks() if t.get("name") == "Write <guest>-devices.xml"][0]


def role_writes(result, name):
    """The text the role's copy task writes for one result of its libvirt_device loop."""
    task = write_task()
    variables = {"guest_devices": dict(registered(result), item={"name": name, "state": "merged"})}
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template(task["ansible.builtin.copy"]["content"]))


@pytest.fixture
def libvirt(host_root, monkeypatch):
    fakes.lab_host(str(host_root))
    fake = fakes.FakeLibvirtModule()
    monkeypatch.setattr(libvirt_conn, "libvirt", fake)
    monkeypatch.setattr(libvirt_conn, "HAS_LIBVIRT", True)
    fake.root = str(host_root)
    return fake


def test_no_template_builds_xml_and_the_file_is_written_from_devices_xml():
    assert not os.path.exists(os.path.join(ROLE, "templates"))
    modules = set(k for t in role_tasks() for k in t if "." in k)
    assert "ansible.builtin.template" not in modules
    task = write_task()
    assert task["ansible.builtin.copy"]["content"] == "{{ guest_devices.devices_xml }}"
    assert task["ansible.builtin.copy"]["dest"].endswith("/{{ guest_devices.item.name }}-devices.xml")


HOSTILE_SOURCES = ['a">b', "x]]>y", "<z>&amp;&#60;", "q'r\"s", "{{x}}", "a$(id)`b`;c", "p%n\\"]


@pytest.mark.parametrize("source", HOSTILE_SOURCES)
@pytest.mark.parametrize("check", [False, True])
def test_hostile_values_are_data_in_the_written_document(run_module, libvirt, source, check):
    libvirt.connection.add("g1", fakes.fixture("g1-inactive-bare.xml"))
    args = {
        "domain": "g1",
        "hostdevs": [{"fid": 0x605}],
        "interfaces": [{"source": source, "mac": "12:34:56:78:9a:bc"}],
    }
    out = run_module(libvirt_device.main, args, check_mode=check)
    assert not out.failed, out.result
    text = role_writes(out.result, "g1")
    assert text == out.result["devices_xml"]
    root = ET.fromstring(text)  # one well-formed document
    assert root.tag == "devices"
    interface = root.find("interface")
    assert interface.find("source").attrib == {"dev": source, "mode": "bridge"}
    assert interface.find("mac").attrib == {"address": "12:34:56:78:9a:bc"}
    hostdev = root.find("hostdev")
    assert hostdev.find("address/zpci").attrib == {"uid": "0x0605", "fid": "0x00000605"}
    assert [child.tag for child in root] == ["hostdev", "interface"]


def test_the_comment_is_valid_xml_and_holds_no_double_dash():
    text = lx.devices_document([])
    assert text.startswith("<devices>\n  <!--") and text.endswith("</devices>\n")
    comment = text[text.index("<!--") + 4 : text.index("-->")]
    assert "--" not in comment and not comment.endswith("-")
    ET.fromstring(text)
    for bad in ("a -- b", "ends with -", "a\x00b"):
        with pytest.raises(ValueError):
            lx.xml_comment(bad)


def test_deleted_writes_no_document(run_module, libvirt):
    libvirt.connection.add("g1", fakes.fixture("g1-inactive-bare.xml"))
    out = run_module(libvirt_device.main, {"domain": "g1", "state": "deleted", "hostdevs": [{"fid": 0x605}]})
    assert not out.failed and out.result["devices_xml"] is None
    assert write_task()["when"] == [
        "guest_devices.item.state != 'deleted'",
        "guest_devices.devices_xml | default(none) is string",
    ]
