"""The addresses ``arena serve`` answers (app/serve.py): ``AllowedHosts`` (the ``Host`` and
``Origin`` a request must name: the served address, ``localhost`` or an IP address, with the
server's port; a DNS-rebinding page's name is neither), loopback detection and the warning printed
when the server listens on anything but a loopback address.
"""
from __future__ import annotations

import ipaddress
import re
import socket


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a listening address) is reachable from this machine only."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int) -> str | None:
    """The warning ``arena serve`` prints when it listens on more than this machine, else None."""
    if is_loopback(host):
        return None
    where = "every network interface" if host in ("", "0.0.0.0", "::") else host
    return (f"warning: listening on {where} (port {port}): anyone who can reach this port can play "
            f"here and spend this machine's CPU (there is no login). Requests still cannot name files; "
            f"the default, --host 127.0.0.1, keeps the page on this machine.")


def split_host(value: str) -> tuple[str, int | None] | None:
    """``Host`` header -> (lower-case name or IP, port or None); None when malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        name, close, rest = value[1:].partition("]")
        if not close or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else ""
    else:
        name, colon, port_text = value.rpartition(":")
        if not colon:
            name, port_text = value, ""
    if not name or (port_text and not re.fullmatch(r"[0-9]{1,5}", port_text)):
        return None
    return name, int(port_text) if port_text else None


class AllowedHosts:
    """The ``Host`` names that address this server: IP addresses (a rebinding attack needs a name
    the attacker controls; an address is not one), ``localhost``, and the ``--host`` name (with the
    machine's own name when listening on every interface), each with the server's port."""

    def __init__(self, host: str, port: int):
        self.port = port
        self.names = {"localhost"}
        if host and not _is_ip(host):
            self.names.add(host.lower())
        if host in ("", "0.0.0.0", "::"):
            self.names.update({socket.gethostname().lower(), socket.getfqdn().lower()})

    def allows(self, value: str | None) -> bool:
        parts = split_host(value or "")
        if parts is None:
            return False
        name, port = parts
        if (port if port is not None else 80) != self.port:
            return False
        return name in self.names or _is_ip(name)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True
