r"""Go's net/url (Go 1.26 url.go), as far as the Kubernetes CEL URL library uses it.

A port of ``url.Parse``, ``url.ParseRequestURI``, ``URL.String``, ``Hostname``, ``Port``,
``EscapedPath`` and ``Query``, function for function, so that what is accepted, the parts
and the error texts are upstream's. Go strings are bytes: this module works on "byte
strings", Python strs whose characters are the bytes 0-255 (latin-1), made from a CEL
string with :func:`~dractl.cel.urlvalue.to_bytes` and turned back with :func:`from_bytes` (bytes that are not
UTF-8 become the lone surrogates of Python's ``surrogateescape``, which Go's %q shows as
``\xNN``, as dractl's quoting does). The GODEBUG settings are Kubernetes v1.37's
(``godebug default=go1.26``): ``urlstrictcolons=1``, ``urlmaxqueryparams`` 10000.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dractl.cel.netaddr import NetParseError, go_quote, parse_addr
from dractl.cel.urlvalue import from_bytes


class URLError(ValueError):
    """A parse error, its text as Go's error's Error()."""


def _quote(b: str) -> str:
    """strconv.Quote of a byte string."""
    return go_quote(from_bytes(b))


# ----------------------------------------------------------------------------- encoding modes

ENCODE_PATH, ENCODE_PATH_SEGMENT, ENCODE_HOST, ENCODE_ZONE, ENCODE_USER_PASSWORD, ENCODE_QUERY_COMPONENT, \
    ENCODE_FRAGMENT = 1, 2, 4, 8, 16, 32, 64
_UPPERHEX = "0123456789ABCDEF"
_HEXDIGITS = frozenset("0123456789abcdefABCDEF")


def _ishex(c: str) -> bool:
    """Port of Go's ishex."""
    return c in _HEXDIGITS


def _unhex(c: str) -> int:
    """Port of Go's unhex (precondition: ishex(c))."""
    o = ord(c)
    return 9 * (o >> 6) + (o & 15)


def _should_escape_calc(c: str, mode: int) -> bool:
    """Port of Go's gen_encoding_table.go shouldEscape (the generator of url.go's table and shouldEscape)."""
    if "a" <= c <= "z" or "A" <= c <= "Z" or "0" <= c <= "9":
        return False
    if mode in (ENCODE_HOST, ENCODE_ZONE):
        if c in "!$&'()*+,;=:[]<>\"":
            return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == ENCODE_PATH:
            return c == "?"
        if mode == ENCODE_PATH_SEGMENT:
            return c in "/;,?"
        if mode == ENCODE_USER_PASSWORD:
            return c in "@/?:"
        if mode == ENCODE_QUERY_COMPONENT:
            return True
        if mode == ENCODE_FRAGMENT:
            return False
    if mode == ENCODE_FRAGMENT and c in "!()*":
        return False
    return True


_TABLE: dict[int, frozenset[str]] = {
    m: frozenset(chr(i) for i in range(256) if not _should_escape_calc(chr(i), m))
    for m in (ENCODE_PATH, ENCODE_PATH_SEGMENT, ENCODE_HOST, ENCODE_ZONE, ENCODE_USER_PASSWORD,
              ENCODE_QUERY_COMPONENT, ENCODE_FRAGMENT)
}


def should_escape(c: str, mode: int) -> bool:
    """Port of Go's shouldEscape (encoding_table.go's table)."""
    return c not in _TABLE[mode]


# (for speed) per mode: a byte that escape() changes; in unescape(), a byte it looks at
_ESCAPED = {m: re.compile("[" + "".join(re.escape(chr(i)) for i in range(256) if chr(i) not in ok) + "]")
            for m, ok in _TABLE.items()}
_SPECIAL = {m: re.compile("[%+" + ("".join(re.escape(chr(i)) for i in range(0x80) if chr(i) not in ok)
                                   if m in (ENCODE_HOST, ENCODE_ZONE) else "") + "]")
            for m, ok in _TABLE.items()}
_CTL = re.compile("[\x00-\x1f\x7f]")


# ----------------------------------------------------------------------------- escaping


def _escape_error(s: str) -> URLError:
    """Port of Go's EscapeError.Error."""
    return URLError("invalid URL escape " + _quote(s))


def _invalid_host_error(s: str) -> URLError:
    """Port of Go's InvalidHostError.Error."""
    return URLError("invalid character " + _quote(s) + " in host name")


def unescape(s: str, mode: int) -> str:
    """Port of Go's unescape."""
    if not _SPECIAL[mode].search(s):
        return s  # (no escape, no plus, no invalid host byte: what the loops below would return)
    n = 0
    has_plus = False
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            n += 1
            if i + 2 >= len(s) or not _ishex(s[i + 1]) or not _ishex(s[i + 2]):
                s = s[i:]
                if len(s) > 3:
                    s = s[:3]
                raise _escape_error(s)
            if mode == ENCODE_HOST and _unhex(s[i + 1]) < 8 and s[i:i + 3] != "%25":
                raise _escape_error(s[i:i + 3])
            if mode == ENCODE_ZONE:
                v = chr(_unhex(s[i + 1]) << 4 | _unhex(s[i + 2]))
                if s[i:i + 3] != "%25" and v != " " and should_escape(v, ENCODE_HOST):
                    raise _escape_error(s[i:i + 3])
            i += 3
        elif c == "+":
            has_plus = mode == ENCODE_QUERY_COMPONENT
            i += 1
        else:
            if mode in (ENCODE_HOST, ENCODE_ZONE) and ord(c) < 0x80 and should_escape(c, mode):
                raise _invalid_host_error(c)
            i += 1
    if n == 0 and not has_plus:
        return s
    plus = " " if mode == ENCODE_QUERY_COMPONENT else "+"
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            out.append(chr(_unhex(s[i + 1]) << 4 | _unhex(s[i + 2])))
            i += 2
        elif c == "+":
            out.append(plus)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def query_unescape(s: str) -> str:
    """Port of Go's QueryUnescape."""
    return unescape(s, ENCODE_QUERY_COMPONENT)


def escape(s: str, mode: int) -> str:
    """Port of Go's escape."""
    if not _ESCAPED[mode].search(s):
        return s
    out = []
    for c in s:
        if c == " " and mode == ENCODE_QUERY_COMPONENT:
            out.append("+")
        elif should_escape(c, mode):
            o = ord(c)
            out.append("%" + _UPPERHEX[o >> 4] + _UPPERHEX[o & 15])
        else:
            out.append(c)
    return "".join(out)


# ----------------------------------------------------------------------------- URL


@dataclass
class Userinfo:
    """url.Userinfo."""
    username: str
    password: str = ""
    password_set: bool = False

    def string(self) -> str:
        """Port of Go's (*Userinfo).String."""
        s = escape(self.username, ENCODE_USER_PASSWORD)
        if self.password_set:
            s += ":" + escape(self.password, ENCODE_USER_PASSWORD)
        return s


@dataclass
class URL:
    """url.URL; every field a byte string."""
    scheme: str = ""
    opaque: str = ""
    user: Userinfo | None = None
    host: str = ""
    path: str = ""
    fragment: str = ""
    raw_query: str = ""
    raw_path: str = ""
    raw_fragment: str = ""
    force_query: bool = False
    omit_host: bool = False

    def set_path(self, p: str) -> None:
        """Port of Go's (*URL).setPath."""
        path = unescape(p, ENCODE_PATH)
        self.path = path
        self.raw_path = "" if p == escape(path, ENCODE_PATH) else p

    def escaped_path(self) -> str:
        """Port of Go's (*URL).EscapedPath."""
        if self.raw_path != "" and _valid_encoded(self.raw_path, ENCODE_PATH):
            try:
                p = unescape(self.raw_path, ENCODE_PATH)
            except URLError:
                p = None
            if p == self.path:
                return self.raw_path
        if self.path == "*":
            return "*"
        return escape(self.path, ENCODE_PATH)

    def set_fragment(self, f: str) -> None:
        """Port of Go's (*URL).setFragment."""
        frag = unescape(f, ENCODE_FRAGMENT)
        self.fragment = frag
        self.raw_fragment = "" if f == escape(frag, ENCODE_FRAGMENT) else f

    def escaped_fragment(self) -> str:
        """Port of Go's (*URL).EscapedFragment."""
        if self.raw_fragment != "" and _valid_encoded(self.raw_fragment, ENCODE_FRAGMENT):
            try:
                f = unescape(self.raw_fragment, ENCODE_FRAGMENT)
            except URLError:
                f = None
            if f == self.fragment:
                return self.raw_fragment
        return escape(self.fragment, ENCODE_FRAGMENT)

    def string(self) -> str:
        """Port of Go's (*URL).String."""
        buf: list[str] = []
        if self.scheme != "":
            buf.append(self.scheme)
            buf.append(":")
        if self.opaque != "":
            buf.append(self.opaque)
        else:
            if self.scheme != "" or self.host != "" or self.user is not None:
                if self.omit_host and self.host == "" and self.user is None:
                    pass  # omit empty host
                else:
                    if self.host != "" or self.path != "" or self.user is not None:
                        buf.append("//")
                    if self.user is not None:
                        buf.append(self.user.string())
                        buf.append("@")
                    if self.host != "":
                        buf.append(escape(self.host, ENCODE_HOST))
            path = self.escaped_path()
            if path != "" and path[0] != "/" and self.host != "":
                buf.append("/")
            if not "".join(buf):
                segment = path.split("/", 1)[0]
                if ":" in segment:
                    buf.append("./")
            buf.append(path)
        if self.force_query or self.raw_query != "":
            buf.append("?")
            buf.append(self.raw_query)
        if self.fragment != "":
            buf.append("#")
            buf.append(self.escaped_fragment())
        return "".join(buf)

    def hostname(self) -> str:
        """Port of Go's (*URL).Hostname."""
        return _split_host_port(self.host)[0]

    def port(self) -> str:
        """Port of Go's (*URL).Port."""
        return _split_host_port(self.host)[1]

    def query(self) -> dict[str, list[str]]:
        """Port of Go's (*URL).Query: ParseQuery, its error dropped."""
        m: dict[str, list[str]] = {}
        try:
            parse_query(m, self.raw_query)
        except URLError:
            pass
        return m


def _valid_encoded(s: str, mode: int) -> bool:
    """Port of Go's validEncoded."""
    for c in s:
        if c in "!$&'()*+,;=:@[]%":
            continue
        if should_escape(c, mode):
            return False
    return True


def _valid_optional_port(port: str) -> bool:
    """Port of Go's validOptionalPort."""
    if port == "":
        return True
    if port[0] != ":":
        return False
    return all("0" <= b <= "9" for b in port[1:])


def _split_host_port(host_port: str) -> tuple[str, str]:
    """Port of Go's splitHostPort."""
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and _valid_optional_port(host[colon:]):
        host, port = host[:colon], host[colon + 1:]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _get_scheme(raw: str) -> tuple[str, str]:
    """Port of Go's getScheme."""
    for i, c in enumerate(raw):
        if "a" <= c <= "z" or "A" <= c <= "Z":
            continue
        if "0" <= c <= "9" or c in "+-.":
            if i == 0:
                return "", raw
        elif c == ":":
            if i == 0:
                raise URLError("missing protocol scheme")
            return raw[:i], raw[i + 1:]
        else:
            return "", raw
    return "", raw


def _string_contains_ctl_byte(s: str) -> bool:
    """Port of Go's stringContainsCTLByte."""
    return _CTL.search(s) is not None


def _valid_userinfo(s: str) -> bool:
    """Port of Go's validUserinfo (it ranges over runes: a non-ASCII rune, or a byte that is not UTF-8, is invalid)."""
    for c in s:
        if "A" <= c <= "Z" or "a" <= c <= "z" or "0" <= c <= "9":
            continue
        if c in "-._:~!$&'()*+,;=%@":
            continue
        return False
    return True


def _parse_host(scheme: str, host: str) -> str:
    """Port of Go's parseHost (urlstrictcolons=1)."""
    open_bracket = host.rfind("[")
    if open_bracket > 0:
        raise URLError("invalid IP-literal")
    if open_bracket == 0:
        close_bracket = host.rfind("]")
        if close_bracket < 0:
            raise URLError("missing ']' in host")
        colon_port = host[close_bracket + 1:]
        if not _valid_optional_port(colon_port):
            raise URLError(f"invalid port {_quote(colon_port)} after host")
        unescaped_colon_port = unescape(colon_port, ENCODE_HOST)
        hostname = host[open_bracket + 1:close_bracket]
        zone = hostname.find("%25")
        if zone >= 0:
            unescaped_hostname = unescape(hostname[:zone], ENCODE_HOST) + unescape(hostname[zone:], ENCODE_ZONE)
        else:
            unescaped_hostname = unescape(hostname, ENCODE_HOST)
        try:
            addr, _ = parse_addr(from_bytes(unescaped_hostname))
        except NetParseError as ex:
            raise URLError(f"invalid host: {ex}") from None
        if addr.version == 4:
            raise URLError("invalid IP-literal")
        return "[" + unescaped_hostname + "]" + unescaped_colon_port
    i = host.find(":")
    if i != -1:
        last = host.rfind(":")
        if last != i and scheme not in ("http", "https"):
            i = last  # strict colons (the default) only for http and https
        colon_port = host[i:]
        if not _valid_optional_port(colon_port):
            raise URLError(f"invalid port {_quote(colon_port)} after host")
    return unescape(host, ENCODE_HOST)


def _parse_authority(scheme: str, authority: str) -> tuple[Userinfo | None, str]:
    """Port of Go's parseAuthority."""
    i = authority.rfind("@")
    host = _parse_host(scheme, authority if i < 0 else authority[i + 1:])
    if i < 0:
        return None, host
    userinfo = authority[:i]
    if not _valid_userinfo(userinfo):
        raise URLError("net/url: invalid userinfo")
    if ":" not in userinfo:
        return Userinfo(unescape(userinfo, ENCODE_USER_PASSWORD)), host
    username, password = userinfo.split(":", 1)
    return Userinfo(unescape(username, ENCODE_USER_PASSWORD), unescape(password, ENCODE_USER_PASSWORD), True), host


def _parse(raw: str, via_request: bool) -> URL:
    """Port of Go's parse."""
    if _string_contains_ctl_byte(raw):
        raise URLError("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise URLError("empty url")
    url = URL()
    if raw == "*":
        url.path = "*"
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = scheme.lower()  # strings.ToLower: the scheme is ASCII
    if rest.endswith("?") and rest.count("?") == 1:
        url.force_query = True
        rest = rest[:-1]
    else:
        rest, _, url.raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if url.scheme != "":
            url.opaque = rest
            return url
        if via_request:
            raise URLError("invalid URI for request")
        segment = rest.split("/", 1)[0]
        if ":" in segment:
            raise URLError("first path segment in URL cannot contain colon")
    if (url.scheme != "" or not via_request and not rest.startswith("///")) and rest.startswith("//"):
        authority, rest = rest[2:], ""
        i = authority.find("/")
        if i >= 0:
            authority, rest = authority[:i], authority[i:]
        url.user, url.host = _parse_authority(url.scheme, authority)
    elif url.scheme != "" and rest.startswith("/"):
        url.omit_host = True
    url.set_path(rest)
    return url


def _parse_error(raw: str, err: URLError) -> URLError:
    """Port of Go's Error.Error: Op "parse", the URL quoted, the error."""
    return URLError(f"parse {_quote(raw)}: {err}")


def parse(raw: str) -> URL:
    """url.Parse of a byte string."""
    u, _, frag = raw.partition("#")
    try:
        url = _parse(u, False)
    except URLError as ex:
        raise _parse_error(u, ex) from None
    if frag == "":
        return url
    try:
        url.set_fragment(frag)
    except URLError as ex:
        raise _parse_error(raw, ex) from None
    return url


def parse_request_uri(raw: str) -> URL:
    """url.ParseRequestURI of a byte string."""
    try:
        return _parse(raw, True)
    except URLError as ex:
        raise _parse_error(raw, ex) from None


# ----------------------------------------------------------------------------- query

MAX_QUERY_PARAMS = 10000  # defaultMaxParams (urlmaxqueryparams unset)


def parse_query(m: dict[str, list[str]], query: str) -> None:
    """Port of Go's parseQuery: fills m with every valid pair, then raises the first error, if any."""
    if query.count("&") + 1 > MAX_QUERY_PARAMS:
        raise URLError("number of URL query parameters exceeded limit")
    err: URLError | None = None
    while query != "":
        key, _, query = query.partition("&")
        if ";" in key:
            err = URLError("invalid semicolon separator in query")
            continue
        if key == "":
            continue
        key, _, value = key.partition("=")
        try:
            key = query_unescape(key)
        except URLError as ex:
            err = err or ex
            continue
        try:
            value = query_unescape(value)
        except URLError as ex:
            err = err or ex
            continue
        m.setdefault(key, []).append(value)
    if err is not None:
        raise err
