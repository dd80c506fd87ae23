"""CEL timestamps and durations as cel-go has them.

Ported from cel-go common/types/timestamp.go, duration.go and overflow.go, common/stdlib/standard.go
(the ``get*`` accessors and their time zone argument) and Go's time package (``time.Parse(time.RFC3339, s)``,
``time.ParseDuration``, ``Time.Format(time.RFC3339Nano)``, ``time.LoadLocation``).

A timestamp is Unix seconds, nanoseconds and the fixed UTC offset its string carried (cel-go keeps the
parsed ``time.Time``'s location: ``string()`` prints the time in it, the accessors convert to UTC or the
zone asked for). Go puts a parsed offset that the local zone has at that instant into the local zone;
dractl keeps the offset (the same text as long as the local zone is UTC, as in kube-scheduler's image).
A duration is int64 nanoseconds (Go's ``time.Duration``).
"""

from __future__ import annotations

import functools
import os
from datetime import UTC
from decimal import Decimal
from typing import Any

NS = 1_000_000_000
MIN_UNIX, MAX_UNIX = -62135596800, 253402300799  # 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class TimeError(Exception):
    """A runtime error with cel-go's text."""


class CelTimestamp:
    """A CEL timestamp: Unix seconds, nanoseconds (0..1e9-1) and the UTC offset (seconds) of its location."""

    __slots__ = ("sec", "nsec", "off")

    def __init__(self, sec: int, nsec: int = 0, off: int = 0) -> None:
        self.sec, self.nsec, self.off = sec, nsec, off

    def key(self) -> tuple[int, int]:
        """The instant, for ordering and equality."""
        return (self.sec, self.nsec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelTimestamp) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return f'timestamp("{format_timestamp(self)}")'


class CelDuration:
    """A CEL duration: int64 nanoseconds."""

    __slots__ = ("ns",)

    def __init__(self, ns: int) -> None:
        self.ns = ns

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelDuration) and self.ns == other.ns

    def __hash__(self) -> int:
        return hash(("duration", self.ns))

    def __repr__(self) -> str:
        return f'duration("{format_duration(self.ns)}")'


# ----------------------------------------------------------------------------- checked arithmetic (overflow.go)


def _checked(v: int) -> int:
    if v < INT64_MIN or v > INT64_MAX:
        raise TimeError("integer overflow")
    return v


def _quo(a: int, b: int) -> int:
    """Go's integer division (truncated toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def add_time_duration(t: CelTimestamp, d: int) -> CelTimestamp:
    """overflow.go addTimeDurationChecked: the location is kept."""
    sec2 = _quo(d, NS)
    nsec2 = d - sec2 * NS
    sec = _checked(t.sec + sec2)
    nsec = t.nsec + nsec2
    if nsec < 0 or nsec >= NS:
        sec = _checked(sec + _quo(nsec, NS))
        nsec -= _quo(nsec, NS) * NS
        if nsec < 0:
            sec = _checked(sec - 1)
            nsec += NS
    if sec < MIN_UNIX or sec > MAX_UNIX:
        raise TimeError("timestamp overflow")
    return CelTimestamp(sec, nsec, t.off)


def sub_time_duration(t: CelTimestamp, d: int) -> CelTimestamp:
    """overflow.go subtractTimeDurationChecked: t + (-d)."""
    return add_time_duration(t, _checked(-d))


def sub_times(a: CelTimestamp, b: CelTimestamp) -> int:
    """overflow.go subtractTimeChecked: a duration in nanoseconds."""
    sec = _checked(a.sec - b.sec)
    tsec = _checked(sec * NS)
    return _checked(tsec + (a.nsec - b.nsec))


def add_durations(a: int, b: int) -> int:
    """Duration + duration, int64-checked."""
    return _checked(a + b)


def sub_durations(a: int, b: int) -> int:
    """Duration - duration, int64-checked."""
    return _checked(a - b)


def negate_duration(a: int) -> int:
    """-duration, int64-checked."""
    return _checked(-a)


# ----------------------------------------------------------------------------- calendar


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


def _is_leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _days_in(m: int, y: int) -> int:
    if m == 2:
        return 29 if _is_leap(y) else 28
    return 30 if m in (4, 6, 9, 11) else 31


class Fields:
    """The calendar fields of an instant at a UTC offset (what Go's Time accessors return)."""

    __slots__ = ("year", "month", "day", "hour", "minute", "second", "nsec", "weekday", "yday")

    def __init__(self, sec: int, nsec: int, off: int) -> None:
        local = sec + off
        days, sod = divmod(local, 86400)
        self.year, self.month, self.day = _civil_from_days(days)
        self.hour, rem = divmod(sod, 3600)
        self.minute, self.second = divmod(rem, 60)
        self.nsec = nsec
        self.weekday = (days + 4) % 7  # 1970-01-01 was a Thursday
        self.yday = days - _days_from_civil(self.year, 1, 1) + 1


# ----------------------------------------------------------------------------- parsing and formatting


def _digit(b: bytes, i: int) -> bool:
    return i < len(b) and 0x30 <= b[i] <= 0x39


def _getnum(b: bytes, fixed: bool) -> tuple[int, bytes] | None:
    """Go time.getnum: one or two digits (two when ``fixed``)."""
    if not _digit(b, 0):
        return None
    if not _digit(b, 1):
        if fixed:
            return None
        return b[0] - 0x30, b[1:]
    return (b[0] - 0x30) * 10 + b[1] - 0x30, b[2:]


def parse_timestamp(s: str) -> CelTimestamp | None:
    """Go ``time.Parse(time.RFC3339, s)``, or None when it fails.

    Its general parser, which accepts what the fast path does and more (a one-digit hour, a comma before the
    fraction, offsets up to 24:60). The result may be outside CEL's range.
    """
    v = s.encode("utf-8", "surrogatepass")
    if len(v) < 4 or not all(_digit(v, i) for i in range(4)):
        return None
    year, v = int(v[:4]), v[4:]
    fields = []
    for sep, fixed, lo, hi in ((b"-", True, 1, 12), (b"-", True, None, None), (b"T", False, 0, 23),
                               (b":", True, 0, 59), (b":", True, 0, 59)):
        if not v.startswith(sep):
            return None
        r = _getnum(v[1:], fixed)
        if r is None:
            return None
        n, v = r
        if lo is not None and hi is not None and not lo <= n <= hi:
            return None
        fields.append(n)
    month, day, hour, minute, second = fields
    nsec = 0
    if len(v) >= 2 and v[0] in b",." and _digit(v, 1):
        n = 2
        while _digit(v, n):
            n += 1
        digits = v[1:min(n, 10)]
        nsec = int(digits) * 10 ** (9 - len(digits))
        v = v[n:]
    off = 0
    if v[:1] == b"Z":
        v = v[1:]
    else:
        if len(v) < 6 or v[3:4] != b":":
            return None
        h, m = _getnum(v[1:3], True), _getnum(v[4:6], True)
        if h is None or m is None or h[0] > 24 or m[0] > 60 or v[0:1] not in (b"+", b"-"):
            return None
        off = (h[0] * 60 + m[0]) * 60
        if v[0:1] == b"-":
            off = -off
        v = v[6:]
    if v:
        return None
    if day < 1 or day > _days_in(month, year):
        return None
    sec = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - off
    return CelTimestamp(sec, nsec, off)


def timestamp_of_string(s: str) -> CelTimestamp:
    """cel-go String.ConvertToType(TimestampType)."""
    t = parse_timestamp(s)
    if t is None:
        raise TimeError("type conversion error from 'string' to 'google.protobuf.Timestamp'")
    if t.sec < MIN_UNIX or t.sec > MAX_UNIX:
        raise TimeError("timestamp overflow")
    return t


def timestamp_of_int(i: int) -> CelTimestamp:
    """cel-go Int.ConvertToType(TimestampType): Unix seconds, in UTC."""
    if i < MIN_UNIX or i > MAX_UNIX:
        raise TimeError("timestamp overflow")
    return CelTimestamp(i, 0, 0)


def _pad(n: int, width: int) -> str:
    """Go time.appendInt(b, n, width)."""
    return ("-" if n < 0 else "") + str(abs(n)).rjust(width, "0")


def format_timestamp(t: CelTimestamp) -> str:
    """``Time.Format(time.RFC3339Nano)`` in the timestamp's own location."""
    f = Fields(t.sec, t.nsec, t.off)
    out = f"{_pad(f.year, 4)}-{f.month:02d}-{f.day:02d}T{f.hour:02d}:{f.minute:02d}:{f.second:02d}"
    if t.nsec:
        out += "." + f"{t.nsec:09d}".rstrip("0")
    if t.off == 0:
        return out + "Z"
    zone = _quo(t.off, 60)  # minutes
    sign = "-" if zone < 0 else "+"
    zone = abs(zone)
    return out + f"{sign}{_pad(zone // 60, 2)}:{zone % 60:02d}"


_UNITS = {b"ns": 1, b"us": 1000, "µs".encode(): 1000, "μs".encode(): 1000, b"ms": 1_000_000, b"s": NS,
          b"m": 60 * NS, b"h": 3600 * NS}


def parse_duration(s: str) -> int | None:
    """Go ``time.ParseDuration``: nanoseconds, or None when it fails."""
    v = s.encode("utf-8", "surrogatepass")
    d = 0
    neg = False
    if v[:1] in (b"-", b"+"):
        neg = v[:1] == b"-"
        v = v[1:]
    if v == b"0":
        return 0
    if not v:
        return None
    while v:
        if not (v[0] == 0x2E or _digit(v, 0)):
            return None
        i = 0
        x = 0
        while _digit(v, i):  # leadingInt
            if x > (1 << 63) // 10:
                return None
            x = x * 10 + v[i] - 0x30
            if x > 1 << 63:
                return None
            i += 1
        pre = i > 0
        v = v[i:]
        f, scale, post = 0, 1.0, False
        if v[:1] == b".":
            v = v[1:]
            i, overflow = 0, False
            while _digit(v, i):  # leadingFraction
                if not overflow:
                    if f > ((1 << 63) - 1) // 10:
                        overflow = True
                    else:
                        y = f * 10 + v[i] - 0x30
                        if y > 1 << 63:
                            overflow = True
                        else:
                            f = y
                            scale *= 10
                i += 1
            post = i > 0
            v = v[i:]
        if not pre and not post:
            return None
        i = 0
        while i < len(v) and not (v[i] == 0x2E or _digit(v, i)):
            i += 1
        if i == 0:
            return None
        unit = _UNITS.get(v[:i])
        v = v[i:]
        if unit is None:
            return None
        if x > (1 << 63) // unit:
            return None
        x *= unit
        if f > 0:
            x += int(float(f) * (float(unit) / scale))
            if x > 1 << 63:
                return None
        d += x
        if d > 1 << 63:
            return None
    if neg:
        return -d
    if d > INT64_MAX:
        return None
    return d


def duration_of_string(s: str) -> CelDuration:
    """cel-go String.ConvertToType(DurationType)."""
    d = parse_duration(s)
    if d is None:
        raise TimeError("type conversion error from 'string' to 'google.protobuf.Duration'")
    return CelDuration(d)


def _split(d: int, unit: int) -> float:
    """Go's Duration.Hours/Minutes/Seconds: whole units plus the remainder as a fraction, in float64."""
    q = _quo(d, unit)
    return float(q) + float(d - q * unit) / float(unit)


def format_duration(d: int) -> str:
    """cel-go Duration.ConvertToType(StringType): strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"."""
    x = _split(d, NS)
    if x == 0:
        return "0s"
    text = format(Decimal(repr(x)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "s"


def duration_hours(d: int) -> int:
    """types.DurationGetHours: Int(d.Hours())."""
    return int(_split(d, 3600 * NS))


def duration_minutes(d: int) -> int:
    """types.DurationGetMinutes: Int(d.Minutes())."""
    return int(_split(d, 60 * NS))


def duration_seconds(d: int) -> int:
    """types.DurationGetSeconds: Int(d.Seconds())."""
    return int(_split(d, NS))


def duration_milliseconds(d: int) -> int:
    """types.DurationGetMilliseconds: d.Milliseconds()."""
    return _quo(d, 1_000_000)


# ----------------------------------------------------------------------------- time zones


def go_atoi(s: str) -> int:
    """Go strconv.Atoi (64-bit int), with its error texts."""
    from dractl.semver import _go_quote

    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not all("0" <= c <= "9" for c in body):
        raise TimeError(f"strconv.Atoi: parsing {_go_quote(s)}: invalid syntax")
    n = int(body)
    if s[:1] == "-":
        n = -n
    if n < INT64_MIN or n > INT64_MAX:
        raise TimeError(f"strconv.Atoi: parsing {_go_quote(s)}: value out of range")
    return n


def _wrap64(n: int) -> int:
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= 1 << 63 else n


_ZONE_DIRS = ("/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo/")


@functools.lru_cache(maxsize=64)
def _zone(name: str) -> Any:
    """Go time.LoadLocation(name): a zoneinfo object, None for UTC, or the error text."""
    import zoneinfo

    if name in ("", "UTC"):
        return None
    if name == "Local":
        return _local_zone()
    if ".." in name or name[0] in "/\\":
        return TimeError("time: invalid location name")
    first: TimeError | None = None
    for d in _ZONE_DIRS:
        path = d + name
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            continue
        except IsADirectoryError:
            first = first or TimeError("is a directory")  # what Go's time.readFile says
            continue
        except OSError as ex:
            first = first or TimeError(f"open {path}: {(ex.strerror or str(ex)).lower()}")
            continue
        import io

        try:
            return zoneinfo.ZoneInfo.from_file(io.BytesIO(data), key=name)
        except Exception:
            first = first or TimeError("malformed time zone information")
    return first or TimeError(f"unknown time zone {name}")


def _local_zone() -> Any:
    """Go's time.Local: $TZ (empty: UTC), else /etc/localtime; UTC when it does not load."""
    tz = os.environ.get("TZ")
    if tz is not None:
        if tz in ("", "UTC"):
            return None
        z = _zone(tz[1:] if tz.startswith(":") else tz)
        return None if isinstance(z, TimeError) else z
    import zoneinfo

    try:
        with open("/etc/localtime", "rb") as fh:
            import io

            return zoneinfo.ZoneInfo.from_file(io.BytesIO(fh.read()), key="Local")
    except Exception:
        return None


def _zone_offset(zone: Any, sec: int) -> int:
    """The UTC offset (seconds) of a zoneinfo zone at Unix second ``sec``."""
    from datetime import datetime, timedelta

    for s in (sec, sec - 2 * 86400, sec + 2 * 86400):
        try:
            utc = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=s)
            off = utc.astimezone(zone).utcoffset()
        except (OverflowError, ValueError):
            continue
        if off is not None:
            return int(off.total_seconds())
    return 0


def in_zone(t: CelTimestamp, tz: str | None) -> Fields:
    """standard.go inTimeZone: the fields of ``t`` in UTC (``tz`` None), an IANA zone or an offset "±hh:mm"."""
    if tz is None:
        return Fields(t.sec, t.nsec, 0)
    b = tz.encode("utf-8", "surrogatepass")
    ind = b.find(b":")
    if ind == -1:
        z = _zone(tz)
        if isinstance(z, TimeError):
            raise z
        return Fields(t.sec, t.nsec, 0 if z is None else _zone_offset(z, t.sec))
    hr = go_atoi(b[:ind].decode("utf-8", "surrogatepass"))
    mi = go_atoi(b[ind + 1:].decode("utf-8", "surrogatepass"))
    offset = _wrap64(hr * 60 - mi) if b[:1] == b"-" else _wrap64(hr * 60 + mi)
    d = _wrap64(offset * 60 * NS)  # time.Duration(offset) * time.Minute
    return Fields(t.sec, t.nsec, int(_split(d, NS)))  # int(d.Seconds())


GETTERS = {
    "getFullYear": lambda f: f.year,
    "getMonth": lambda f: f.month - 1,
    "getDayOfYear": lambda f: f.yday - 1,
    "getDayOfMonth": lambda f: f.day - 1,
    "getDate": lambda f: f.day,
    "getDayOfWeek": lambda f: f.weekday,
    "getHours": lambda f: f.hour,
    "getMinutes": lambda f: f.minute,
    "getSeconds": lambda f: f.second,
    "getMilliseconds": lambda f: f.nsec // 1_000_000,
}

DURATION_GETTERS = {
    "getHours": duration_hours,
    "getMinutes": duration_minutes,
    "getSeconds": duration_seconds,
    "getMilliseconds": duration_milliseconds,
}
