# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""libvirt_device, bad input: refused with a message that names the field and what is allowed,
before libvirt is connected to or sysfs is read."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible.module_utils.ansible_release import __version__ as CORE_VERSION

from ansible_collections.s390x.network.plugins.modules import libvirt_device
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

HEX = "an integer or a hex string such as 0x605"
NAME = "not a libvirt domain name"


def g1(**args):
    return dict({"domain": "g1"}, **args)


# AnsibleModule refuses a NUL in a string argument itself from ansible-core 2.19 on
CORE_REFUSES_NUL = tuple(int(part) for part in CORE_VERSION.split(".")[:2]) >= (2, 19)

CASES = [
    # -- domain (libvirt keeps a definition as <name>.xml: no "/", at most 251 bytes) -----------
    ("domain path", {"domain": "../../etc/libvirt/qemu/g1"}, ["domain: '../../etc/libvirt/qemu/g1' is " + NAME, '"/"']),
    ("domain with a slash", {"domain": "g1/x"}, ["domain: 'g1/x' is " + NAME]),
    ("domain empty", {"domain": ""}, ["domain: the name is empty"]),
    ("domain blank", {"domain": "   "}, ["domain: the name is empty"]),
    ("domain newline", {"domain": "g1\nother"}, ["domain: 'g1\\nother' is " + NAME, "control characters"]),
    ("domain tab", {"domain": "g1\tx"}, ["domain: 'g1\\tx' is " + NAME]),
    ("domain control character", {"domain": "g\x01"}, ["domain: 'g\\x01' is " + NAME]),
    ("domain DEL", {"domain": "g\x7f"}, ["domain: 'g\\x7f' is " + NAME]),
    ("domain too long", {"domain": "g" * 252}, ["domain: the name has 252 bytes", "at most 251"]),
    ("domain too long in UTF-8", {"domain": "\u00e9" * 126}, ["domain: the name has 252 bytes", "at most 251"]),
    ("domain missing", {"hostdevs": [{"fid": 0x605}]}, ["missing required arguments: domain"]),
    # -- uri -----------------------------------------------------------------------------------
    ("uri empty", g1(uri=""), ["uri: '' is not a libvirt connection URI", "qemu:///system"]),
    ("uri with a blank", g1(uri="qemu:///system x"), ["uri: 'qemu:///system x' is not a libvirt connection URI"]),
    ("uri with a newline", g1(uri="qemu:///system\n"), ["uri: 'qemu:///system\\n'", "control characters"]),
    # transports, parameters and host forms that make libvirt run a program or read a file
    ("uri ext", g1(uri="qemu+ext:///system?command=/bin/id"), ["uri: ", "transport ext (it runs the program"]),
    ("uri netcat", g1(uri="qemu+ssh://h/system?netcat=/tmp/x"), ["uri: ", "parameter netcat; allowed: mode"]),
    ("uri socket", g1(uri="qemu+unix:///system?socket=/tmp/s"), ["uri: ", "parameter socket;"]),
    ("uri keyfile", g1(uri="qemu+ssh://h/system?keyfile=/root/k"), ["uri: ", "parameter keyfile;"]),
    ("uri proxy", g1(uri="qemu+ssh://h/system?proxy=netcat"), ["uri: ", "parameter proxy;"]),
    ("uri command on ssh", g1(uri="qemu+ssh://h/system?command=id"), ["uri: ", "parameter command;"]),
    ("uri no_verify", g1(uri="qemu+tls://h/system?no_verify=1"), ["uri: ", "parameter no_verify;"]),
    ("uri unknown parameter", g1(uri="qemu+ssh://h/system?x=1"), ["uri: ", "parameter x;"]),
    ("uri parameter twice", g1(uri="qemu:///system?mode=direct&mode=legacy"), ["uri: ", "mode is given twice"]),
    ("uri parameter value", g1(uri="qemu:///system?mode=x"), ["uri: ", "mode=x; allowed values: auto, legacy"]),
    ("uri encoded name", g1(uri="qemu+ssh://h/system?%6eetcat=x"), ["uri: ", "the character '%' is not allowed"]),
    ("uri sshauth", g1(uri="qemu+libssh2://h/system?sshauth=x"), ["uri: ", "sshauth 'x'"]),
    ("uri ssh option host", g1(uri="qemu+ssh://-oProxyCommand=id/system"), ["uri: ", "host '-oProxyCommand=id'"]),
    ("uri ssh option user", g1(uri="qemu+ssh://-l@h/system"), ["uri: ", "user '-l'"]),
    ("uri two users", g1(uri="qemu+ssh://a@b@h/system"), ["uri: ", "host 'b@h'"]),
    ("uri port 0", g1(uri="qemu+ssh://h:0/system"), ["uri: ", "port '0' is not 1..65535"]),
    ("uri port too big", g1(uri="qemu+ssh://h:65536/system"), ["uri: ", "port '65536'"]),
    ("uri embed", g1(uri="qemu:///embed?root=/tmp/x"), ["uri: ", "path /embed; allowed: /system, /session"]),
    ("uri relative path", g1(uri="qemu+ssh://h/../system"), ["uri: ", "path /../system"]),
    ("uri driver", g1(uri="lxc:///system"), ["uri: ", "driver lxc; allowed: qemu"]),
    ("uri remote without host", g1(uri="qemu+ssh:///system"), ["uri: ", "a remote transport needs a host"]),
    ("uri unix with host", g1(uri="qemu+unix://h/system"), ["uri: ", "a local connection"]),
    ("uri fragment", g1(uri="qemu:///system#x"), ["uri: ", "the character '#'"]),
    ("uri semicolon", g1(uri="qemu:///system;id"), ["uri: ", "';'"]),
    ("uri command substitution", g1(uri="qemu:///system$(id)"), ["uri: ", "'$'", "'('"]),
    ("uri backticks", g1(uri="qemu:///system`id`"), ["uri: ", "'`'"]),
    ("uri quote", g1(uri='qemu:///system"'), ["uri: ", "'\"'"]),
    ("uri backslash", g1(uri="qemu:///system\\"), ["uri: ", "'\\\\'"]),
    ("uri specifier", g1(uri="qemu:///system%n"), ["uri: ", "'%'"]),
    ("uri CR", g1(uri="qemu:///system\r"), ["uri: ", "control characters"]),
    # a NUL in a top-level string option: AnsibleModule of ansible-core 2.19+ refuses it itself, while it logs
    # its arguments to syslog; with older cores the module's own check does
    (
        "uri NUL",
        g1(uri="qemu:///sys\x00tem"),
        ["embedded null character"] if CORE_REFUSES_NUL else ["uri: ", "control"],
    ),
    ("uri IPv6 zone", g1(uri="qemu+ssh://[fe80::1]x/system"), ["uri: ", "is not an IPv6 address in brackets"]),
    ("uri not IPv6", g1(uri="qemu+ssh://[fe80::g]/system"), ["uri: ", "host [fe80::g] is not an IPv6"]),
    ("uri long host", g1(uri="qemu+ssh://%s/system" % ".".join(["a" * 63] * 5)), ["uri: ", "is not a DNS name"]),
    ("uri alias with a dot", g1(uri="../x"), ["uri: '../x' is not a libvirt URI alias"]),
    ("uri alias with a dash", g1(uri="-c"), ["uri: '-c' is not a libvirt URI alias"]),
    ("uri alias too long", g1(uri="a" * 65), ["uri: ", "is not a libvirt URI alias"]),
    # -- hostdevs ------------------------------------------------------------------------------
    ("fid not hex", g1(hostdevs=[{"fid": "zz"}]), ["hostdevs[0].fid: 'zz' is not " + HEX]),
    ("fid negative", g1(hostdevs=[{"fid": -5}]), ["hostdevs[0].fid: -5 is outside 0x0000..0xffffffff"]),
    ("fid above 32 bits", g1(hostdevs=[{"fid": 0x100000000}]), ["hostdevs[0].fid: 0x100000000 is outside"]),
    ("fid boolean", g1(hostdevs=[{"fid": False}]), ["hostdevs[0].fid: expected " + HEX]),
    ("fid missing", g1(hostdevs=[{"uid": 1}]), ["missing required arguments: fid", "hostdevs"]),
    ("uid 0", g1(hostdevs=[{"fid": 0x605, "uid": 0}]), ["hostdevs[0].uid: 0x0 is outside 0x0001..0xffff"]),
    ("type lower case", g1(hostdevs=[{"fid": 0x110, "type": "neth"}]), ["type", "neth", "NETH"]),
    ("type unknown", g1(hostdevs=[{"fid": 0x110, "type": "OSH"}]), ["type", "OSH", "ISM, ROCE, ROC2, NETH, NETD"]),
    ("uid above 16 bits", g1(hostdevs=[{"fid": 0x605, "uid": "10000"}]), ["hostdevs[0].uid: 0x10000 is outside"]),
    ("uid not hex", g1(hostdevs=[{"fid": 0x605, "uid": "u1"}]), ["hostdevs[0].uid: 'u1' is not " + HEX]),
    ("uid not hex, deleted", g1(state="deleted", hostdevs=[{"fid": 0x605, "uid": "u1"}]), ["hostdevs[0].uid: 'u1'"]),
    (
        "fid too big to be the uid",
        g1(hostdevs=[{"fid": 0x10000}]),
        ["hostdevs[0].uid: required because fid 0x10000 does not fit a uid (0x0001..0xffff)"],
    ),
    ("fid 0 cannot be the uid", g1(hostdevs=[{"fid": 0}]), ["hostdevs[0].uid: required because fid 0x0"]),
    (
        "address without function",
        g1(hostdevs=[{"fid": 0x605, "address": "0605:00:00"}]),
        ["hostdevs[0].address: '0605:00:00' is not a PCI address DDDD:BB:SS.F such as 0605:00:00.0"],
    ),
    (
        "address domain above 16 bits",
        g1(hostdevs=[{"fid": 0x605, "address": "10000:00:00.0"}]),
        ["hostdevs[0].address: PCI domain 0x10000 is above 0xffff"],
    ),
    (
        "address slot above 1f",
        g1(hostdevs=[{"fid": 0x605, "address": "0605:00:20.0"}]),
        ["hostdevs[0].address: PCI slot 0x20 is above 0x1f"],
    ),
    ("address function 8", g1(hostdevs=[{"fid": 0x605, "address": "0605:00:00.8"}]), ["hostdevs[0].address: "]),
    ("managed not a boolean", g1(hostdevs=[{"fid": 0x605, "managed": "maybe"}]), ["managed", "bool"]),
    (
        "one FID in two spellings",
        g1(hostdevs=[{"fid": 0x605}, {"fid": "0x00000605", "uid": 7}]),
        ["hostdevs[1].fid: 0x605 is also given in hostdevs[0]; a FID can be passed through once"],
    ),
    (
        "one uid in two spellings",
        g1(hostdevs=[{"fid": 0x605, "uid": 0x42}, {"fid": 0x606, "uid": "0042"}]),
        ["hostdevs[1].uid: 0x0042 is also used by hostdevs[0]; uids are unique per domain"],
    ),
    (
        "one address in two spellings",
        g1(hostdevs=[{"fid": 0x605, "address": "0605:00:00.0"}, {"fid": 0x606, "address": "605:0:0.0"}]),
        ["hostdevs[1].address: 0605:00:00.0 is also given in hostdevs[0]"],
    ),
    (
        "rendered hostdev without its address",
        {"domain": "g1", "state": "rendered", "hostdevs": [{"fid": 0x605}]},
        ["hostdevs[0].address: the host PCI address of fid 0x605 is not known (give it for state rendered)"],
    ),
    # -- interfaces ----------------------------------------------------------------------------
    ("source empty", g1(interfaces=[{"source": ""}]), ["interfaces[0].source: ", "1 to 15 bytes", "it is empty"]),
    ("source too long", g1(interfaces=[{"source": "enc8200abcdefghi"}]), ["interfaces[0].source: ", "it has 16 bytes"]),
    (
        "source with a slash",
        g1(interfaces=[{"source": "../eth0"}]),
        ["interfaces[0].source: ", "no /,", "it has a /, : or white space"],
    ),
    ("source with a colon", g1(interfaces=[{"source": "eth0:1"}]), ["interfaces[0].source: "]),
    ("source with a blank", g1(interfaces=[{"source": "eth 0"}]), ["interfaces[0].source: "]),
    ("source dot", g1(interfaces=[{"source": "."}]), ["interfaces[0].source: ", "not . or ..", ". names a directory"]),
    ("source dot-dot", g1(interfaces=[{"source": ".."}]), ["interfaces[0].source: ", "not . or .."]),
    ("source control character", g1(interfaces=[{"source": "enc\x018200"}]), ["interfaces[0].source: "]),
    ("source missing", g1(interfaces=[{"mac": "12:34:56:78:9a:bc"}]), ["missing required arguments: source"]),
    ("mode choice", g1(interfaces=[{"source": "enc8200", "mode": "bridged"}]), ["mode", "bridge, vepa, private"]),
    (
        "mac too short",
        g1(interfaces=[{"source": "enc8200", "mac": "12:34:56:78:9a"}]),
        ["interfaces[0].mac: '12:34:56:78:9a' is not a MAC address like 12:34:56:78:9a:bc"],
    ),
    (
        "mac with dashes",
        g1(interfaces=[{"source": "enc8200", "mac": "12-34-56-78-9a-bc"}]),
        ["interfaces[0].mac: '12-34-56-78-9a-bc' is not a MAC address"],
    ),
    (
        "multicast mac",
        g1(interfaces=[{"source": "enc8200", "mac": "13:34:56:78:9a:bc"}]),
        ["interfaces[0].mac: 13:34:56:78:9a:bc is a multicast address", "unicast"],
    ),
    ("broadcast mac", g1(interfaces=[{"source": "enc8200", "mac": "ff:ff:ff:ff:ff:ff"}]), ["multicast"]),
    ("zero mac", g1(interfaces=[{"source": "enc8200", "mac": "00:00:00:00:00:00"}]), ["00:00:00:00:00:00 is not"]),
    (
        "one mac in two spellings",
        g1(
            interfaces=[
                {"source": "enc8200", "mac": "12:34:56:78:9A:BC"},
                {"source": "enc8300", "mac": "12:34:56:78:9a:bc"},
            ]
        ),
        ["interfaces[1].mac: 12:34:56:78:9a:bc is also given in interfaces[0]"],
    ),
    ("model with a blank", g1(interfaces=[{"source": "enc8200", "model": "vir tio"}]), ["interfaces[0].model: "]),
    ("model with a newline", g1(interfaces=[{"source": "enc8200", "model": "virtio\n"}]), ["interfaces[0].model: "]),
    ("model empty", g1(interfaces=[{"source": "enc8200", "model": "<x/>"}]), ["interfaces[0].model: '<x/>'"]),
    ("driver choice", g1(interfaces=[{"source": "enc8200", "driver": "vfio"}]), ["driver", "vhost, qemu"]),
    # -- module options ------------------------------------------------------------------------
    ("state choice", g1(state="replaced"), ["state", "merged, overridden, deleted"]),
    ("live choice", g1(live="maybe"), ["live", "auto, true, false"]),
    ("unknown option", g1(hostdev=[{"fid": 0x605}]), ["Unsupported parameters", "hostdev"]),
    # -- every problem in one message ----------------------------------------------------------
    (
        "all problems of the task",
        g1(
            uri="",
            hostdevs=[{"fid": "zz"}, {"fid": 0x606, "uid": 0}],
            interfaces=[{"source": "a/b"}, {"source": "enc8200", "mac": "13:00:00:00:00:00"}],
        ),
        ["uri: ''", "hostdevs[0].fid", "hostdevs[1].uid", "interfaces[0].source", "interfaces[1].mac"],
    ),
    (
        "a bad domain name and a bad device",
        {"domain": "a/b", "hostdevs": [{"fid": "zz"}]},
        ["domain: 'a/b'", "hostdevs[0].fid"],
    ),
]


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_libvirt_or_sysfs(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(libvirt_device.main, args, fragments)


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_check_mode_too(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(libvirt_device.main, args, fragments, check_mode=True)


@pytest.mark.parametrize("state", ["merged", "gathered", "deleted"])
def test_the_guard_sees_a_module_that_reads_the_host(monkeypatch, run_module, state):
    guard = HostGuard(monkeypatch, run_module)
    with pytest.raises(AssertionError):
        guard.run(libvirt_device.main, g1(state=state, hostdevs=[{"fid": 0x605}], interfaces=[{"source": "enc8200"}]))
    assert guard.accesses


def test_long_names_within_the_limit_and_rendered_touch_nothing(monkeypatch, run_module):
    guard = HostGuard(monkeypatch, run_module)
    args = {
        "domain": "g" * 251,
        "state": "rendered",
        "hostdevs": [{"fid": 0x605, "address": "0605:00:00.0"}],
        "interfaces": [{"source": "enc8200", "mac": "12:34:56:78:9A:BC"}],
    }
    result = guard.run(libvirt_device.main, args)
    assert not result["failed"], result["msg"]
    assert guard.accesses == []
