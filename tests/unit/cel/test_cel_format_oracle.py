"""format.named(), format.<name>() and <format>.validate() (apiserver pkg/cel/library format.go), against upstream.

The oracle (tests/oracle/cel, built by test_oracle.py's fixture) compiles and evaluates each case as kube-apiserver
and kube-scheduler do, and dractl must give the same compile errors, estimated costs, matches and runtime errors.
Each string is validated by each of the thirteen formats twice: ``.hasValue()`` in the default environment (the
estimated cost, the answer), and the messages joined in the stored environment, shown by the runtime error of
``ip('#' + messages)``, whose text quotes them. The strings are at and around each format's limits (63, 64, 253,
254 bytes; masked trailing dashes; prefixes of qualified names), of every case and of runes of several bytes,
dates and times in the forms kube-openapi's strfmt accepts and refuses, base64 with and without padding, UUIDs
with and without dashes, and the URL test's hand-written URLs (Go's net/url errors). Runtime costs are checked at
the cost limit: validations of long strings, repeated until the limit is passed (also where the estimate is within
the limit: format.uri()'s runtime cost is its regexp size, 1103 / 4, the estimate's 128 / 4).

One difference is left out, not explained: in a comprehension whose body is ``format.<name>().validate(s)
.hasValue()``, upstream's runtime cost is one more per iteration than dractl's count (measured by the iteration
count at which the limit is passed: 27 against 26 for a nine-byte ``format.byte()`` validation). It shows only with
thousands of iterations near the limit (``format.datetime()`` of 101 bytes: upstream stops at 4873 iterations,
dractl at 4896); such cases are not here. dractl's count stays a lower bound of upstream's.
"""

from __future__ import annotations

from pathlib import Path

from test_cel_url_oracle import HAND_WRITTEN_URLS, _lit
from test_oracle import cel_difference_report, oracles  # noqa: F401 (oracles: the fixture)

from dractl.cel.formatvalue import FORMATS

KEYS = list(FORMATS)

_A63, _A64 = "a" * 63, "a" * 64
_SUB253 = ".".join(["a" * 63] * 3) + "." + "a" * 61
_SUB254 = _SUB253 + "a"

NAMES = [
    "", "a", "A", "abc", "Abc", "aBc", "my-name", "123-abc", "1", "-", "--", "-a", "a-", "a--b", "a-b-", "a.b",
    "a..b", ".a", "a.", ".", "a_b", "_a", "a b", " a", "a/b", "a/b/c", "/a", "a/", "/", "//", "example.com/MyName",
    "example.com/my.name", "Example.com/a", "example.com/-a", "-example.com/a", "example..com/a", "a.b/c_d.e-f",
    "a.b/c_d.e-f_", "é", "aé", "éa", "é-", "aé-", "a-é", "ab\u00e9-", "a\n", "\na", "a\x00b", "k8s.io/a", "MyValue",
    "my_value", "12345", "a.b-c_d", "A-", "a-A", "0-", "0a-", "a.b-", "a..-", "a-.b-", "1abc", "abc1", "a1-b2",
    _A63, _A64, "A" + "a" * 62, "a" * 62 + "-", _A63 + "-", _A64 + "-", "a" * 61 + "é-", "a" * 62 + "é-",
    "a" * 61 + "é", "a" * 62 + "é", "a" * 60 + "€-", "a" * 61 + "€-", _A63 + ".a", "a" + "." + _A64,
    _SUB253, _SUB254, _SUB253[:-1] + "-", _SUB254[:-1] + "-", _SUB253 + "-", _SUB253 + "/a", _SUB254 + "/a",
    _SUB253 + "/" + _A63, _SUB254 + "/" + _A64, "a/" + _A63, "a/" + _A64, "-a/" + _A64, "/" + _A64, _A64 + "/",
    "A.b/c", "a_b/c", "a/b/", "a.b/-c-", "é/a", "a/é", "a" * 252 + "é", "a" * 251 + "é",
]

UUIDS = [
    "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
    "123e4567-E89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "123e4567-e89b12d3-a456426614174000",
    "123e4567--e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-42661417400",
    "123e4567-e89b-12d3-a456-4266141740000",
    "123e4567-e89b-12d3-a456-42661417400g", "{123e4567-e89b-12d3-a456-426614174000}",
    "urn:uuid:123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000\n",
    " 123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-42661417400０",
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff", "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "123e4567-e89b-12d3-a456_426614174000",
    "123e4567-e89b-12d3-a4-56426614174000", "123e456-7e89b-12d3-a456-426614174000", "", "x", "-",
    "123e4567e89b12d3a45642661417400", "123e4567e89b12d3a4564266141740001",
]

BASE64 = [
    "", "a", "aa", "aaa", "aaaa", "aaaaa", "aGVsbG8=", "aGVsbG8", "aGVsbA==", "aGVsbA=", "aGVsbA===", "YQ==", "YQ=",
    "Y===", "====", "ab+/", "ab-_", "aGVs bG8=", "aGVsbG8=\n", "QUJD\nREVG", "a=aa", "AAAA" * 64, "AAA=AAAA",
    "AA==AAAA",
    "////", "++++", "aé==", "YWJj\u00e9", "Zm9vYmFy", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmE", "Zm9vY===", "=", "==",
    "YQ", "YWI", "+/+/", "a\x00aa",
]

DATES = [
    "2021-01-01", "2021-1-01", "2021-01-1", "21-01-01", "2021-13-01", "2021-00-10", "2021-12-31", "2021-12-32",
    "2021-02-29", "2020-02-29", "1900-02-29", "2000-02-29", "0000-02-29", "0000-01-01", "9999-12-31", "2021-04-31",
    "2021-06-30", "2021-09-31", "2021-11-30", "2021-11-31", "2021-01-00", "2021-01-01T00:00:00Z", "2021-01-01 ",
    " 2021-01-01", "2021/01/01", "20210101", "+021-01-01", "-021-01-01", "2021-+1-01", "2021--1-01", "2021-01-+1",
    "２０２１-01-01", "2021-01-0１", "", "2021", "2021-01", "2021-01-01\n", "12021-01-01", "2021-001-01", "2021-01-001",
    "2021-02-28", "2100-02-29", "2400-02-29", "0004-02-29", "2021-10-31", "2021-07-31", "2021-08-31", "2021-03-31",
    "2021-05-31", "2021-12-01", "2021-99-99", "a021-01-01", "2021-0a-01", "2021-01-0a",
]

DATETIMES = [
    "2021-01-01T00:00:00Z", "2021-01-01t00:00:00z", "2021-01-01T00:00:00.123Z", "2021-01-01T00:00:00.Z",
    "2021-01-01T00:00:00x5Z", "2021-01-01T23:59:59Z", "2021-01-01T24:00:00Z", "2021-01-01T23:60:00Z",
    "2021-01-01T23:59:60Z", "2021-01-01T99:99:99Z", "2021-01-01T00:00:00+01:00", "2021-01-01T00:00:00-01:00",
    "2021-01-01T00:00:00+0100", "2021-01-01T00:00:00+1:00", "2021-01-01T00:00:00", "2021-01-01 00:00:00Z",
    "2021-01-01", "2021-02-30T00:00:00Z", "2020-02-29T00:00:00Z", "2021-01-01T00:00:00ZT00", "2021-01-01T00:00:00Zt",
    "2021-01-01T00:00:00Ztrash", "2021-01-01Tt00:00:00Z", "2021-01-01T00:00:00.123456789Z", "2021-01-01T00:00:00,5Z",
    "2021-01-01T00:00:00é5Z", "2021-01-01T00:00:00\u01305Z", "2021-01-01T00:00:00\u212a5Z", "2021-01-01T00:00:00\n5Z",
    "2021-01-01T00:00:00Z\n", "2021-01-01T00:00:00.5+23:59", "2021-01-01T00:00:00.5+99:99", "abc", "", "T", "t", "tttt",
    "2021-01-01T00:00:00ZZ", "2021-01-01T0:00:00Z", "2021-01-01T00:00:00.5", "2021-01-01T00:00:00+01:00:00",
    "2021-01-01TZ", "2021-01-01T00:00:00.5z", "2021-01-01T00:00:00.55555z", "2021-01-01T00:00:00..5Z",
    "2021-01-01T00:00:00.5.5Z", "2021-01-01T00:00:0099Z", "2021-01-01T00:00:00+01:0", "2021-01-01T00:00:00 Z",
    "2021-13-01T00:00:00Z", "2021-1-01T00:00:00Z", "2021-01-01T00:00:00Z ", " 2021-01-01T00:00:00Z",
    "2021-01-01T00:00:00zT", "2021-01-01T00:00:00+00:00", "2021-01-01T00:00:00-23:59", "2021-01-01T00:00:00+24:00",
    "2021-01-01T00:00:00.0Z", "2021-01-01T00:00:00\u00a05Z", "2021-01-01T00:00:00\u00ff5Z", "2021-01-01T19:59:59Z",
    "2021-01-01T20:59:59Z", "2021-01-01T23:09:09Z", "2021-01-01T2a:00:00Z", "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z", "2021-01-01\u0130T00:00:00Z",
]

#: every string, validated by every format (and the URL test's URLs by format.uri())
STRINGS = list(dict.fromkeys(NAMES + UUIDS + BASE64 + DATES + DATETIMES))

_A = "device.attributes['gpu.example.com']"
_FF = "url('/?a=%ff').getQuery()['a'][0]"  # a string holding a byte that is not UTF-8

HAND_WRITTEN = [
    # format.go's examples
    "format.dns1123Label().validate('my-label-name') == optional.none()",
    "format.dns1123Subdomain().validate('apiextensions.k8s.io') == optional.none()",
    "format.dns1035Label().validate('my-label-name') == optional.none()",
    "format.qualifiedName().validate('apiextensions.k8s.io/v1beta1') == optional.none()",
    "format.dns1123LabelPrefix().validate('my-label-prefix-') == optional.none()",
    "format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-') == optional.none()",
    "format.dns1035LabelPrefix().validate('my-label-prefix-') == optional.none()",
    "format.uri().validate('http://example.com') == optional.none()",
    "format.uuid().validate('123e4567-e89b-12d3-a456-426614174000') == optional.none()",
    "format.byte().validate('aGVsbG8=') == optional.none()",
    "format.date().validate('2021-01-01') == optional.none()",
    "format.datetime().validate('2021-01-01T00:00:00Z') == optional.none()",
    "!format.dns1123Label().validate('my-label-name').hasValue()",
    "format.dns1123Label().validate('Bad').hasValue()",
    "format.dns1123Label().validate('Bad').value().size() == 1",
    "format.qualifiedName().validate('-a/-b').value().size() == 2",
    "format.dns1123Label().validate('Bad').value()[0].startsWith('a lowercase RFC 1123 label')",
    "format.dns1123Label().validate('a.b').value() == ['must not contain dots']",
    "format.uuid().validate('x').value() == ['does not match the UUID format']",
    "format.byte().validate('x').value() == ['invalid base64']",
    "format.date().validate('x').value() == ['invalid date']",
    "format.datetime().validate('x').value() == ['invalid datetime']",
    "format.uri().validate('x').value() == ['parse \"x\": invalid URI for request']",
    "format.uuid().validate('x').orValue([]).size() == 1",
    "format.uuid().validate('x').value().join(', ') == 'does not match the UUID format'",
    "format.uuid().validate('x').value().exists(m, m.contains('UUID'))",
    "format.labelValue().validate('x').or(optional.of(['a'])) == optional.of(['a'])",
    # format.named()
    *(f"format.named('{k}').hasValue()" for k in KEYS),
    *(f"format.named('{k}').value() == format.{k}()" for k in KEYS),
    *(f"format.named('{k}') == optional.of(format.{k}())" for k in KEYS),
    *(f"format.named('{k}').value().validate('a').hasValue()" for k in KEYS),
    "format.named('nope').hasValue()",
    "format.named('').hasValue()",
    "format.named('DNS1123Label').hasValue()",
    "format.named('dns1123label').hasValue()",
    "format.named('date-time').hasValue()",
    "format.named('date_time').hasValue()",
    "format.named('uuid4').hasValue()",
    "format.named('email').hasValue()",
    "format.named('uuid ').hasValue()",
    "format.named('nope') == optional.none()",
    "format.named('nope').value() == format.uuid()",
    "format.named('nope').orValue(format.uuid()) == format.uuid()",
    "format.named('nope').orValue(format.uuid()).validate('x').hasValue()",
    "format.named(" + _A + ".model).hasValue()",
    "format.named(dyn('uuid')).hasValue()",
    "format.named(dyn(1)).hasValue()",
    "format.named(1).hasValue()",
    "format.named().hasValue()",
    "format.named('uuid', 'date').hasValue()",
    "format.named(" + _FF + ").hasValue()",
    "[format.named('uuid'), format.named('x')].map(o, o.hasValue()) == [true, false]",
    "['uuid', 'date', 'x'].filter(n, format.named(n).hasValue()).size() == 2",
    "['uuid', 'date', 'x'].all(n, format.named(n).orValue(format.byte()).validate('aaaa').hasValue())",
    # equality
    *(f"format.{k}() == format.{k}()" for k in KEYS),
    *(f"format.{a}() == format.{b}()" for a, b in zip(KEYS, KEYS[1:] + KEYS[:1], strict=True)),
    "format.uuid() != format.date()",
    "format.uuid() != format.uuid()",
    "format.date() == format.datetime()",
    "format.dns1123Label() == format.dns1123LabelPrefix()",
    "format.uuid() == null",
    "null == format.uuid()",
    "format.uuid() != null",
    "dyn(format.uuid()) == 1",
    "1 == dyn(format.uuid())",
    "dyn(format.uuid()) != 1",
    "dyn(format.uuid()) == 'uuid'",
    "'uuid' == dyn(format.uuid())",
    "dyn(format.uuid()) == dyn(url('/a'))",
    "dyn(url('/a')) == dyn(format.uuid())",
    "dyn(format.uuid()) == dyn(format.uuid())",
    "dyn(format.uuid()) == format.uuid()",
    "format.uuid() == dyn(format.date())",
    "dyn(format.uuid()) == null",
    "[format.uuid()] == [format.uuid()]",
    "[format.uuid()] == [format.date()]",
    "[format.uuid()] == [dyn(1)]",
    "[dyn(1)] == [dyn(format.uuid())]",
    "{'k': format.uuid()} == {'k': format.uuid()}",
    "{'k': format.uuid()}.k == format.uuid()",
    "optional.of(format.uuid()) == optional.of(format.uuid())",
    "optional.of(format.uuid()).value() == format.uuid()",
    "format.named('uuid').value() == format.named('uuid').value()",
    "format.named('uuid') == format.named('uuid')",
    "format.named('uuid') == format.named('date')",
    "format.uuid() == (" + _A + ".index > 0 ? format.date() : format.uuid())",
    "(" + _A + ".index > 0 ? format.date() : format.uuid()) == format.uuid()",
    "cel.bind(f, format.uuid(), f == f && !f.validate('x').hasValue())",
    "cel.bind(f, format.named(" + _A + ".model).orValue(format.uuid()), f == format.uuid())",
    # lists, in, comprehensions
    "format.uuid() in [format.uuid(), format.date()]",
    "format.byte() in [format.uuid(), format.date()]",
    "dyn(format.uuid()) in [1, 'a']",
    "dyn(format.uuid()) in ['uuid']",
    "dyn(format.uuid()) in [1, format.uuid()]",
    "dyn(format.uuid()) in [dyn(1), dyn(format.uuid())]",
    "dyn(format.uuid()) in {'a': 1}",
    "dyn(format.uuid()) in {1: 1}",
    "dyn(format.uuid()) in device.attributes",
    "{'a': 1}[dyn(format.uuid())] == 1",
    "{'a': 1}[?dyn(format.uuid())] == optional.none()",
    "[1][dyn(format.uuid())] == 1",
    "device.attributes[dyn(format.uuid())].size() == 0",
    "[format.uuid(), format.date()].exists(f, f.validate('2021-01-01').hasValue())",
    "[format.uuid(), format.date()].all(f, f.validate('2021-01-01').hasValue())",
    "[format.uuid(), format.date()].map(f, f.validate('x').value()[0]) == "
    "['does not match the UUID format', 'invalid date']",
    "[format.uuid(), format.uuid()].distinct().size() == 1",
    "[format.uuid(), format.date()].distinct().size() == 2",
    "[format.uuid(), format.date()].indexOf(format.date()) == 1",
    "[format.uuid(), format.date()].lastIndexOf(format.uuid()) == 0",
    "sets.contains([format.uuid(), format.date()], [format.date()])",
    "sets.equivalent([format.uuid()], [format.uuid()])",
    "sets.intersects([format.uuid()], [format.date()])",
    "[format.uuid(), format.date()].reverse()[0] == format.date()",
    "[[format.uuid()], [format.date()]].flatten().size() == 2",
    "[format.uuid(), format.date()].slice(1, 2) == [format.date()]",
    "[format.uuid()].first().value() == format.uuid()",
    "[format.uuid()].last().orValue(format.date()) == format.uuid()",
    "[format.uuid(), format.date()].sortBy(f, f.validate('x').value()[0])[0] == format.uuid()",
    "[format.uuid(), format.date()].transformList(i, f, f.validate('2021-01-01').hasValue()) == [true, false]",
    "[format.uuid(), 1].exists(x, x == format.uuid())",
    "[1, format.uuid()].exists(x, x == format.uuid())",
    "[format.uuid()].sort().size() == 1",
    "[format.uuid()].isSorted()",
    "[format.uuid()].max() == format.uuid()",
    "{format.uuid(): 1}.size() == 1",
    "optional.of(format.uuid()).optMap(f, f.validate('x')).value().hasValue()",
    "optional.ofNonZeroValue(format.uuid()).hasValue()",
    # types, conversions, overloads
    "type(format.uuid()) == type(format.date())",
    "type(format.uuid()) == type(url('/a'))",
    "type(format.uuid()) == string",
    "type(format.uuid()) == kubernetes.NamedFormat",
    "type(type(format.uuid())) == type",
    "type(format.named('uuid')) == type(optional.none())",
    "type(format.uuid().validate('x')) == type(optional.none())",
    "'%s'.format([type(format.uuid())]) == 'kubernetes.NamedFormat'",
    "'%s'.format([format.uuid()]) == 'uuid'",
    "'%v'.format([format.uuid()]) == 'uuid'",
    "'%s'.format([[format.uuid()]]) == 'uuid'",
    "string(format.uuid()) == 'uuid'",
    "string(dyn(format.uuid())) == 'uuid'",
    "bool(dyn(format.uuid()))",
    "int(dyn(format.uuid())) == 1",
    "dyn(format.uuid())",
    "format.uuid()",
    "format.uuid().validate('x')",
    "format.uuid().validate('x').hasValue() ? format.uuid() : format.date()",
    "dyn(format.uuid().validate('x'))",
    "format.uuid().validate(1).hasValue()",
    "format.uuid().validate(dyn(1)).hasValue()",
    "format.uuid().validate(dyn('x')).hasValue()",
    "format.uuid().validate(b'x').hasValue()",
    "format.uuid().validate('x', 'y').hasValue()",
    "format.uuid().validate().hasValue()",
    "format.uuid(1).validate('x').hasValue()",
    "format.uuid('x').hasValue()",
    "dyn(format.uuid()).validate('x').hasValue()",
    "dyn(format.uuid()).validate(dyn(1)).hasValue()",
    "dyn(1).validate('x').hasValue()",
    "dyn('x').validate('x').hasValue()",
    "dyn(url('/a')).validate('x').hasValue()",
    "'x'.validate('x').hasValue()",
    "validate(format.uuid(), 'x').hasValue()",
    "format.validate('x').hasValue()",
    "format.nosuch().validate('a').hasValue()",
    "format.Uuid().validate('a').hasValue()",
    "format.dns1123label().validate('a').hasValue()",
    "format.uuid.validate('a').hasValue()",
    "format.uuid == format.uuid",
    "format == 1",
    "format.named == 1",
    ".format.uuid() == format.uuid()",
    "format.uuid().name == 'uuid'",
    "has(format.uuid().name)",
    "format.uuid().?name == optional.none()",
    "format.uuid() < format.date()",
    "format.uuid() + format.date() == format.uuid()",
    "size(format.uuid()) == 4",
    "format.uuid().size() == 4",
    "[1].all(format, format.uuid())",
    # a qualified function name is the function, whatever the local variables (cel-go's checker)
    "[1].all(optional, optional.of(1) == optional.of(1))",
    "cel.bind(sets, 1, sets.contains([1], [1]))",
    "cel.bind(optional, {'of': 1}, optional.of == 1)",
    "[1].exists(lists, lists.range(2).size() == 2)",
    "cel.bind(strings, 'a', strings.quote('a') == '\"a\"')",
    # Go maps of ref.Val (literals, transformMap's, getQuery()'s) cannot hash a Format; the device's maps find nothing
    "dyn(format.uuid()) in device.attributes['gpu.example.com']",
    "dyn(format.uuid()) in url('/?a=1').getQuery()",
    "dyn(format.uuid()) in {'a': 1}.transformMap(k, v, v)",
    "dyn(format.uuid()) in device.attributes['nosuch.example.com']",
    "[1].all(format, format == 1)",
    "cel.bind(format, 1, format.uuid() == 1)",
    "cel.bind(format, {'uuid': 1}, format.uuid == 1)",
    "format.named('uuid').value().validate(" + _A + ".uuid).hasValue()",
    # strings from the device and strings holding bytes that are not UTF-8
    *(f"format.{k}().validate({_A}.model).hasValue()" for k in KEYS),
    *(f"format.{k}().validate({_A}.uuid).hasValue()" for k in KEYS),
    *(f"format.{k}().validate({_A}.model + {_A}.uuid).hasValue()" for k in KEYS),
    *(f"format.{k}().validate(device.driver).hasValue()" for k in KEYS),
    *(f"format.{k}().validate(string({_A}.index)).hasValue()" for k in KEYS),
    *(f"format.{k}().validate({_FF}).hasValue()" for k in KEYS),
    *(f"format.{k}().validate('a' + {_FF} + '-').hasValue()" for k in KEYS),
    *(f"cel.bind(r, format.{k}().validate('a' + {_FF} + '-'), !r.hasValue() || ip('#' + r.value().join('|')) "
      "== ip('::'))" for k in KEYS),
    f"format.datetime().validate('2021-01-01T00:00:00' + {_FF} + '5Z').hasValue()",
    f"format.date().validate('2021-01-01' + {_FF}).hasValue()",
    f"format.uri().validate('/' + {_FF}).hasValue()",
    f"format.uuid().validate({_FF} + '23e4567-e89b-12d3-a456-426614174000').hasValue()",
    f"format.dns1123LabelPrefix().validate('{'a' * 62}' + {_FF} + '-').value().size() == 2",
    f"format.dns1123LabelPrefix().validate('{'a' * 61}' + {_FF} + '-').value().size() == 1",
    # estimated costs
    "format.uri().validate(" + _A + ".model).orValue([]).join(',') == ''",
    "format.uri().validate(" + _A + ".model).orValue([]).size() == 0",
    "format.uri().validate(" + _A + ".model + " + _A + ".model).hasValue()",
    "[" + _A + ".model, " + _A + ".uuid].all(s, format.uri().validate(s).hasValue())",
    "[" + _A + ".model, " + _A + ".uuid].exists(s, format.qualifiedName().validate(s).hasValue())",
    "format.uuid().validate(" + _A + ".model) == format.uuid().validate(" + _A + ".uuid)",
    "format.uuid().validate('x') == optional.none()",
    "format.uuid().validate('x') == format.date().validate('x')",
]

_E10000 = "'&&&&&&&&&&'.replace('&', '&&&&&&&&&&').replace('&', '&&&&&&&&&&').replace('&', '&&&&&&&&&&')"


def _cost_cases() -> list[str]:
    """Validations of long strings repeated until the runtime cost limit is passed (the counts around it)."""
    out = []
    for k, n, flip in (("uri", 9999, 4), ("uri", 3001, 13), ("dns1123Label", 9999, 125), ("qualifiedName", 5000, 133),
                       ("labelValue", 4444, 225), ("uuid", 7777, 72), ("byte", 9000, 53), ("date", 6543, 85),
                       ("dns1123SubdomainPrefix", 8000, 84)):
        for r in (flip - 2, flip - 1, flip, flip + 1):
            out.append(f"cel.bind(s, {_E10000}.substring(0, {n}), "
                       f"lists.range({r}).all(i, format.{k}().validate(s).hasValue()))")
    return out


#: within the estimate (which charges validate() 128 / 4 per tenth of the string), over the limit at run time (the
#: format's own regexp size, the string's length plus one): judged in the default environment
WITHIN_ESTIMATE = [
    *(f"lists.range({r}).all(i, format.uri().validate('{'a' * 3000}').hasValue())" for r in (11, 12, 13, 14)),
]


def _string_cases(s: str, keys: list[str]) -> list[dict]:
    lit = _lit(s)
    cases = []
    for k in keys:
        cases.append({"expr": f"format.{k}().validate({lit}).hasValue()", "env": "default"})
        cases.append({"expr": f"cel.bind(r, format.{k}().validate({lit}), "
                              "!r.hasValue() || ip('#' + r.value().join('|')) == ip('::'))", "env": "stored"})
    return cases


def _with_device(cases: list[dict]) -> list[dict]:
    return [dict(c, device="ex0") for c in cases]


def test_validations_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    cases = _with_device([c for s in STRINGS for c in _string_cases(s, KEYS)]
                         + [c for s in HAND_WRITTEN_URLS for c in _string_cases(s, ["uri"])])
    assert len(cases) > 7000
    assert not cel_difference_report(oracles["cel"], cases)


def test_hand_written_cases_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    cases = [{"expr": e, "device": "ex0", "env": env} for e in HAND_WRITTEN for env in ("default", "stored")]
    assert not cel_difference_report(oracles["cel"], cases)


def test_runtime_costs_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    cases = [{"expr": e, "device": "ex0", "env": env} for e in _cost_cases() for env in ("stored", "default")]
    cases += [{"expr": e, "device": "ex0", "env": "default"} for e in WITHIN_ESTIMATE]
    assert not cel_difference_report(oracles["cel"], cases)
