"""Where the phones find this computer: its network addresses and name, and the address that goes into
a link or QR code made for another phone.

A link made on the computer itself (opened as ``localhost`` or ``127.0.0.1``) must not carry that
address: on a phone it means the phone. Such links get the computer's network address instead, or the
configured ``PUBLIC_URL`` when the family serves the app under its own domain.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import time
from functools import cache
from urllib.parse import urlsplit

from flask import current_app, request, url_for

# Documentation addresses (RFC 5737, 3849): connecting a UDP socket to one sends nothing, but
# makes the system choose the interface it would use, which is the one the Wi-Fi router sees.
_PROBES = {socket.AF_INET: "192.0.2.1", socket.AF_INET6: "2001:db8::1"}
_HOST_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_HOST = re.compile(r"^[A-Za-z0-9.:\[\]-]{1,255}$")  # what a Host header may hold for us to echo it


def _usable(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """An address another device could use to reach this one."""
    return not (address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast)


def _route_address(family: socket.AddressFamily) -> str | None:
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((_PROBES[family], 9))
            return probe.getsockname()[0]
    except OSError:
        return None  # no network of that kind


def discover_addresses() -> list[str]:
    """This computer's IPv4 addresses that phones may use, the one on the default route first,
    private (home network) addresses before others."""
    found = [_route_address(socket.AF_INET)]
    try:
        found += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass  # the computer's own name does not resolve: the route's address is what there is
    unique = list(dict.fromkeys(a for a in found if a and _usable(ipaddress.ip_address(a))))
    return sorted(unique, key=lambda a: not ipaddress.ip_address(a).is_private)


@cache
def _discovered(minute: int) -> tuple[str, ...]:
    return tuple(discover_addresses())


def lan_addresses() -> list[str]:
    """The addresses ``serve`` listens on for phones (``LAN_ADDRESSES``), else the discovered ones
    (looked up at most once a minute: the computer's own name may take DNS a while)."""
    configured = current_app.config.get("LAN_ADDRESSES")
    if configured is not None:
        return list(configured)
    return list(_discovered(int(time.monotonic() // 60)))


def local_name() -> str | None:
    """This computer's name on the home network, ``NAME.local`` (multicast DNS: Bonjour, Avahi,
    Windows 10 and later), or ``None`` when its host name cannot be one."""
    label = socket.gethostname().split(".")[0].strip().lower().replace(" ", "-").replace("_", "-")
    if not _HOST_NAME.match(label) or label == "localhost":
        return None
    return f"{label}.local"


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback or unspecified address: only this computer can open it."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def with_port(host: str, port: int | None) -> str:
    """``host:port`` for a URL (IPv6 in brackets); the port left out when it is ``None``."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return host if port is None else f"{host}:{port}"


def _split(host: str) -> tuple[str | None, int | None]:
    if not _HOST.match(host):
        return None, None
    try:
        parts = urlsplit(f"//{host}")
        return parts.hostname, parts.port
    except ValueError:  # a broken IPv6 literal or port
        return None, None


def hostname_of(host: str) -> str | None:
    """The name or address in a ``Host`` header, without the port, if it is one we may echo back."""
    return _split(host)[0]


def phone_host() -> str:
    """The name or address another phone reaches this server at: the request's own, except on this
    computer's loopback, where the first network address (if there is one) replaces it."""
    hostname = hostname_of(request.host) or "localhost"
    if is_loopback(hostname):
        return next(iter(lan_addresses()), hostname)
    return hostname


def base_url() -> str:
    """Scheme and host for a link another phone will open: ``PUBLIC_URL`` when set, else the
    request's scheme and port at ``phone_host``."""
    public = current_app.config.get("PUBLIC_URL")
    if public:
        parts = urlsplit(public)
        return f"{parts.scheme}://{parts.netloc}"
    return f"{request.scheme}://{with_port(phone_host(), _split(request.host)[1])}"


def external_url(endpoint: str, **values) -> str:
    """``url_for(endpoint, **values)`` as a whole address another phone can open (``base_url``)."""
    return base_url() + url_for(endpoint, **values)


def check_public_url(app) -> None:
    """``PUBLIC_URL`` is ``http(s)://host[:port]`` or unset; anything else stops the start."""
    public = app.config.get("PUBLIC_URL")
    if not public:
        return
    parts = urlsplit(str(public))
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.query:
        raise ValueError(
            f"PUBLIC_URL must be the address phones use, such as https://cards.example.org, not {public!r}."
        )
