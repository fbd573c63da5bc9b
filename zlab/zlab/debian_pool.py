# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Debian mirror whose package index is ahead of its pool.

A caching mirror (or one half way through a sync) can list a point release's new version of a
package in ``Packages`` while its pool still holds only the version before: apt then fails with
``404 Not Found`` for that one file and nothing gets built. This module finds, for every file apt
would fetch that the pool does not serve, the newest older version the pool does serve (a point
release's ``+deb13u5`` -> ``+deb13u4``, a kernel ``6.12.117-1`` -> ``6.12.107-1`` together with the
packages whose names carry the version), puts those files into a local repository and pins them,
so that apt and mmdebstrap install a consistent older set instead of failing.

The fallback files are not covered by the mirror's signed index (it no longer lists them); they are
lab content, checked by ``dpkg-deb`` and named by the version apt resolves. Nothing changes when the
pool serves everything the index lists.
"""

import concurrent.futures
import itertools
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

# how far below the listed version a number is tried (a kernel ABI advances by ten and more)
MAX_STEPS = 16
PASSES = 8
HEAD_THREADS = 16


_SEEN = {}


def exists(url, timeout=30):
    """Whether the mirror serves ``url`` (HEAD; remembered for the process)."""
    if url not in _SEEN:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout) as resp:
                _SEEN[url] = resp.status == 200
        except (urllib.error.URLError, OSError):
            _SEEN[url] = False
    return _SEEN[url]


def exist_all(urls):
    """exists() of each URL, asked HEAD_THREADS at a time."""
    with concurrent.futures.ThreadPoolExecutor(HEAD_THREADS) as pool:
        return list(pool.map(exists, urls))


def parse_uri(line):
    """One line of ``apt-get --print-uris``: ``'URL' FILE SIZE HASH`` -> (url, name, version, arch)."""
    m = re.match(r"^'([^']+)'\s+(\S+)", line)
    if not m:
        return None
    url = m.group(1)
    base = urllib.parse.unquote(url.rsplit("/", 1)[1])
    parts = base[: -len(".deb")].split("_") if base.endswith(".deb") else []
    if len(parts) != 3:
        return None
    name, version, arch = parts
    return url, name, version.replace("%3a", ":"), arch


def _upstream(version):
    v = version.split(":", 1)[-1]
    return v.rsplit("-", 1)[0] if "-" in v else v


def older_versions(version):
    """Versions below ``version`` to try, likeliest first: each number from the right lowered by 1
    to MAX_STEPS; where that is not the last number (the point-release counter of ``+deb13u5``, or
    the Debian revision), the last one also as 1 to 4 (``3.5.9-1~deb13u1`` -> ``3.5.7-1~deb13u2``);
    a counter that reaches 0 also without its suffix, and then as a binNMU (``1.1.0-2+deb13u1`` ->
    ``1.1.0-2+b7``). After all those, every other candidate as a binNMU (``+b1`` to ``+b9``)."""
    tokens = re.split(r"(\d+)", version)
    last = len(tokens) - 2
    seen = set([version])
    plain = []
    for index in range(last, 0, -2):
        value = int(tokens[index])
        for step in range(1, MAX_STEPS + 1):
            if value - step < 0:
                break
            lowered = tokens[:index] + [str(value - step)] + tokens[index + 1 :]
            lasts = [lowered[last]] + ([str(k) for k in range(1, 5)] if index != last else [])
            for k in lasts:
                text = "".join(lowered[:last] + [k] + lowered[last + 1 :])
                variants = [text]
                if k == "0":
                    bare = re.sub(r"[+~]deb\d+u0$", "", text)
                    variants += [bare] + [bare + "+b%d" % n for n in range(1, 10)]
                for v in variants:
                    if v not in seen:
                        seen.add(v)
                        plain.append(v)
                        yield v
    for v in plain:
        for n in range(1, 10):
            if v + "+b%d" % n not in seen:
                seen.add(v + "+b%d" % n)
                yield v + "+b%d" % n


def pool_url(base_url, name, version, arch):
    """The URL of a package file in the pool directory ``base_url`` (no epoch in file names)."""
    quoted = urllib.parse.quote("%s_%s_%s.deb" % (name, version.split(":", 1)[-1], arch), safe="")
    return base_url + "/" + quoted


def download_pinned(apt_options, pool_dir, packages, version, dest, log=sys.stderr):
    """``packages`` (``[(name, arch)]``) of exactly ``version`` into ``dest``: apt-get download from
    the signed index, else straight from the pool directory ``pool_dir`` (a version the index no
    longer lists)."""
    got = subprocess.run(
        ["apt-get"] + apt_options + ["download"] + ["%s=%s" % (name, version) for name, _arch in packages],
        cwd=dest,
        capture_output=True,
        text=True,
        check=False,
    )
    if got.returncode == 0:
        return
    print("zlab: apt-get download failed, taking the files from the pool: %s" % got.stderr.strip(), file=log)
    for name, arch in packages:
        url = pool_url(pool_dir, name, version, arch)
        if not exists(url):
            raise RuntimeError("apt-get download %s failed and the pool has no %s:\n%s" % (name, url, got.stderr))
        download(url, dest)


def find_older(url, name, version, arch):
    """(url, name, version) of the newest older build the pool serves, or None. A name that carries
    the upstream version (``linux-image-6.12.117+deb13-s390x``) follows it."""
    base_url = url.rsplit("/", 1)[0]
    upstream = _upstream(version)
    candidates = older_versions(version)
    while True:
        batch = []
        for cand in itertools.islice(candidates, HEAD_THREADS * 4):
            cand_name = name.replace(upstream, _upstream(cand)) if upstream in name else name
            batch.append((pool_url(base_url, cand_name, cand, arch), cand_name, cand))
        if not batch:
            return None
        for found, item in zip(exist_all([b[0] for b in batch]), batch):
            if found:
                return item


def download(url, dest_dir):
    path = os.path.join(dest_dir, urllib.parse.unquote(url.rsplit("/", 1)[1]))
    tmp = path + ".part"
    with urllib.request.urlopen(url, timeout=300) as resp, open(tmp, "wb") as out:
        shutil.copyfileobj(resp, out)
    subprocess.run(["dpkg-deb", "--info", tmp], check=True, capture_output=True)
    os.rename(tmp, path)
    return path


class LocalRepo(object):
    """Fallback packages in ``path``: a flat repository (Packages) and an apt preferences file that
    pins each to its version."""

    def __init__(self, path):
        self.path = path
        self.pins = {}  # name -> version
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)

    def __bool__(self):
        return bool(self.pins)

    def add(self, url, name, version):
        path = download(url, self.path)
        # the version with its epoch (file names leave it out; a pin needs it)
        full = subprocess.run(["dpkg-deb", "-f", path, "Version"], capture_output=True, text=True, check=True)
        self.pins[name] = full.stdout.strip() or version

    def write(self):
        with open(os.path.join(self.path, "Packages"), "w", encoding="utf-8") as f:
            f.write(
                subprocess.run(
                    ["dpkg-scanpackages", "--multiversion", "."],
                    cwd=self.path,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
        with open(self.preferences_path, "w", encoding="utf-8") as f:
            f.write(self.preferences())

    @property
    def preferences_path(self):
        return os.path.join(self.path, "zlab-pool.pref")

    def preferences(self):
        return "".join(
            "Package: %s\nPin: version %s\nPin-Priority: 1001\n\n" % (name, version)
            for name, version in sorted(self.pins.items())
        )

    def source_line(self):
        return "deb [trusted=yes] file:%s ./\n" % self.path


def apt_preferences_options(repo):
    return ["-o", "Dir::Etc::Preferences=" + repo.preferences_path, "-o", "Dir::Etc::PreferencesParts=/nonexistent"]


def resolve(apt_options, sources_path, base_sources, packages, repo, log=sys.stderr, command="install"):
    """Fill ``repo`` until every file apt needs for ``packages`` is served (by the pool or by
    ``repo``); returns the apt options that use it. ``apt_options``: a private apt
    (zlab.s390tools._apt_options) whose sources file is ``sources_path``, holding ``base_sources``.
    ``command``: install (the packages and all they depend on) or download (just the packages)."""
    for _pass in range(PASSES):
        opts = list(apt_options)
        with open(sources_path, "w", encoding="ascii") as f:
            f.write(base_sources + (repo.source_line() if repo else ""))
        if repo:
            repo.write()
            opts += apt_preferences_options(repo)
        up = subprocess.run(["apt-get"] + opts + ["update"], capture_output=True, text=True, check=False)
        if up.returncode != 0:
            raise RuntimeError("apt-get update failed:\n%s" % up.stderr[-2000:])
        args = ["install", "-y", "--print-uris", "-qq"] if command == "install" else ["download", "--print-uris"]
        out = subprocess.run(["apt-get"] + opts + args + list(packages), capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError("apt-get cannot resolve %s:\n%s" % (" ".join(packages), out.stderr[-2000:]))
        items = [i for i in (parse_uri(line) for line in out.stdout.splitlines()) if i and not i[0].startswith("file:")]
        missing = [i for i, found in zip(items, exist_all([i[0] for i in items])) if not found]
        if not missing:
            return opts
        for url, name, version, arch in missing:
            found = find_older(url, name, version, arch)
            if found is None:
                raise RuntimeError(
                    "the mirror lists %s %s (%s) but serves neither it nor an older build" % (name, version, arch)
                )
            print(
                "zlab: %s %s is not in the mirror's pool; using %s %s" % (name, version, found[1], found[2]),
                file=log,
                flush=True,
            )
            repo.add(*found)
    raise RuntimeError(
        "the mirror's pool still lacks packages after %d passes: %s" % (PASSES, ", ".join(i[1] for i in missing))
    )
