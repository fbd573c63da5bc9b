# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The libvirt-python calls this collection makes, in one place.

Only these calls are used: ``libvirt.open``, ``listAllDomains``, ``virDomain.name``,
``isActive``, ``isPersistent``, ``XMLDesc``, ``attachDeviceFlags``, ``detachDeviceFlags`` and
``updateDeviceFlags``; the whole domain is never redefined. Unit tests replace the module attribute
``libvirt`` by a fake module with the same names (and set ``HAS_LIBVIRT``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback

LIBVIRT_IMPORT_ERROR = None
try:
    import libvirt

    HAS_LIBVIRT = True
except ImportError:
    libvirt = None
    HAS_LIBVIRT = False
    LIBVIRT_IMPORT_ERROR = traceback.format_exc()

# The distribution packages that provide the bindings (for missing_required_lib).
LIBVIRT_PACKAGES = 'libvirt-python (python3-libvirt on Debian/Ubuntu/RHEL, python3-libvirt-python on SLES)'

# Stable libvirt ABI values, used when the bindings lack a constant.
_DEFAULTS = {
    'VIR_DOMAIN_AFFECT_CURRENT': 0,
    'VIR_DOMAIN_AFFECT_LIVE': 1,
    'VIR_DOMAIN_AFFECT_CONFIG': 2,
    'VIR_DOMAIN_XML_INACTIVE': 2,
}


class LibvirtCallError(Exception):
    """A libvirt call failed; ``call`` names it, the message is libvirt's."""

    def __init__(self, call, message):
        super(LibvirtCallError, self).__init__('%s: %s' % (call, message))
        self.call = call
        self.libvirt_message = message


def constant(name):
    return getattr(libvirt, name, _DEFAULTS[name])


def affect_flags(config=True, live=False):
    flags = 0
    if config:
        flags |= constant('VIR_DOMAIN_AFFECT_CONFIG')
    if live:
        flags |= constant('VIR_DOMAIN_AFFECT_LIVE')
    return flags


def _error_types():
    error = getattr(libvirt, 'libvirtError', None)
    return (error,) if error is not None else ()


def _message(exc):
    getter = getattr(exc, 'get_error_message', None)
    if getter is not None:
        try:
            text = getter()
            if text:
                return text
        except Exception:  # pylint: disable=broad-except
            pass
    return str(exc)


def _ignore_error(context, error):
    return None


class Domain:
    """One libvirt domain."""

    def __init__(self, dom):
        self._dom = dom

    @property
    def name(self):
        return self._dom.name()

    def _call(self, call, func, *args):
        try:
            return func(*args)
        except _error_types() as exc:
            raise LibvirtCallError('%s(%s)' % (call, self.name), _message(exc))

    def is_active(self):
        return bool(self._call('isActive', self._dom.isActive))

    def is_persistent(self):
        return bool(self._call('isPersistent', self._dom.isPersistent))

    def xml(self, inactive=True):
        flags = constant('VIR_DOMAIN_XML_INACTIVE') if inactive else 0
        return self._call('XMLDesc', self._dom.XMLDesc, flags)

    def attach(self, device_xml, config=True, live=False):
        self._call('attachDeviceFlags', self._dom.attachDeviceFlags, device_xml, affect_flags(config, live))

    def detach(self, device_xml, config=True, live=False):
        self._call('detachDeviceFlags', self._dom.detachDeviceFlags, device_xml, affect_flags(config, live))

    def update(self, device_xml, config=True, live=False):
        self._call('updateDeviceFlags', self._dom.updateDeviceFlags, device_xml, affect_flags(config, live))


class Hypervisor:
    """A connection to one libvirt URI."""

    def __init__(self, uri):
        if not HAS_LIBVIRT:
            raise LibvirtCallError('import libvirt', 'the libvirt Python bindings are not installed')
        self.uri = uri
        register = getattr(libvirt, 'registerErrorHandler', None)
        if register is not None:
            # errors reach the caller as exceptions; keep libvirt from also printing them on stderr
            register(_ignore_error, None)
        try:
            self._conn = libvirt.open(uri)
        except _error_types() as exc:
            raise LibvirtCallError('open(%s)' % uri, _message(exc))
        if self._conn is None:
            raise LibvirtCallError('open(%s)' % uri, 'failed to open the connection')

    def domains(self):
        """Every domain, defined or running (persistent and transient)."""
        try:
            return [Domain(dom) for dom in self._conn.listAllDomains(0)]
        except _error_types() as exc:
            raise LibvirtCallError('listAllDomains', _message(exc))

    def domain_names(self):
        return sorted(dom.name for dom in self.domains())

    def lookup(self, name):
        """The domain called ``name``, or None when there is none."""
        for dom in self.domains():
            if dom.name == name:
                return dom
        return None

    def close(self):
        try:
            self._conn.close()
        except _error_types():
            pass
