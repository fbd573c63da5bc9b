# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zlab.debian_pool: older builds where a mirror's index lists files its pool does not serve.

The version pairs are those met on a Debian 13 s390x mirror whose index had moved to the next
point release while its pool still held the builds before (listed -> served)."""

import functools
import http.server
import os
import shutil
import subprocess
import threading

import pytest

from zlab import debian_pool

MET = [
    ("2.41-12+deb13u5", "2.41-12+deb13u4"),  # libc6
    ("3.5.9-1~deb13u1", "3.5.7-1~deb13u2"),  # libssl3t64: upstream down, counter up
    ("6.12.117-1", "6.12.107-1"),  # linux-image-s390x: ten kernel releases back
    ("1.3.dfsg+really1.3.1-1+deb13u1", "1.3.dfsg+really1.3.1-1+b1"),  # zlib1g: the release, rebuilt
    ("1.1.0-2+deb13u1", "1.1.0-2+b7"),  # libbrotli1: seventh binNMU
    ("3.0.4", "3.0.3"),  # apt
    ("2.9.0-1~deb13u1", "2.9.0-1"),  # libexpat1
    ("8.14.1-2+deb13u7", "8.14.1-2+deb13u5"),  # libcurl4t64: two point releases back
]


@pytest.mark.parametrize("listed,served", MET)
def test_the_served_build_is_among_the_first_candidates(listed, served):
    candidates = list(debian_pool.older_versions(listed))
    assert listed not in candidates and len(candidates) == len(set(candidates))
    # found in the first two batches of HEAD requests
    assert candidates.index(served) < debian_pool.HEAD_THREADS * 8


def test_print_uris_lines_are_parsed_without_quoting():
    line = (
        "'http://deb.debian.org/debian/pool/main/z/zlib/zlib1g_1.3.dfsg%2breally1.3.1-1%2bdeb13u1_s390x.deb' "
        "zlib1g_1%3a1.3.dfsg+really1.3.1-1+deb13u1_s390x.deb 83412 SHA256:00"
    )
    url, name, version, arch = debian_pool.parse_uri(line)
    assert url.endswith("%2bdeb13u1_s390x.deb")
    assert (name, version, arch) == ("zlib1g", "1.3.dfsg+really1.3.1-1+deb13u1", "s390x")
    assert debian_pool.parse_uri("Reading package lists...") is None


def _deb(directory, name, version, arch="s390x"):
    """A real (empty) Debian package; the file name without the epoch, as in a pool."""
    root = os.path.join(directory, "build-%s" % name)
    os.makedirs(os.path.join(root, "DEBIAN"))
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write(
            "Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: lab <lab@localhost>\n"
            "Description: test package\n" % (name, version, arch)
        )
    path = os.path.join(directory, "%s_%s_%s.deb" % (name, version.split(":", 1)[-1], arch))
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", root, path], check=True, capture_output=True)
    shutil.rmtree(root)
    return path


@pytest.fixture
def pool(tmp_path):
    """A pool directory served over HTTP on loopback; yields (directory, base URL)."""
    directory = tmp_path / "pool"
    directory.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    debian_pool._SEEN.clear()  # pylint: disable=protected-access
    yield str(directory), "http://127.0.0.1:%d" % server.server_address[1]
    server.shutdown()


def test_the_newest_older_build_is_found_and_a_versioned_name_follows_it(pool):
    directory, base = pool
    _deb(directory, "linux-image-6.12.107+deb13-s390x", "6.12.107-1")
    _deb(directory, "linux-image-6.12.99+deb13-s390x", "6.12.99-1")
    listed = base + "/linux-image-6.12.117%2bdeb13-s390x_6.12.117-1_s390x.deb"
    url, name, version = debian_pool.find_older(listed, "linux-image-6.12.117+deb13-s390x", "6.12.117-1", "s390x")
    assert (name, version) == ("linux-image-6.12.107+deb13-s390x", "6.12.107-1")
    assert debian_pool.exists(url)
    assert debian_pool.find_older(base + "/x_1.0-1_s390x.deb", "x", "1.0-1", "s390x") is None


def test_the_local_repository_pins_each_fallback_with_its_epoch(pool, tmp_path):
    directory, base = pool
    _deb(directory, "zlib1g", "1:1.3.dfsg+really1.3.1-1+b1")
    listed = base + "/zlib1g_1.3.dfsg%2breally1.3.1-1%2bdeb13u1_s390x.deb"
    found = debian_pool.find_older(listed, "zlib1g", "1.3.dfsg+really1.3.1-1+deb13u1", "s390x")
    assert found[2] == "1.3.dfsg+really1.3.1-1+b1"
    repo = debian_pool.LocalRepo(str(tmp_path / "repo"))
    assert not repo
    repo.add(*found)
    repo.write()
    assert repo.pins == {"zlib1g": "1:1.3.dfsg+really1.3.1-1+b1"}
    with open(repo.preferences_path) as f:
        assert f.read() == "Package: zlib1g\nPin: version 1:1.3.dfsg+really1.3.1-1+b1\nPin-Priority: 1001\n\n"
    with open(os.path.join(repo.path, "Packages")) as f:
        packages = f.read()
    assert "Package: zlib1g\n" in packages and "Version: 1:1.3.dfsg+really1.3.1-1+b1\n" in packages
    assert repo.source_line() == "deb [trusted=yes] file:%s ./\n" % repo.path
