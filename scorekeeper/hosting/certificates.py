"""The family's own certificate authority, and the certificate it signs for this computer.

No public authority signs a certificate for ``192.168.x.x`` or ``NAME.local``, and phones turn off
offline copies, the screen wake lock, installing and sharing without one. So ``serve --https``
makes a small authority in the instance folder (``tls/ca.crt``; its key readable by the owner
only), which each phone trusts once. It is name-constrained: it can vouch only for ``.local``
names, ``localhost`` and private or loopback addresses, so a stolen key cannot vouch for any
public site. Browsers (Chromium, Firefox, Safari) enforce the constraints.
"""

from __future__ import annotations

import ipaddress
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_LIFETIME = timedelta(days=3650)  # phones trust it once for years
# Apple accepts at most 825 days from an authority a user installed; a year, renewed by itself.
SERVER_LIFETIME = timedelta(days=397)
RENEW_BEFORE = timedelta(days=30)
PERMITTED_NAMES = ("local", "localhost")  # a name and every name below it: NAME.local, localhost
PERMITTED_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",  # home networks (RFC 1918)
    "127.0.0.0/8", "::1/128",  # this computer
    "fc00::/7",  # IPv6 unique local addresses, the home network's own
))


class CertificateError(RuntimeError):
    """The files in the instance's ``tls`` folder cannot be used; the message says what to do."""


@dataclass(frozen=True)
class TlsFiles:
    """The files of ``<instance>/tls``."""

    folder: Path

    @property
    def ca_cert(self) -> Path:
        return self.folder / "ca.crt"

    @property
    def ca_key(self) -> Path:
        return self.folder / "ca.key"

    @property
    def cert(self) -> Path:
        return self.folder / "server.crt"

    @property
    def key(self) -> Path:
        return self.folder / "server.key"


def tls_files(instance_path: str | Path) -> TlsFiles:
    return TlsFiles(Path(instance_path) / "tls")


def permitted(host: str) -> bool:
    """Whether the authority may vouch for this address or name (``PERMITTED_NETWORKS``, ``PERMITTED_NAMES``)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return any(host == name or host.endswith(f".{name}") for name in PERMITTED_NAMES)
    return any(ip in network for network in PERMITTED_NETWORKS)


def fingerprint(cert: x509.Certificate) -> str:
    """SHA-256 of the certificate, as phones show it (``AB:CD:...``)."""
    return cert.fingerprint(hashes.SHA256()).hex(":").upper()


def _now() -> datetime:
    return datetime.now(UTC)


def _write(path: Path, data: bytes, private: bool) -> None:
    """Write ``data`` whole, with mode 0600 from the start for a key (never readable by others, even
    for a moment), by replacing the file, so a crash leaves the old file or the new one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.chmod(tmp, 0o600 if private else 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _name_constraints() -> x509.NameConstraints:
    return x509.NameConstraints(
        permitted_subtrees=[x509.DNSName(n) for n in PERMITTED_NAMES]
        + [x509.IPAddress(network) for network in PERMITTED_NETWORKS],
        excluded_subtrees=None,
    )


def _new_ca(files: TlsFiles, computer: str) -> x509.Certificate:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Scorekeeper"),
        x509.NameAttribute(NameOID.COMMON_NAME, f"Scorekeeper family CA ({computer})"[:64]),
    ])
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + CA_LIFETIME)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(_name_constraints(), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write(files.ca_key, _key_pem(key), private=True)  # the key first: a certificate alone is useless
    _write(files.ca_cert, cert.public_bytes(serialization.Encoding.PEM), private=False)
    return cert


def ensure_ca(files: TlsFiles, computer: str) -> tuple[x509.Certificate, bool]:
    """The family's authority, made on first use: (certificate, whether it was made now)."""
    files.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if files.ca_cert.exists():
        if not files.ca_key.exists():
            raise CertificateError(
                f"{files.ca_key} is missing, so no certificate can be made for this computer. Put it back, or "
                f"delete the folder {files.folder} to start a new authority (every phone then trusts it again)."
            )
        return x509.load_pem_x509_certificate(files.ca_cert.read_bytes()), False
    return _new_ca(files, computer), True


def wanted_names(local_name: str | None, addresses: list[str]) -> list[x509.GeneralName]:
    """The server certificate's names: ``NAME.local``, ``localhost``, loopback, and the addresses the
    authority may vouch for (a public address would make browsers refuse the whole certificate)."""
    names: list[x509.GeneralName] = [x509.DNSName(n) for n in (local_name, "localhost") if n]
    ips = dict.fromkeys(["127.0.0.1", "::1", *(a for a in addresses if permitted(a))])
    return names + [x509.IPAddress(ipaddress.ip_address(a)) for a in ips]


def _current(files: TlsFiles, ca: x509.Certificate, names: list[x509.GeneralName]) -> bool:
    """Whether the server certificate on disk is this authority's, with its key, for these names, and not near
    its end."""
    if not (files.cert.exists() and files.key.exists()):
        return False
    try:
        cert = x509.load_pem_x509_certificate(files.cert.read_bytes())
        cert.verify_directly_issued_by(ca)
        alt = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        key = serialization.load_pem_private_key(files.key.read_bytes(), password=None)
    except (ValueError, TypeError, x509.InvalidSignature, x509.ExtensionNotFound):
        return False
    return (key.public_key() == cert.public_key() and set(alt) == set(names)
            and cert.not_valid_after_utc - _now() > RENEW_BEFORE)


def ensure_server_certificate(files: TlsFiles, ca: x509.Certificate, local_name: str | None,
                              addresses: list[str]) -> bool:
    """Make ``server.crt`` and ``server.key`` unless the ones there still fit; ``True`` if made now."""
    names = wanted_names(local_name, addresses)
    if _current(files, ca, names):
        return False
    ca_key = serialization.load_pem_private_key(files.ca_key.read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, local_name or "localhost")]))
        .issuer_name(ca.subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + SERVER_LIFETIME)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    _write(files.key, _key_pem(key), private=True)
    _write(files.cert, cert.public_bytes(serialization.Encoding.PEM), private=False)
    return True


def ca_pem(instance_path: str | Path) -> bytes | None:
    """The authority's certificate (public: it is what phones install), or ``None`` before ``serve --https``."""
    path = tls_files(instance_path).ca_cert
    return path.read_bytes() if path.exists() else None
