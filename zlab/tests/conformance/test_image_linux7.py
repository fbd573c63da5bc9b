# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Linux 7.x real-kernel image and its SMC kernel, without building or booting: the host
kinds, the pinned kernel, the configuration the rebuild derives from Debian's, the QEMU command
line of each kind. Debian's configuration lines are those of linux-headers-7.2.11+deb13-s390x
(tests/unit/fixtures/smc/7.2.11+deb13-s390x/ holds what the booted kernels showed)."""

import os

import pytest

from zlab import image_s390x, model, qemu_newer, qemu_s390x, smc_dibs_kernel

# lines of Debian's .config for 7.2.11+deb13-s390x (linux-headers package)
DEBIAN = [
    "CONFIG_INET=y\n",
    "# CONFIG_DIBS is not set\n",
    "CONFIG_INFINIBAND=m\n",
    "CONFIG_RDMA_RXE=m\n",
    "CONFIG_VIRTIO_BLK=m\n",
    "CONFIG_EXT4_FS=m\n",
    "CONFIG_NF_TABLES=m\n",
    'CONFIG_MODULE_SIG_KEY="output/signing_key.pem"\n',
    "CONFIG_DEBUG_INFO=y\n",
]


def test_the_two_linux7_kinds_share_one_image_and_the_612_key_is_unchanged():
    assert model.HOST_KINDS == ("namespace",) + tuple(image_s390x.KINDS)
    keys = [image_s390x.image_key(k) for k in image_s390x.KINDS]
    assert [k.rsplit("-", 1)[0] for k in keys] == [image_s390x.KIND, image_s390x.LINUX7_SMC, image_s390x.LINUX7_SMC]
    assert image_s390x.image_path(kind=image_s390x.LINUX7) == image_s390x.image_path(kind=image_s390x.LINUX7_SMC)
    # the 6.12 image: Debian's kernel of the suite, its key as before the Linux 7.x kinds
    assert image_s390x.packages() == image_s390x.PACKAGES
    assert image_s390x.image_key() == "debian13-s390x-5be9611b49fb"
    with pytest.raises(ValueError, match="zlab_kind debian12-s390x is not one of"):
        image_s390x.packages("debian12-s390x")


def test_linux7_packages_pin_one_kernel_build():
    for kind in (image_s390x.LINUX7, image_s390x.LINUX7_SMC):
        pkgs = image_s390x.packages(kind)
        assert [p for p in pkgs if "=" in p] == [
            "linux-image-7.2.11+deb13-s390x=7.2.11-1~bpo13+1",
            "linux-binary-7.2.11+deb13-s390x=7.2.11-1~bpo13+1",
            "linux-modules-7.2.11+deb13-s390x=7.2.11-1~bpo13+1",
            "linux-base-7.2.11+deb13-s390x=7.2.11-1~bpo13+1",
            "linux-base=4.17~bpo13+1",
        ]
        assert "linux-image-s390x" not in pkgs
        assert image_s390x.KINDS[kind]["suites"] == ("trixie", "trixie-backports")
    assert image_s390x.KINDS[image_s390x.LINUX7]["smc"] == "none"


def test_files_of_each_kind(tmp_path):
    stock = image_s390x.files(str(tmp_path), image_s390x.LINUX7)
    smc = image_s390x.files(str(tmp_path), image_s390x.LINUX7_SMC)
    assert stock["initrd"].endswith("/initrd.img") and stock["kernel"].endswith("/vmlinuz")
    assert smc["initrd"] is None and smc["kernel"].endswith("/vmlinuz-smc")
    assert os.path.dirname(smc["disk"]) == image_s390x.image_path(str(tmp_path), image_s390x.LINUX7_SMC)


def test_trim_config_sets_dibs_and_smc_and_drops_unused_modules():
    lines = smc_dibs_kernel.trim_config(DEBIAN, keep=("CONFIG_INFINIBAND", "CONFIG_RDMA_RXE"))
    text = "".join(lines)
    for line in smc_dibs_kernel.CONFIG:
        assert line + "\n" in lines
    assert "# CONFIG_DIBS is not set" not in text  # replaced, not left beside the new value
    assert "CONFIG_INFINIBAND=m\n" in lines and "CONFIG_RDMA_RXE=m\n" in lines
    assert "# CONFIG_NF_TABLES is not set\n" in lines and "CONFIG_NF_TABLES=m" not in text
    assert "output/signing_key.pem" not in text and "CONFIG_INET=y\n" in lines
    # VIRTIO_BLK and EXT4_FS: built in (no initramfs), each once
    assert text.count("CONFIG_VIRTIO_BLK=") == 1 and "CONFIG_VIRTIO_BLK=y\n" in lines


def test_missing_settings_names_what_olddefconfig_dropped():
    good = list(smc_dibs_kernel.CONFIG) + ["CONFIG_INFINIBAND=m"]
    assert not smc_dibs_kernel.missing_settings(good, keep=("CONFIG_INFINIBAND",))
    dropped = [line for line in good if line != "CONFIG_SMC=m"]
    assert smc_dibs_kernel.missing_settings(dropped, keep=("CONFIG_INFINIBAND", "CONFIG_RDMA_RXE")) == [
        "CONFIG_SMC=m",
        "CONFIG_RDMA_RXE",
    ]


def test_release_and_cache_path(tmp_path):
    assert smc_dibs_kernel.smc_release("7.2.11+deb13-s390x") == "7.2.11+deb13-s390x-smc"
    path = smc_dibs_kernel.cache_path("7.2.11-1~bpo13+1", str(tmp_path))
    assert path == str(tmp_path / "smc-dibs-kernel" / ("7.2.11-1_bpo13+1-" + smc_dibs_kernel.recipe_key()))
    for bad in ("../x", "7.2 x", ""):
        with pytest.raises(ValueError):
            smc_dibs_kernel.cache_path(bad, str(tmp_path))
    with pytest.raises(ValueError):
        smc_dibs_kernel.smc_release("7.2; reboot")


def test_prune_keeps_the_recipe_and_builds_under_way(tmp_path):
    base = tmp_path / "smc-dibs-kernel"
    keep = base / ("7.2.11-1_bpo13+1-" + smc_dibs_kernel.recipe_key())
    old = base / "7.2.11-1_bpo13+1-00000000"
    busy = base / "zlab-smc-dibs-kernel.tmp-42"
    for d in (keep, old, busy):
        d.mkdir(parents=True)
    smc_dibs_kernel.prune(str(tmp_path))
    assert keep.is_dir() and busy.is_dir() and not old.exists()


@pytest.mark.parametrize("kind", [image_s390x.LINUX7, image_s390x.LINUX7_SMC])
def test_qemu_command_line_of_the_linux7_kinds(tmp_path, kind, monkeypatch):
    newer = ("/cache/qemu/10/usr/bin/qemu-system-s390x", "/cache/qemu/10/usr/share/qemu")
    monkeypatch.setattr(qemu_s390x, "QEMU", "")
    monkeypatch.setattr(qemu_newer, "ensure", lambda: newer)

    class StubLab:  # what qemu_argv reads of a Lab
        name = "x"
        hosts = {"solo": {"ip": "10.209.7.10", "kind": kind, "spec": {}}}

        @staticmethod
        def key_file():
            return str(tmp_path / "id_ed25519")

        @staticmethod
        def hdir(host, *parts):
            return os.path.join(str(tmp_path), host, *parts)

    (tmp_path / "id_ed25519.pub").write_text("ssh-ed25519 AAAAKEY zlab-x\n")
    argv = qemu_s390x.qemu_argv(StubLab(), "solo", "02:5a:07:00:00:00", "/d.qcow2")
    append = argv[argv.index("-append") + 1].split()
    kernel = argv[argv.index("-kernel") + 1]
    assert qemu_s390x.is_real(StubLab.hosts["solo"])
    assert argv[0] == newer[0] and argv[1:3] == ["-L", newer[1]]  # Debian 12's QEMU 7.2 panics there
    assert os.path.basename(os.path.dirname(kernel)) == image_s390x.image_key(kind)
    if kind == image_s390x.LINUX7_SMC:
        assert os.path.basename(kernel) == "vmlinuz-smc" and "-initrd" not in argv and "rootwait" in append
    else:
        assert os.path.basename(kernel) == "vmlinuz" and "-initrd" in argv and "rootwait" not in append


def test_the_612_kind_runs_under_the_machines_qemu_unless_one_is_named(monkeypatch):
    monkeypatch.setattr(qemu_s390x, "QEMU", "")
    monkeypatch.setattr(qemu_newer, "ensure", lambda: pytest.fail("the 6.12 kind fetched the newer QEMU"))
    assert qemu_s390x.qemu_program(image_s390x.KIND) == ("qemu-system-s390x", "")
    monkeypatch.setattr(qemu_s390x, "QEMU", "/opt/q/bin/qemu-system-s390x")
    monkeypatch.setattr(qemu_s390x, "QEMU_DATADIR", "/opt/q/share")
    for kind in image_s390x.KINDS:
        assert qemu_s390x.qemu_program(kind) == ("/opt/q/bin/qemu-system-s390x", "/opt/q/share")


def test_the_newer_qemu_is_a_pinned_backport_cached_by_version(tmp_path):
    program, datadir = qemu_newer.paths(str(tmp_path))
    assert program == str(tmp_path / "qemu" / "10.0.2+ds-2+deb13u1_bpo12+1" / "usr" / "bin" / "qemu-system-s390x")
    assert datadir == str(tmp_path / "qemu" / "10.0.2+ds-2+deb13u1_bpo12+1" / "usr" / "share" / "qemu")
    assert qemu_newer.SUITE == "bookworm-backports" and qemu_newer.VERSION.startswith("1:10.")


def test_a_library_the_machine_lacks_is_named():
    ldd = (
        "\tlinux-vdso.so.1 (0x00007ffd)\n"
        "\tliburing.so.2 => not found\n"
        "\tlibslirp.so.0 => /lib/x86_64-linux-gnu/libslirp.so.0 (0x00007f1)\n"
        "\tlibpmem.so.1 => not found\n"
    )
    assert qemu_newer.not_found(ldd) == ["liburing.so.2", "libpmem.so.1"][::-1]
    assert qemu_newer.unresolved_libraries("/bin/true") == []
