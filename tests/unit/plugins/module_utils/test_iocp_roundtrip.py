# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property: parsing a rendered fragment gives back the model (hypothesis)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from hypothesis import given, settings, strategies as st

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc
from ansible_collections.s390x.network.plugins.module_utils.iocp.compare import compare_models
from ansible_collections.s390x.network.plugins.module_utils.iocp.parse import parse_deck
from ansible_collections.s390x.network.plugins.module_utils.iocp.render import render_fragment

NAMES = st.from_regex(r"\A[A-Z][A-Z0-9]{0,7}\Z")
GUESTS = st.from_regex(r"\A[a-z][a-z0-9._-]{0,20}\Z")
HOSTS = st.from_regex(r"\A[a-z][a-z0-9.-]{0,30}\Z")
PNETS = st.from_regex(r"\A[A-Z0-9]{1,16}\Z")


MACHINES = ["z15", "z16", "z17", "8562", "3932", "9175", "9176", "LinuxONE 5"]
Z17 = ("z17", "9175", "9176", "LinuxONE 5")


@st.composite
def cpc_models(draw):
    machine = draw(st.sampled_from(MACHINES))
    names = draw(st.lists(NAMES, min_size=1, max_size=6, unique=True))
    mifs = draw(st.permutations(range(1, 16)))[: len(names)]
    partitions = [
        {"name": n, "mif_id": m if draw(st.booleans()) else "%X" % m, "host": draw(st.none() | HOSTS)}
        for n, m in zip(names, mifs)
    ]
    pick = st.sampled_from(names)
    subset = st.lists(pick, min_size=1, max_size=len(names), unique=True)
    pnet_pool = iter(draw(st.lists(PNETS, min_size=12, max_size=12, unique=True)))
    chpids = iter(draw(st.lists(st.integers(0, 255), min_size=8, max_size=8, unique=True)))
    next_cu = [0x1000]
    next_dev = [0x0100]

    def control_units(max_units):
        result = []
        for _i in range(draw(st.integers(1, max_units))):
            count = draw(st.integers(1, 256))
            result.append({"number": "%04X" % next_cu[0], "devices": {"first": "%04X" % next_dev[0], "count": count}})
            next_cu[0] += 1
            next_dev[0] += count + draw(st.integers(0, 40))
        return result

    hipersockets = []
    for _i in range(draw(st.integers(0, 3))):
        chp = {
            "chpid": "%02X" % next(chpids),
            "frame_size": draw(st.sampled_from(["16K", "24K", "40K", "64K"])),
            "partitions": draw(subset),
            "control_units": control_units(3),
        }
        if draw(st.booleans()):
            chp["pnet_id"] = next(pnet_pool)
        if draw(st.booleans()):
            chp["vchid"] = draw(st.integers(0x600, 0x6FF))
        hipersockets.append(chp)
    osa = []
    if draw(st.booleans()):
        osa.append(
            {
                "chpid": "%02X" % next(chpids),
                "pchid": draw(st.integers(0x100, 0x1FF)),
                "partitions": draw(subset),
                "control_units": control_units(2),
                "pnet_id": draw(st.none() | st.just(next(pnet_pool))),
            }
        )
    fids = iter(draw(st.lists(st.integers(1, 0xFFFFFFFF), min_size=40, max_size=40, unique=True)))
    uids = iter(draw(st.lists(st.integers(1, 0xFFFF), min_size=40, max_size=40, unique=True)))
    guests = iter(draw(st.lists(GUESTS, min_size=40, max_size=40, unique=True)))
    ism = []
    for vchid in draw(st.lists(st.integers(0x700, 0x7FF), max_size=4, unique=True)):
        vpnet = draw(st.none() | st.just(next(pnet_pool)))
        funcs = []
        for vf in draw(st.lists(st.integers(1, 255), min_size=1, max_size=5, unique=True)):
            func = {"fid": next(fids), "vf": vf, "partition": draw(pick)}
            if draw(st.booleans()):
                func["uid"] = next(uids)
            if draw(st.booleans()):
                func["guest"] = next(guests)
            choice = draw(st.integers(0, 2))
            if choice == 1:
                func["candidates"] = "*"
            elif choice == 2:
                func["candidates"] = draw(subset)
            if draw(st.integers(0, 4)) == 0:
                func["pnet_id"] = draw(st.none() | st.just(vpnet) | PNETS)
            funcs.append(func)
        item = {"vchid": vchid if draw(st.booleans()) else "%03X" % vchid, "functions": funcs}
        if vpnet is not None:
            item["pnet_id"] = vpnet
        ism.append(item)
    roce = []
    if machine not in Z17 and draw(st.booleans()):
        rtype = draw(st.sampled_from(["ROCE", "ROC2"]))
        funcs = []
        for vf in draw(st.lists(st.integers(1, 126), min_size=1, max_size=3, unique=True)):
            func = {
                "fid": next(fids),
                "vf": vf,
                "partition": draw(pick),
                "uid": next(uids),
                "pnet_id": draw(st.none() | PNETS),
            }
            if rtype == "ROC2":
                func["port"] = draw(st.sampled_from([1, 2]))
            funcs.append(func)
        roce.append({"pchid": draw(st.integers(0x200, 0x2FF)), "type": rtype, "functions": funcs})
    ports = []
    pchids = iter(draw(st.lists(st.integers(0x300, 0x3FF), min_size=3, max_size=3, unique=True)))
    cards = ["NX%d" % i for i in range(2)]
    for _i in range(draw(st.integers(0, 3)) if machine in Z17 else 0):
        ntype = draw(st.sampled_from(["NETH", "NETD"]))
        pnet = draw(st.none() | st.just(next(pnet_pool)))
        port = {"pchid": next(pchids), "type": ntype, "functions": []}
        if pnet is not None:
            port["pnet_id"] = pnet
        card = draw(st.none() | st.sampled_from(cards))
        if card is not None and sum(1 for p in ports if p.get("card") == card) < 2:
            if all(p["type"] == ntype for p in ports if p.get("card") == card):
                port["card"] = card
        high = 123 if ntype == "NETH" else 127
        vfs = draw(st.lists(st.integers(0, high), max_size=3, unique=True))
        for vf in vfs:
            func = {"fid": next(fids), "vf": vf, "partition": draw(pick)}
            if draw(st.booleans()):
                func["uid"] = next(uids)
            if ntype == "NETH" and draw(st.booleans()):
                func["fidparm"] = draw(st.sampled_from(["00", "01", 0, 1]))
            port["functions"].append(func)
        if ntype == "NETD" and draw(st.booleans()):
            port["functions"].append({"fid": next(fids), "pf": True, "partition": draw(pick), "uid": next(uids)})
        if ntype == "NETH" and (not vfs or draw(st.booleans())):
            osh = {"chpid": "%02X" % next(chpids), "partitions": draw(subset)}
            if draw(st.booleans()):
                osh["control_units"] = control_units(2)
            port["osh"] = osh
        if not port["functions"] and "osh" not in port:
            port["functions"].append({"fid": next(fids), "vf": 1, "partition": draw(pick)})
        ports.append(port)
    endpoints = list(names) + [f["guest"] for v in ism for f in v["functions"] if "guest" in f]
    peers = draw(st.lists(st.lists(st.sampled_from(endpoints), min_size=2, max_size=4), max_size=2))
    return {
        "name": draw(NAMES),
        "machine": machine,
        "css": draw(st.integers(0, 5)),
        "partitions": partitions,
        "uid_checking": draw(st.lists(pick, unique=True)),
        "hipersockets": hipersockets,
        "osa": osa,
        "ism": ism,
        "roce": roce,
        "network_express": ports,
        "smcd_peers": peers,
    }


def _field_errors(errors):
    """Errors of the normaliser (bad fields); cross-object rule violations are allowed here."""
    return [e for e in errors if " is not " in e and "cannot use SMC-D" not in e]


@settings(max_examples=100, deadline=None)
@given(cpc_models())
def test_parsed_rendered_model_is_the_model(cpc):
    model, errors, _w = normalize_cpc(cpc)
    assert _field_errors(errors) == []
    fragment = render_fragment(model)
    assert all(len(line) <= 72 for line in fragment.splitlines())
    parsed = parse_deck(fragment)
    assert parsed["unparsed"] == []
    assert parsed["warnings"] == []
    again, errors_again, _w2 = normalize_cpc(parsed["cpc"])
    assert again == model
    assert sorted(errors_again) == sorted(errors)
    assert compare_models(model, again) == []


@settings(max_examples=30, deadline=None)
@given(cpc_models())
def test_rendering_is_deterministic_and_a_fixed_point(cpc):
    model, _e, _w = normalize_cpc(cpc)
    fragment = render_fragment(model)
    again, _e2, _w2 = normalize_cpc(parse_deck(fragment)["cpc"])
    assert render_fragment(again) == fragment
