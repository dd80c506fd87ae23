"""url(), isURL() and the URL getters (apiserver pkg/cel/library urls.go), against upstream.

The oracle (tests/oracle/cel, built by test_oracle.py's fixture) compiles and evaluates each case as kube-apiserver
and kube-scheduler do, with Go 1.26's net/url (urlstrictcolons=1, at most 10000 query parameters), and dractl must
give the same compile errors, estimated costs, matches and runtime errors. Each URL string is fed to isURL() and
url(), and each getter's result is shown by the runtime error of ``ip('#' + result)``, whose text quotes it (in the
stored environment: the estimate of a getter's unknown size is over the limit); ``url(s) == url(t)``, t being what
dractl's URL.String() gives, checks that the strings upstream compares are the same. The strings are Go's own
net/url test tables' (tests/fixtures/go-url-test-strings.json), the hand-written ones below and seeded random ones
(DRACTL_ORACLE_SEED=N picks another seed).

Known, not URL-specific gaps are left out: a URL (or IP, or Quantity) as a key of a map literal (upstream's Go map
holds its pointer: two equal URLs are two keys); bytes looked up in a map (a panic upstream); sort() of an error
(a panic upstream). A string holding a byte that is not UTF-8 (only a URL getter makes one: ``%ff`` unescaped)
keeps it, surrogate-escaped, so that it equals, sizes, orders, quotes, converts to bytes, joins with ``+`` and is
read as runes (U+FFFD: charAt, lowerAscii, regexps, ...) as in Go.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from conftest import fixture_path
from test_oracle import cel_difference_report, oracles  # noqa: F401 (oracles: the fixture)

from dractl.cel import gourl
from dractl.cel.urlvalue import from_bytes, to_bytes

SEED = int(os.environ.get("DRACTL_ORACLE_SEED") or 20261203)

GO_STRINGS: list[str] = json.loads(Path(fixture_path("go-url-test-strings.json")).read_text())["strings"]

HAND_WRITTEN_URLS = [
    # colons in the host: strict for http and https only
    "http://localhost:1:2/", "https://localhost:1:2/", "ftp://localhost:1:2/", "mongodb://a:1,b:2/db",
    "postgres://h1:5432,h2:5433/db", "http://::1/", "foo://::1/", "http://a:/", "http://a:80x/", "http://a:+80/",
    "http://a:-1/", "http://:80/", "http://[::1]:/", "http://[::1]x/", "http://[::1]:8x/", "http://x[::1]/",
    "http://[::1/", "http://[1.2.3.4]/", "http://[::ffff:1.2.3.4]/", "http://[::1]:80:80/",
    # IPv6 zones and escapes in the host
    "http://[fe80::1%25en0]/", "http://[fe80::1%25%65n0]/", "http://[fe80::1%25en0%2]/", "http://[fe80::1%25]/",
    "http://[fe80::1%en0]/", "http://[fe80::1%25en%200]/", "http://[fe80::1%25en%0a0]/", "http://[fe80::1%25en%3c0]/",
    "http://[fe80::1%25%C3%A9]/", "http://[fe80::%31]/", "http://[%66e80::1]/", "http://[fe80::1%25en0]:8080/p",
    "http://[::1%25%25]/", "http://[::1%2525]/", "http://[%ff::1]/", "http://[::1%25%ff]/",
    "http://%41.com/", "http://%c3%a9.com/", "http://%ff.com/", "http://%25.com/", "http://a%2/", "http://a%zz/",
    "http://é.com/", "http://ä.com:80/x", "http://a<b>.com/", 'http://a"b.com/', "http://a{b}.com/", "http://a|b.com/",
    "http://a`b.com/", "http://a^b.com/", "http://a b.com/", "http://a%20b.com/", "http://a+b.com/",
    "http://a!$&'()*,;=.com/", "http://a%z\u00e9/",
    # userinfo
    "http://user@host/", "http://user:pass@host/", "http://us%20er:p%40ss@host/", "http://u:p@ss@host/",
    "http://u:p:q@host/", "http://@host/", "http://:@host/", "http://u%zz@host/", "http://u:%zz@host/",
    "http://ü@host/", "http://u/x@host/", "http://u?x@host/", "http://u#x@host/", "http://u[x]@host/",
    "http://u\\x@host/", "http://u x@host/", "http://u:p@[::1]:80/",
    # paths and fragments
    "/", "//", "///", "////x", "//host/p", "/a//b", "/a%2fb", "/a%2Fb/%2e%2e/c", "/a b", "/a%20b", "/é", "/%C3%A9",
    "/%c3%a9", "/%ff", "/%zz", "/a%", "/a%2", "/a%z\u00e9", "/a?b?c", "/a?", "/a??", "/?", "/#", "/#x", "/a#b#c",
    "/a#%zz", "/a#%ff", "/a#b c", "/a#%20", "/a#é", "/a#!()*'", "/a#%21", "/a#a%2fb", "/a;b", "/a,b", "/a:b", "/@",
    "/a$b&c+d=e", "/a[b]", "/a{b}", "/a|b", "/a\\b", "/a^b", "/a`b", "/a<b>", '/a"b', "/~a", "*", "**", "/*",
    "http://x/*", "http:*", "http:/*", "http://x", "http://x?", "http://x?a", "http://x#f", "http://x/?#",
    "http://x/p?q#f#g",
    # schemes, opaque and relative URLs
    "mailto:a@b.c", "urn:isbn:123", "HTTP://X.COM/", "Http://x/", "h+t-t.p://x/", "1http://x/", "+x://y/", ":foo",
    "a:", "a:b:c", "a:/b", "a:?q", "a:?", "a:#f", "file:///etc/passwd", "file://", "file:/", "file:", "x-y:z",
    "s3://bucket/key?versionId=1", "http:/x/y", "http:x/y", "http:x:y", "http:?x", "http:#x", "a/b", "./a", "../a",
    "a:b/c", "?q", "#f", "", " ", " /a", "/a ", "\t/a", "/a\n", "/a\x7f", "/a\x01", "http://x/\x00",
    # queries
    "/?a=1&b=2&a=3", "/?a", "/?a=", "/?=a", "/?&&&", "/?a=1;b=2", "/?a;=1&b=2", "/?a%3Bb=1", "/?a=%zz&b=2",
    "/?a%zz=1&b=2", "/?a+b=c+d", "/?a%2Bb=c%2bd", "/?a=%ff", "/?%ff=a", "/?a=%c3%a9", "/?a=%c3", "/?%e2%82&x=%ac",
    "/?a=b=c", "/?a==", "/?é=ü", "/?a=%00", "/?a=%0a", "/?a=%7f", "/?a=1&a=1&a=", "/?a[]=1&a[]=2", "/?a=%",
    "/?a=%2", "/?=", "/?;", "/?a=1&;&b=2", "/?k=%E2%82%AC", "/?k=%e2%82", "/?k=%80", "/?k=%c0%80", "/?k=%ed%a0%80",
    "/?k=%f4%90%80%80",
    # ports
    "http://x:0/", "http://x:65536/", "http://x:0080/", "http://x:99999999999999999999/", "http://x.com:80/?q=1#f",
    "https://example.com:443",
]

_GETTERS = ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath")


def _lit(s: str) -> str:
    """A CEL string literal for ``s``."""
    out = ['"']
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or c == "\x7f":
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(c)
    return "".join(out) + '"'


def _cases_for(raw: str) -> list[dict]:
    lit = _lit(raw)
    cases = [{"expr": f"isURL({lit})", "env": "default"}, {"expr": f"url({lit}) == url({lit})", "env": "default"}]
    cases += [{"expr": f"ip('#' + url({lit}).{g}()) == ip('::')", "env": "stored"} for g in _GETTERS]
    b = to_bytes(raw)
    try:
        gourl.parse_request_uri(b)
        text = from_bytes(gourl.parse(b).string())
    except gourl.URLError:
        return cases
    # getQuery()'s pairs sorted (only for a URL: sort() of an error is a panic upstream)
    q = "q.map(k, k + '=' + q[k].join(',')).sort().join('&')"
    cases.append({"expr": f"ip('#' + cel.bind(q, url({lit}).getQuery(), {q})) == ip('::')", "env": "stored"})
    # the string Equal compares: dractl's, which upstream must find equal (and another one, not)
    cases.append({"expr": f"url({lit}) == url({_lit(text)})", "env": "stored"})
    cases.append({"expr": f"url({lit}) != url({_lit(text + 'x')})", "env": "stored"})
    return cases


_A = "device.attributes['gpu.example.com']"
_LONG = "/" + "b" * 60

HAND_WRITTEN = [
    # urls.go's examples and apiextensions' validation tests
    "url('https://user:pass@example.com:80/path?query=val#fragment').getScheme() == 'https'",
    "url('/path').getScheme() == ''",
    "url('https://example.com:80/').getHost() == 'example.com:80'",
    "url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://[::1]/').getHostname() == '::1'",
    "url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
    "url('https://example.com:80/').getPort() == '80'",
    "url('https://example.com/').getPort() == ''",
    "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
    "url('https://example.com').getEscapedPath() == ''",
    "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    "url('https://example.com/path?key with spaces=value with spaces').getQuery() == "
    "{'key with spaces': ['value with spaces']}",
    "url('https://example.com/path?').getQuery() == {}",
    "url('https://example.com/path').getQuery() == {}",
    "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
    "isURL('/path') == true",
    "isURL('https://a:b:c/') == false",
    "isURL('../relative-path') == false",
    "url('https://a:b:c/') == url('/')",
    "url('../relative-path') == url('/')",
    # cost_test.go TestURLsCost
    "url('https:://kubernetes.io/').getScheme() == 'https'",
    "url('https:://kubernetes.io/').getHostname() == ''",
    "url('https:://kubernetes.io/').getHost() == ''",
    "url('https:://kubernetes.io/').getPort() == ''",
    "url('https:://kubernetes.io/').getEscapedPath() == ''",
    "url('https:://kubernetes.io/').getQuery() == {}",
    "url('https:://kubernetes.io/') == url('https:://kubernetes.io/')",
    "url('https:://kubernetes.io/') == url('http://x.b')",
    "url('http://x.b') == url('https:://kubernetes.io/')",
    "url('https:://kubernetes.io/').getHostname() != 'test'",
    # sizes from the device
    "url(device.attributes['gpu.example.com'].uuid).getScheme() == 'gpu-18db0e85-99e9-c746-8531-ffeb86328b39'",
    "url('/' + device.attributes['gpu.example.com'].uuid).getEscapedPath() == "
    "'/gpu-18db0e85-99e9-c746-8531-ffeb86328b39'",
    "url('/' + device.attributes['gpu.example.com'].uuid) == url('/' + device.attributes['gpu.example.com'].uuid)",
    "url('/' + device.attributes['gpu.example.com'].uuid) == url('/x')",
    "url('/x') == url('/' + device.attributes['gpu.example.com'].uuid)",
    "isURL(device.attributes['gpu.example.com'].uuid)",
    "isURL('/' + device.attributes['gpu.example.com'].uuid)",
    "url('/' + device.attributes['gpu.example.com'].model).getQuery().size() == 0",
    # estimated costs: sizes through conditionals, binds, lists, optionals and comprehensions
    f"url('/c') == ({_A}.index > 0 ? url('/a') : url('{_LONG}'))",
    f"({_A}.index > 0 ? url('/a') : url('{_LONG}')) == url('/c')",
    f"url({_A}.model) == url({_A}.uuid)",
    f"url('/' + {_A}.model) == url('/' + {_A}.uuid + {_A}.model)",
    f"cel.bind(u, url('/' + {_A}.model), u == u)",
    f"cel.bind(u, url('/' + {_A}.model + {_A}.model + {_A}.model), url('/x') == u)",
    f"[url('/a'), url('{_LONG}')].exists(u, u == url('/b'))",
    f"[url('/a'), url('{_LONG}')].exists(u, url('/b') == u)",
    f"url('/a') in [url('{_LONG}')]",
    f"url('/a') != url('{_LONG}')",
    f"optional.of(url('/a')).value() == url('{_LONG}')",
    f"url('/a') == optional.of(url('{_LONG}')).value()",
    f"url('/a') == dyn(url('{_LONG}'))",
    f"url({_A}.model).getQuery()['x'][0] == 'a'",
    f"url({_A}.model).getEscapedPath().size() < 3",
    f"url({_A}.model).getQuery().size() < 3",
    f"url({_A}.model).getQuery().exists(k, k == 'a')",
    f"url({_A}.model).getQuery().all(k, v, v.size() > 0)",
    f"isURL({_A}.model) && isURL({_A}.uuid)",
    f"url(dyn({_A}.model)) == url('/a')",
    f"url(string({_A}.index)) == url('/a')",
    f"[{_A}.model, {_A}.uuid].map(s, url('/' + s)).exists(u, u == url('/a'))",
    f"[{_A}.model, {_A}.uuid].exists(s, url('/' + s) == url('/a'))",
    f"[{_A}.model, {_A}.uuid].exists(s, url('/a') == url('/' + s))",
    # equality, lists, in, optionals, dyn
    "url('/a') == url('/a') && url('/b') == url('/b')",
    "url('/a') != url('/a')",
    "url('http://x/a%2fb') == url('http://x/a%2Fb')",
    "url('HTTP://x.com/a') == url('http://x.com/a')",
    "url('http://X.com/a') == url('http://x.com/a')",
    "[url('/a'), url('/b')].exists(u, u == url('/b'))",
    "[url('/a'), url('/b')].all(u, u.getScheme() == '')",
    "[url('/a'), url('/b')].map(u, u.getEscapedPath()) == ['/a', '/b']",
    "url('/a') in [url('/b'), url('/a')]",
    "url('/c') in [url('/b'), url('/a')]",
    "dyn(url('/a')) in [1, url('/a')]",
    "dyn(url('/a')) in [1, url('/b')]",
    "dyn(url('/a')) in ['/a']",
    "dyn(url('/a')) in [dyn('/a'), dyn(url('/b'))]",
    "dyn(url('/a')) == '/a'",
    "'/a' == dyn(url('/a'))",
    "dyn(url('/a')) == dyn(ip('1.2.3.4'))",
    "dyn(ip('1.2.3.4')) == dyn(url('/a'))",
    "dyn(url('/a')) != dyn(1)",
    "dyn(url('/a')) == 1",
    "dyn(url('/a')) == null",
    "null == dyn(url('/a'))",
    "url('/a') == null",
    "url('/a') != null",
    "[url('/a')] == [url('/a')]",
    "[url('/a')] == [url('/b')]",
    "[url('/a')] == [dyn(1)]",
    "{'k': url('/a')} == {'k': url('/a')}",
    "{'k': url('/a')} == {'k': url('/b')}",
    "{'k': url('/a')}.k.getEscapedPath() == '/a'",
    "dyn(url('/a'))",
    "dyn(url('/a')) == dyn(url('/a'))",
    "url('/a') == dyn(url('/a'))",
    "optional.of(url('/a')).value().getHost() == ''",
    "optional.of(url('/a')).optMap(u, u.getEscapedPath()).value() == '/a'",
    # URLs in the list and set libraries, comprehensions and format()
    "[url('/a'), url('/a')].distinct().size() == 1",
    "[url('/a'), url('/b')].sort().size() == 2",
    "[url('/a')].sort().size() == 1",
    "[url('/a'), url('/b')].max() == url('/b')",
    "[url('/a')].max() == url('/a')",
    "sets.contains([url('/a'), url('/b')], [url('/a')])",
    "sets.equivalent([url('/a')], [url('/a')])",
    "sets.intersects([url('/a')], [url('/b')])",
    "[url('/a'), url('/b')].indexOf(url('/b')) == 1",
    "[url('/a'), url('/b')].lastIndexOf(url('/a')) == 0",
    "[url('/a')].isSorted()",
    "[url('/a'), url('/b')].isSorted()",
    "[url('/b'), url('/a')].sortBy(u, u.getEscapedPath())[0] == url('/a')",
    "[url('/a'), url('/b')].sortBy(u, u).size() == 2",
    "[url('/a'), url('/b')].reverse()[0] == url('/b')",
    "[[url('/a')], [url('/b')]].flatten().size() == 2",
    "[url('/a')].slice(0, 1) == [url('/a')]",
    "[url('/a'), url('/b')].transformMap(i, u, u.getEscapedPath())[1] == '/b'",
    "url('/a').getQuery().transformMapEntry(k, v, {k: v}).size() == 0",
    "[url('/a')].first().value() == url('/a')",
    "[url('/a')].last().orValue(url('/b')) == url('/a')",
    "[url('/a'), 1].exists(x, x == url('/a'))",
    "[1, url('/a')].exists(x, x == url('/a'))",
    "[url('/a'), 1].all(x, x != url('/b'))",
    "cel.bind(q, url('/?b=2&a=1&a=0').getQuery(), q.a == ['1', '0'] && q.b == ['2'])",
    "url('/?b=2&a=1').getQuery().size() == 2",
    "'%s'.format([url('/a')]) == '/a'",
    "'%v'.format([url('/a')]) == '/a'",
    # types and overloads
    "type(url('/a')) == type(url('/b'))",
    "type(url('/a')) == kubernetes.URL",
    "type(url('/a')) == string",
    "type(url('/a')) == type(ip('1.2.3.4'))",
    "type(type(url('/a'))) == type",
    "string(url('/a')) == '/a'",
    "url('/a').getScheme('x') == ''",
    "url('/a', '/b') == url('/a')",
    "url() == url('/a')",
    "url(1) == url('/')",
    "url(dyn(1)) == url('/')",
    "url(url('/a')) == url('/a')",
    "url(dyn(url('/a'))) == url('/a')",
    "isURL(1)",
    "isURL(dyn(1))",
    "isURL(dyn('/a'))",
    "isURL('/a', 1)",
    "url('/a').isURL()",
    "'/a'.url() == url('/a')",
    "getScheme(url('/a')) == ''",
    "url('/a').getFoo() == ''",
    "url('/a').getHost == ''",
    "url('/a').host == 'x'",
    "has(url('/a').host)",
    "url('/a').?host == optional.none()",
    "url('/a') < url('/b')",
    "url('/a') + url('/b') == url('/ab')",
    "-url('/a') == url('/a')",
    "size(url('/a')) == 2",
    "url('/a').size() == 2",
    "'x'.getHost() == ''",
    "dyn(url('/a')).getEscapedPath() == '/a'",
    "dyn(url('/a')).getHost() == ''",
    "dyn(1).getEscapedPath() == '/a'",
    "dyn('x').getQuery() == {}",
    "url('/a').getQuery() == dyn({})",
    "url('/a').getQuery().size() == 0",
    # getQuery() values
    "url('/?a=1').getQuery()['a'] == ['1']",
    "url('/?a=1').getQuery().a == ['1']",
    "url('/?a=1').getQuery()['b'] == ['1']",
    "url('/?a=1').getQuery()[?'b'].orValue([]) == []",
    "url('/?a=1').getQuery().all(k, v, v[0].size() == 1)",
    # bytes that are not UTF-8
    "url('/?a=%ff').getQuery()['a'][0] == '\\xff'",
    "url('/?a=%ff').getQuery()['a'][0] == '\\u00ff'",
    "url('/?a=%ff').getQuery()['a'][0] == url('/?a=%ff').getQuery()['a'][0]",
    "url('/?a=%ff').getQuery()['a'][0] == url('/?a=%fe').getQuery()['a'][0]",
    "url('/?a=%ff').getQuery()['a'][0].size() == 1",
    "url('/?a=%ff%fe').getQuery()['a'][0].size() == 2",
    "url('/?a=%c3%a9').getQuery()['a'][0] == 'é'",
    "url('/?a=%ff').getQuery()['a'][0] < 'a'",
    "url('/?a=%ff').getQuery()['a'][0] > 'é'",
    "url('/?a=%ff').getQuery()['a'][0].startsWith(url('/?a=%ff').getQuery()['a'][0])",
    "url('/?a=%ff').getQuery()['a'][0].contains('\\xff')",
    "url('/?a=%ff').getQuery()['a'][0].matches('^.$')",
    "url('/?a=%ff').getQuery()['a'][0].matches('^\\ufffd$')",
    "bytes(url('/?a=%ff').getQuery()['a'][0]) == b'\\xff'",
    "string(bytes(url('/?a=%ff').getQuery()['a'][0])) == 'x'",
    "url(url('/?a=%ff').getQuery()['a'][0]) == url('/')",
    "url('/' + url('/?a=%ff').getQuery()['a'][0]).getEscapedPath() == '/%FF'",
    "url('http://[' + url('/?a=%ff').getQuery()['a'][0] + '::1]/') == url('/')",
    "ip(url('/?a=%ff').getQuery()['a'][0]) == ip('::')",
    # a URL (IP, CIDR, Quantity) looked up in a map or list: never found, and an invalid qualifier
    "dyn(url('/a')) in device.attributes",
    "dyn(url('/a')) in device.attributes['gpu.example.com']",
    "dyn([1]) in device.attributes['gpu.example.com']",
    "dyn(1) in device.attributes['gpu.example.com']",
    "dyn(url('/a')) in device.capacity['gpu.example.com']",
    "dyn(url('/a')) in url('/?a=1').getQuery()",
    "dyn(url('/a')) in {1: 2}",
    "dyn(url('/a')) in dyn({})",
    'dyn([1]) in {}',
    "dyn(timestamp('2020-01-01T00:00:00Z')) in {'a': 1}",
    "{'a': 1}[dyn(ip('1.2.3.4'))] == 1",
    "device.attributes['gpu.example.com'][dyn(url('/a'))] == 1",
    "url('/?a=1').getQuery()[dyn(url('/a'))] == ['1']",
    "device.attributes[dyn(url('/a'))].size() == 0",
    "device.attributes[?dyn(url('/a'))] == optional.none()",
    "[1][dyn(url('/a'))] == 1",
    "[1][?dyn(url('/a'))] == optional.none()",
    "dyn(url('/a')).a == 1",
    "{'a': {'b': 1}}['a'][dyn(ip('1.2.3.4'))] == 1",
    "dyn(cidr('1.2.3.4/32')) in {'a': 1}",
    "{'a': 1}[dyn(cidr('1.2.3.4/32'))] == 1",
    "{'a': 1}[dyn(quantity('1'))] == 1",
    "dyn(url('/a')) in {'a': 1}",
    "dyn(ip('1.2.3.4')) in {'a': 1}",
    "dyn(quantity('1')) in {'a': 1}",
    "dyn([1]) in {'a': 1}",
    "dyn({}) in {'a': 1}",
    "dyn(null) in {'a': 1}",
    "dyn(duration('1s')) in {'a': 1}",
    "dyn(int) in {'a': 1}",
    "dyn(optional.of(1)) in {'a': 1}",
    "{'a': 1}[dyn(url('/a'))] == 1",
    "{'a': 1}[?dyn(url('/a'))] == optional.none()",
    # conversions of a dyn URL: cel-go's guard, as for the other Kubernetes types
    "string(dyn(url('/a'))) == '/a'",
    "bool(dyn(url('/a')))",
    "int(dyn(url('/a'))) == 1",
    "uint(dyn(url('/a'))) == 1u",
    "double(dyn(url('/a'))) == 1.0",
    "bytes(dyn(url('/a'))) == b''",
    "string(dyn(quantity('1'))) == '1'",
    "string(dyn(semver('1.0.0'))) == '1'",
    "string(dyn({})) == '/a'",
    "string(dyn([])) == '/a'",
    "string(dyn(null)) == 'a'",
    "string(dyn(optional.of(1))) == 'a'",
    "int(dyn(ip('1.2.3.4'))) == 1",
    "bool(dyn(ip('1.2.3.4')))",
    "int(dyn(quantity('1'))) == 1",
    "string(dyn(1)) == '1'",
    "string(dyn(ip('1.2.3.4'))) == '1.2.3.4'",
    "string(dyn(cidr('1.2.3.4/32'))) == '1.2.3.4/32'",
    "int(dyn(timestamp('2020-01-01T00:00:00Z'))) > 0",
    "int(dyn(duration('1s'))) > 0",
    "string(dyn(duration('1s'))) == '1s'",
    "double(dyn('1.5')) == 1.5",
    'uint(dyn(-1)) == 1u',
    "bool(dyn('true'))",
    "bytes(dyn('a')) == b'a'",
    'int(dyn(1/0)) == 1',
    "string(dyn(b'\\xff')) == 'a'",
    "dyn(int(dyn('x'))) == 1",
    "string(1/0) == 'a'",
    # ... read as runes (U+FFFD), as bytes, joined and ordered
    "url('/?a=%c3').getQuery()['a'][0] + url('/?a=%a9').getQuery()['a'][0] == 'é'",
    "(url('/?a=%c3').getQuery()['a'][0] + url('/?a=%a9').getQuery()['a'][0]).size() == 1",
    "url('/?a=%e2').getQuery()['a'][0] + url('/?a=%82').getQuery()['a'][0] + url('/?a=%ac').getQuery()['a'][0] == '€'",
    "url('/?a=%e2%82').getQuery()['a'][0] + url('/?a=%ac').getQuery()['a'][0] == '€'",
    "url('/?a=%ff').getQuery()['a'][0] > '\\uffff'",
    "url('/?a=%ff').getQuery()['a'][0] > '\\ue000'",
    "url('/?a=%ff').getQuery()['a'][0] < '\\ud7ff'",
    "[url('/?a=%ff').getQuery()['a'][0], '\\ue000', 'a'].sort()[2] == '\\ue000'",
    "url('/?a=%80').getQuery()['a'][0] < url('/?a=%ff').getQuery()['a'][0]",
    "'a' + url('/?a=%ff').getQuery()['a'][0] + 'b' == 'a' + url('/?a=%ff').getQuery()['a'][0] + 'b'",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].lowerAscii() == 'x\\ufffdyé'",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].upperAscii() == 'X\\ufffdYÉ'",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].charAt(1) == '\\ufffd'",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].charAt(1) == url('/?a=%ff').getQuery()['a'][0]",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].indexOf('\\ufffd') == 1",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].indexOf(url('/?a=%ff').getQuery()['a'][0]) == 1",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].lastIndexOf('Y') == 2",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].lastIndexOf('\\ufffd', 3) == 1",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].indexOf('Y', 1) == 2",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].substring(1) == '\\ufffdYé'",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].substring(0, 2) == 'x\\ufffd'",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].size() == 4",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].contains('\\ufffd')",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].startsWith('x\\ufffd')",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].endsWith('é')",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].replace('Y', 'z') == 'x' + url('/?a=%ff').getQuery()['a'][0] + 'zé'",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].split('Y')[0] == 'x' + url('/?a=%ff').getQuery()['a'][0]",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].split('Y')[0].size() == 2",
    "[url('/?a=x%ffY%c3%a9').getQuery()['a'][0], 'b'].join('-').size() == 6",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].trim() == url('/?a=x%ffY%c3%a9').getQuery()['a'][0]",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].find('.Y') == '\\ufffdY'",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].findAll('.').size() == 4",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].matches('x.Y')",
    'strings.quote(url(\'/?a=x%ffY%c3%a9\').getQuery()[\'a\'][0]) == \'"x\\ufffdYé"\'',
    "'%s'.format([url('/?a=x%ffY%c3%a9').getQuery()['a'][0]]) == url('/?a=x%ffY%c3%a9').getQuery()['a'][0]",
    "'%s'.format([url('/?a=x%ffY%c3%a9').getQuery()['a'][0]]).size() == 4",
    "size(url('/?a=x%ffY%c3%a9').getQuery()['a'][0]) == 4",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].lowerAscii().size() == 4",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].find('.Y') == url('/?a=%ffY').getQuery()['a'][0]",
    "url('/?a=x%ffY%c3%a9').getQuery()['a'][0].findAll('.')[1] == url('/?a=%ff').getQuery()['a'][0]",
    "'abcé'.find('c.') == 'cé'",
    "'aébcé'.findAll('[bé]') == ['é', 'b', 'é']",
]

_E10000 = "'&&&&&&&&&&'.replace('&', '&&&&&&&&&&').replace('&', '&&&&&&&&&&').replace('&', '&&&&&&&&&&')"

#: the query parameter limit (10000) and costs near the runtime limit: judged in the stored environment
STORED = [
    f"url('/?a=1' + {_E10000}.substring(2) + 'b=2').getQuery().size() == 2",
    f"url('/?a=1' + {_E10000}.substring(1) + 'b=2').getQuery().size() == 2",
    f"url('/?a=1' + {_E10000} + 'b=2').getQuery().size() == 0",
    f"url('/?a=1' + {_E10000} + '&b=2').getQuery().size() == 0",
    f"url('/?' + {_E10000}.replace('&', ';')).getQuery().size() == 0",
    f"isURL('/?' + {_E10000} + '&')",
    *(f"cel.bind(s, '/' + {_E10000}, lists.range({k}).all(i, url(s).getScheme() == ''))"
      for k in (990, 991, 992)),
    *(f"cel.bind(s, '/' + {_E10000}, lists.range({k}).all(i, url(s) == url(s)))" for k in (497, 498)),
]


#: pieces of the seeded random URL strings
_TOKENS = ["a", "B", "1", "0", ":", "/", "//", "?", "#", "@", "%", "%2", "%25", "%zz", "%ff", "%c3%a9", "%41", "%2f",
           "%3A", "[", "]", "[::1]", "[fe80::1%25en0]", ".", "..", "+", ";", "&", "=", " ", "é", "\x7f", "\t",
           "http://", "https://", "foo:", "mailto:", "HTTP:", "*", "~", "!", "'", "(", "$", ",", "\\", '"', "<", "`",
           "{", "|", "80", ":80", ":8x", "user:pass@", "u@", "::", "1.2.3.4", "x.com", "-", "_", "%20", "k=v",
           "a=%ff", "€"]


def _random_urls(rng: random.Random, n: int) -> list[str]:
    out: set[str] = set()
    while len(out) < n:
        s = "".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 8)))
        if rng.random() < 0.5:
            s = rng.choice(["http://", "https://", "/", "ftp://", "a:", "//"]) + s
        out.add(s)
    return sorted(out)


def _with_device(cases: list[dict]) -> list[dict]:
    return [dict(c, device="ex0") for c in cases]


def test_go_url_test_strings_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    assert len(GO_STRINGS) > 500
    cases = _with_device([c for s in GO_STRINGS for c in _cases_for(s)])
    assert not cel_difference_report(oracles["cel"], cases)


def test_hand_written_urls_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    cases = _with_device([c for s in HAND_WRITTEN_URLS for c in _cases_for(s)])
    assert not cel_difference_report(oracles["cel"], cases)


def test_random_urls_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    cases = _with_device([c for s in _random_urls(random.Random(SEED), 400) for c in _cases_for(s)])
    assert not cel_difference_report(oracles["cel"], cases), f"seed {SEED}"


def test_hand_written_cases_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    cases = [{"expr": e, "device": "ex0", "env": env} for e in HAND_WRITTEN for env in ("default", "stored")]
    assert not cel_difference_report(oracles["cel"], cases)


def test_query_limit_and_runtime_costs_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811
    cases = [{"expr": e, "device": "ex0", "env": env} for e in STORED for env in ("stored", "default")]
    assert not cel_difference_report(oracles["cel"], cases)
