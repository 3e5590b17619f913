"""A self-signed certificate for serving the emulated BMCs over HTTPS.

Real BlueField BMCs answer Redfish only on HTTPS (port 443) with a self-signed certificate
until an operator installs one (7.3: ``Truststore/Certificates``) [S4]; clients therefore turn
verification off or pin the certificate. The emulator does the same on loopback.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def write_self_signed(directory: Path, not_before: dt.datetime) -> tuple[Path, Path]:
    """Write ``bmc.key`` and ``bmc.crt`` (EC P-256, 10 years, SAN 127.0.0.1/localhost) into
    ``directory``; returns (key path, certificate path). ``not_before`` is passed in so the
    certificate does not depend on the wall clock inside this function."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fabrictwin emulated BMC")])
    san = x509.SubjectAlternativeName(
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_before + dt.timedelta(days=3650))
        .add_extension(san, critical=False)
        .sign(key, hashes.SHA256())
    )
    key_path, cert_path = directory / "bmc.key", directory / "bmc.crt"
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path
