"""IP addresses and CIDR prefixes as the Kubernetes CEL IP and CIDR libraries see them.

Values (:class:`CelIP`, :class:`CelCIDR`) hold :mod:`ipaddress` objects. Parsing
ports Go's ``net/netip`` ``ParseAddr`` / ``ParsePrefix`` (Go 1.26 netip.go) so that
what is accepted and the error texts match upstream, plus the rejections of
k8s.io/apiserver pkg/cel/library ip.go ``parseIPAddr`` (zones, IPv4-mapped IPv6)
and cidr.go ``parseCIDR`` (IPv4-mapped IPv6). The address predicates follow
netip's ``Addr.Is*`` methods (not :mod:`ipaddress`'s IANA-registry ones).
"""

from __future__ import annotations

import ipaddress

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def go_quote(s: str) -> str:
    """Go's strconv.Quote (only needed for error texts)."""
    from dractl.semver import _go_quote

    return _go_quote(s)


class NetParseError(ValueError):
    """A string netip (or the Kubernetes library) refuses."""


class CelIP:
    """apiservercel.IP (a netip.Addr without a zone)."""

    __slots__ = ("a",)

    def __init__(self, a: Address) -> None:
        self.a = a

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelIP) and self.a.version == other.a.version and int(self.a) == int(other.a)

    def __hash__(self) -> int:
        return hash((self.a.version, int(self.a)))

    def __str__(self) -> str:
        return str(self.a)  # RFC 5952, like netip's Addr.String (IPv4-mapped addresses never get here)

    def __repr__(self) -> str:
        return f"ip({str(self)!r})"


class CelCIDR:
    """apiservercel.CIDR (a netip.Prefix: the address as written, not masked, and the prefix length)."""

    __slots__ = ("a", "bits")

    def __init__(self, a: Address, bits: int) -> None:
        self.a = a
        self.bits = bits

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, CelCIDR) and self.bits == other.bits and self.a.version == other.a.version
                and int(self.a) == int(other.a))

    def __hash__(self) -> int:
        return hash((self.a.version, int(self.a), self.bits))

    def __str__(self) -> str:
        return f"{self.a}/{self.bits}"

    def __repr__(self) -> str:
        return f"cidr({str(self)!r})"


# ----------------------------------------------------------------------------- netip.ParseAddr


def _addr_error(inp: str, msg: str, at: str = "") -> NetParseError:
    if at:
        return NetParseError(f"ParseAddr({go_quote(inp)}): {msg} (at {go_quote(at)})")
    return NetParseError(f"ParseAddr({go_quote(inp)}): {msg}")


def _v4_fields(inp: str, off: int, end: int) -> list[int]:
    """Parse the IPv4 fields of ``inp[off:end]`` as netip's parseIPv4Fields does."""
    s = inp[off:end]
    fields = [0, 0, 0, 0]
    val = pos = dig = 0
    for i, c in enumerate(s):
        if "0" <= c <= "9":
            if dig == 1 and val == 0:
                raise _addr_error(inp, "IPv4 field has octet with leading zero")
            val = val * 10 + ord(c) - 48
            dig += 1
            if val > 255:
                raise _addr_error(inp, "IPv4 field has value >255")
        elif c == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise _addr_error(inp, "IPv4 field must have at least one digit", s[i:])
            if pos == 3:
                raise _addr_error(inp, "IPv4 address too long")
            fields[pos] = val
            pos += 1
            val = dig = 0
        else:
            raise _addr_error(inp, "unexpected character", s[i:])
    if pos < 3:
        raise _addr_error(inp, "IPv4 address too short")
    fields[3] = val
    return fields


_HEX = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}


def _parse_v6(inp: str) -> tuple[int, str]:
    """Parse an IPv6 address as netip's parseIPv6 does: (the 128-bit value, the zone)."""
    s = inp
    zone = ""
    i = s.find("%")
    if i != -1:
        s, zone = s[:i], s[i + 1:]
        if zone == "":
            raise _addr_error(inp, "zone must be a non-empty string")
    ip = [0] * 16
    ellipsis = -1
    if len(s) >= 2 and s[0] == ":" and s[1] == ":":
        ellipsis = 0
        s = s[2:]
        if not s:
            return 0, zone
    i = 0
    while i < 16:
        off = 0
        acc = 0
        while off < len(s):
            d = _HEX.get(s[off])
            if d is None:
                break
            acc = (acc << 4) + d
            if off > 3:
                raise _addr_error(inp, "each group must have 4 or less digits", s)
            if acc > 0xFFFF:
                raise _addr_error(inp, "IPv6 field has value >=2^16", s)
            off += 1
        if off == 0:
            raise _addr_error(inp, "each colon-separated field must have at least one digit", s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise _addr_error(inp, "embedded IPv4 address must replace the final 2 fields of the address", s)
            if i + 4 > 16:
                raise _addr_error(inp, "too many hex fields to fit an embedded IPv4 at the end of the address", s)
            end = len(inp)
            if zone:
                end -= len(zone) + 1
            ip[i:i + 4] = _v4_fields(inp, end - len(s), end)
            s = ""
            i += 4
            break
        ip[i] = acc >> 8
        ip[i + 1] = acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            raise _addr_error(inp, "unexpected character, want colon", s)
        if len(s) == 1:
            raise _addr_error(inp, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise _addr_error(inp, "multiple :: in address", s)
            ellipsis = i
            s = s[1:]
            if not s:
                break
    if s:
        raise _addr_error(inp, "trailing garbage after address", s)
    if i < 16:
        if ellipsis < 0:
            raise _addr_error(inp, "address string too short")
        n = 16 - i
        ip = ip[:ellipsis] + [0] * n + ip[ellipsis:i]
    elif ellipsis >= 0:
        raise _addr_error(inp, "the :: must expand to at least one field of zeros")
    return int.from_bytes(bytes(ip), "big"), zone


def parse_addr(s: str) -> tuple[Address, str]:
    """netip.ParseAddr: (the address, its zone)."""
    for c in s:
        if c == ".":
            return ipaddress.IPv4Address(bytes(_v4_fields(s, 0, len(s)))), ""
        if c == ":":
            v, zone = _parse_v6(s)
            return ipaddress.IPv6Address(v), zone
        if c == "%":
            raise _addr_error(s, "missing IPv6 address")
    raise _addr_error(s, "unable to parse IP")


def _is_4in6(a: Address) -> bool:
    return a.version == 6 and (int(a) >> 32) == 0xFFFF


def parse_ip(raw: str) -> CelIP:
    """ip.go parseIPAddr."""
    try:
        a, zone = parse_addr(raw)
    except NetParseError as ex:
        raise NetParseError(f"IP Address {go_quote(raw)} parse error during conversion from string: {ex}") from None
    if zone:
        raise NetParseError(f"IP address {go_quote(raw)} with zone value is not allowed")
    if _is_4in6(a):
        raise NetParseError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return CelIP(a)


# ----------------------------------------------------------------------------- netip.ParsePrefix


def _prefix_error(inp: str, msg: str) -> NetParseError:
    return NetParseError(f"netip.ParsePrefix({go_quote(inp)}): {msg}")


def parse_prefix(s: str) -> CelCIDR:
    """netip.ParsePrefix."""
    i = s.rfind("/")
    if i < 0:
        raise _prefix_error(s, "no '/'")
    try:
        a, zone = parse_addr(s[:i])
    except NetParseError as ex:
        raise _prefix_error(s, str(ex)) from None
    if zone:
        raise _prefix_error(s, "IPv6 zones cannot be present in a prefix")
    bits_s = s[i + 1:]
    bad = _prefix_error(s, "bad bits after slash: " + go_quote(bits_s))
    if len(bits_s) > 1 and not ("1" <= bits_s[0] <= "9"):
        raise bad
    # strconv.Atoi: an optional sign (only possible for a 1-character string here, so never) and ASCII digits
    if not bits_s or not all("0" <= c <= "9" for c in bits_s) or len(bits_s) > 19 or int(bits_s) > (1 << 63) - 1:
        raise bad
    bits = int(bits_s)
    if bits > (32 if a.version == 4 else 128):
        raise _prefix_error(s, "prefix length out of range")
    return CelCIDR(a, bits)


def parse_cidr(raw: str) -> CelCIDR:
    """cidr.go parseCIDR."""
    try:
        p = parse_prefix(raw)
    except NetParseError as ex:
        raise NetParseError(f"network address parse error during conversion from string: {ex}") from None
    if _is_4in6(p.a):
        raise NetParseError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return p


# ----------------------------------------------------------------------------- netip.Addr / Prefix methods


def is_loopback(a: Address) -> bool:
    """Whether the address is a loopback address (netip IsLoopback)."""
    return a.packed[0] == 127 if a.version == 4 else int(a) == 1


def is_multicast(a: Address) -> bool:
    """Whether the address is a multicast address (netip IsMulticast)."""
    return (a.packed[0] & 0xF0) == 0xE0 if a.version == 4 else a.packed[0] == 0xFF


def is_link_local_unicast(a: Address) -> bool:
    """Whether the address is a link-local unicast address (netip IsLinkLocalUnicast)."""
    b = a.packed
    if a.version == 4:
        return b[0] == 169 and b[1] == 254
    return ((b[0] << 8 | b[1]) & 0xFFC0) == 0xFE80


def is_link_local_multicast(a: Address) -> bool:
    """Whether the address is a link-local multicast address (netip IsLinkLocalMulticast)."""
    b = a.packed
    if a.version == 4:
        return b[0] == 224 and b[1] == 0 and b[2] == 0
    return ((b[0] << 8 | b[1]) & 0xFF0F) == 0xFF02


def is_unspecified(a: Address) -> bool:
    """Whether the address is all zeros (netip IsUnspecified)."""
    return int(a) == 0


def is_global_unicast(a: Address) -> bool:
    """Whether the address is a global unicast address (netip IsGlobalUnicast)."""
    if a.version == 4 and int(a) in (0, 0xFFFFFFFF):
        return False
    return not (int(a) == 0 and a.version == 6) and not is_loopback(a) and not is_multicast(a) \
        and not is_link_local_unicast(a)


def masked(p: CelCIDR) -> CelCIDR:
    """Prefix.Masked."""
    width = p.a.max_prefixlen
    mask = ((1 << width) - 1) ^ ((1 << (width - p.bits)) - 1)
    return CelCIDR(type(p.a)(int(p.a) & mask), p.bits)


def contains_ip(p: CelCIDR, ip: CelIP) -> bool:
    """Prefix.Contains (different families never match)."""
    if p.a.version != ip.a.version:
        return False
    shift = p.a.max_prefixlen - p.bits
    return (int(p.a) >> shift) == (int(ip.a) >> shift)


def contains_cidr(p: CelCIDR, o: CelCIDR) -> bool:
    """cidr.go cidrContainsCIDR: ``p.Overlaps(o) && p.Bits() <= o.Bits()``."""
    if p.a.version != o.a.version:
        return False
    if p.bits > o.bits:
        return False
    shift = p.a.max_prefixlen - p.bits  # Overlaps masks both to the shorter prefix, p's here
    return (int(p.a) >> shift) == (int(o.a) >> shift)


def byte_size(bits: int) -> int:
    """ceil(bits / 8): IP.Size() of an address's BitLen, CIDR.Size() of a prefix length."""
    return -(-bits // 8)
