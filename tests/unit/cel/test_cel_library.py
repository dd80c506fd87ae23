"""Expression-level ports of k8s.io/apiserver pkg/cel/library quantity_test.go and semver_test.go,
plus dractl-specific checks (blog selectors, limits, errors, memoised evaluation)."""

from __future__ import annotations

import pytest

from dractl.cel import CELCompileError, CELRuntimeError, compile_selector, evaluate_expression, evaluate_many
from dractl.cel.library.values import CelQuantity
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.quantity import Quantity


def _value(v):
    if isinstance(v, CelQuantity):
        return ("quantity", v.q.value)
    return v


# apiserver pkg/cel/library/quantity_test.go TestQuantity: (name, expr, value | None, runtime err, compile err)
QUANTITY = [
    ("parse", 'quantity("12Mi")', ("quantity", Quantity.parse("12Mi").value), None, None),
    ("parseInvalidSuffix", 'quantity("10Mo")', None, "quantities must match the regular expression", None),
    ("parseInvalidSuffixPassesRegex", 'quantity("10Mm")', None, "unable to parse quantity's suffix", None),
    ("isQuantity", 'isQuantity("20")', True, None, None),
    ("isQuantity_megabytes", 'isQuantity("20M")', True, None, None),
    ("isQuantity_mebibytes", 'isQuantity("20Mi")', True, None, None),
    ("isQuantity_invalidSuffix", 'isQuantity("20Mo")', False, None, None),
    ("isQuantity_passingRegex", 'isQuantity("10Mm")', False, None, None),
    ("isQuantity_noOverload", "isQuantity([1, 2, 3])", None, None,
     "found no matching overload for 'isQuantity' applied to"),
    ("equality_reflexivity", 'quantity("200M") == quantity("200M")', True, None, None),
    ("equality_symmetry", 'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', True, None,
     None),
    ("equality_transitivity",
     'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && '
     'quantity("0.002G") == quantity("2000k")', True, None, None),
    ("inequality", 'quantity("200M") == quantity("0.3G")', False, None, None),
    ("quantity_less", 'quantity("50M").isLessThan(quantity("50Mi"))', True, None, None),
    ("quantity_less_obvious", 'quantity("50M").isLessThan(quantity("100M"))', True, None, None),
    ("quantity_less_false", 'quantity("100M").isLessThan(quantity("50M"))', False, None, None),
    ("quantity_greater", 'quantity("50Mi").isGreaterThan(quantity("50M"))', True, None, None),
    ("quantity_greater_obvious", 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', True, None, None),
    ("quantity_greater_false", 'quantity("50M").isGreaterThan(quantity("100M"))', False, None, None),
    ("compare_equal", 'quantity("200M").compareTo(quantity("0.2G"))', 0, None, None),
    ("compare_less", 'quantity("50M").compareTo(quantity("50Mi"))', -1, None, None),
    ("compare_greater", 'quantity("50Mi").compareTo(quantity("50M"))', 1, None, None),
    ("add_quantity", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', True, None, None),
    ("add_int", 'quantity("50k").add(20).isLessThan(quantity("50020"))', False, None, None),
    ("sub_quantity", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', True, None, None),
    ("sub_int", 'quantity("50k").sub(20) == quantity("49980")', True, None, None),
    ("arith_chain_1", 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980, None, None),
    ("arith_chain", 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20, None, None),
    ("as_integer", 'quantity("50k").asInteger()', 50000, None, None),
    ("as_integer_error", 'quantity("9999999999999999999999999999999999999G").asInteger()', None,
     "cannot convert value to integer", None),
    ("is_integer", 'quantity("9999999999999999999999999999999999999G").isInteger()', False, None, None),
    ("is_integer", 'quantity("50").isInteger()', True, None, None),
    ("as_float", 'quantity("50.703k").asApproximateFloat()', 50703.0, None, None),
    ("add_does_not_mutate_receiver",
     '[quantity("9999999999999999999999999999999999999")].all(x, '
     'x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)', True, None, None),
]

# apiserver pkg/cel/library/semver_test.go TestSemver
SEMVER = [
    ("parseInvalidVersion", 'semver("v1.0")', None, "No Major.Minor.Patch elements found", None),
    ("isSemver", 'isSemver("1.2.3-beta.1+build.1")', True, None, None),
    ("isSemver_empty_false", 'isSemver("")', False, None, None),
    ("isSemver_v_prefix_false", 'isSemver("v1.0.0")', False, None, None),
    ("isSemver_v_leading_whitespace_false", 'isSemver(" 1.0.0")', False, None, None),
    ("isSemver_v_contains_whitespace_false", 'isSemver("1. 0.0")', False, None, None),
    ("isSemver_v_trailing_whitespace_false", 'isSemver("1.0.0 ")', False, None, None),
    ("isSemver_leading_zeros_false", 'isSemver("01.01.01")', False, None, None),
    ("isSemver_major_only_false", 'isSemver("1")', False, None, None),
    ("isSemver_major_minor_only_false", 'isSemver("1.1")', False, None, None),
    ("isSemver_empty_normalize_false", 'isSemver("", true)', False, None, None),
    ("isSemver_v_leading_whitespace_normalize_false", 'isSemver(" 1.0.0", true)', False, None, None),
    ("isSemver_v_contains_whitespace_normalize_false", 'isSemver("1. 0.0", true)', False, None, None),
    ("isSemver_v_trailing_whitespace_normalize_false", 'isSemver("1.0.0 ", true)', False, None, None),
    ("isSemver_v_prefix_normalize_true", 'isSemver("v1.0.0", true)', True, None, None),
    ("isSemver_leading_zeros_normalize_true", 'isSemver("01.01.01", true)', True, None, None),
    ("isSemver_major_only_normalize_true", 'isSemver("1", true)', True, None, None),
    ("isSemver_major_minor_only_normalize_true", 'isSemver("1.1", true)', True, None, None),
    ("isSemver_noOverload", "isSemver([1, 2, 3])", None, None, "found no matching overload for 'isSemver' applied to"),
    ("equality_normalize", 'semver("v01.01", true) == semver("1.1.0")', True, None, None),
    ("equality_reflexivity", 'semver("1.2.3") == semver("1.2.3")', True, None, None),
    ("inequality", 'semver("1.2.3") == semver("1.0.0")', False, None, None),
    ("semver_less", 'semver("1.0.0").isLessThan(semver("1.2.3"))', True, None, None),
    ("semver_less_false", 'semver("1.0.0").isLessThan(semver("1.0.0"))', False, None, None),
    ("semver_greater", 'semver("1.2.3").isGreaterThan(semver("1.0.0"))', True, None, None),
    ("semver_greater_false", 'semver("1.0.0").isGreaterThan(semver("1.0.0"))', False, None, None),
    ("compare_equal", 'semver("1.2.3").compareTo(semver("1.2.3"))', 0, None, None),
    ("compare_less", 'semver("1.0.0").compareTo(semver("1.2.3"))', -1, None, None),
    ("compare_greater", 'semver("1.2.3").compareTo(semver("1.0.0"))', 1, None, None),
    ("major", 'semver("1.2.3").major()', 1, None, None),
    ("minor", 'semver("1.2.3").minor()', 2, None, None),
    ("patch", 'semver("1.2.3").patch()', 3, None, None),
]


def _check(expr, value, runtime_err, compile_err):
    if compile_err:
        with pytest.raises(CELCompileError, match=compile_err):
            evaluate_expression(expr)
        return
    if runtime_err:
        with pytest.raises(CELRuntimeError, match=runtime_err):
            evaluate_expression(expr)
        return
    got = _value(evaluate_expression(expr))
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("name,expr,value,rt,ce", QUANTITY, ids=[f"{i}-{c[0]}" for i, c in enumerate(QUANTITY)])
def test_quantity(name, expr, value, rt, ce):
    _check(expr, value, rt, ce)


@pytest.mark.parametrize("name,expr,value,rt,ce", SEMVER, ids=[c[0] for c in SEMVER])
def test_semver(name, expr, value, rt, ce):
    _check(expr, value, rt, ce)


# -------------------------------------------------------------------- the blog's demo 3

GPU_DRIVER = "gpu.example.com"


def gpu(i: int = 0, memory: str = "80Gi") -> Device:
    attrs = {"index": AttributeValue("int", i),
             "uuid": AttributeValue("string", f"gpu-18db0e85-99e9-c746-8531-ffeb86328b{i:02d}"),
             "model": AttributeValue("string", "LATEST-GPU-MODEL")}
    attrs["driverVersion"] = AttributeValue("version", "1.0.0")
    return Device(name=f"gpu-{i}", attributes=attrs,
                  capacity={"memory": DeviceCapacity(Quantity.parse(memory)),
                            "compute": DeviceCapacity(Quantity.parse("100"))})


@pytest.mark.parametrize("expr,want", [
    ("device.driver == 'gpu.example.com'", True),
    ("device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'", True),
    ("device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0", True),
    ("device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0", False),
])
def test_blog_selectors(expr, want):
    assert compile_selector(expr).matches(GPU_DRIVER, gpu()) is want


def test_blog_explain():
    sel = compile_selector("device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0")
    assert sel.explain(GPU_DRIVER, gpu()) == "memory is 80Gi, needs >= 100Gi"
    sel = compile_selector("device.attributes['gpu.example.com'].model == 'OTHER' && device.driver != ''")
    assert sel.explain(GPU_DRIVER, gpu()) == "model is 'LATEST-GPU-MODEL', needs 'OTHER'"
    assert sel.references() == {("attributes", "gpu.example.com", "model")}


def test_blog_version():
    sel = compile_selector("device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('0.9.0'))")
    assert sel.matches(GPU_DRIVER, gpu()) is True


# -------------------------------------------------------------------- errors and limits

def test_missing_key_hint():
    with pytest.raises(CELRuntimeError) as ei:
        compile_selector("device.attributes['gpu.example.com'].nosuch == 'x'").matches(GPU_DRIVER, gpu())
    assert str(ei.value) == ("no such key: nosuch. consider using CEL optional chaining (.? followed by orValue()) "
                             "or guarding the check with has() for optional fields")


def test_safe_forms():
    d = gpu()
    guarded = "has(device.attributes['gpu.example.com'].x) && device.attributes['gpu.example.com'].x == 'y'"
    assert compile_selector(guarded).matches(GPU_DRIVER, d) is False
    assert compile_selector("device.attributes['gpu.example.com'].?x.orValue('') == ''").matches(GPU_DRIVER, d) is True
    assert compile_selector("device.attributes['other.example.com'].?x.hasValue()").matches(GPU_DRIVER, d) is False
    assert compile_selector("device.attributes['unknown'].size() == 0").matches(GPU_DRIVER, d) is True


def test_compile_error_position_and_caret():
    with pytest.raises(CELCompileError) as ei:
        compile_selector("device.driver == nosuch")
    e = ei.value
    assert e.position == 17
    assert "undeclared reference to 'nosuch'" in str(e) and "\n" not in str(e)
    assert e.caret() == "device.driver == nosuch\n                 ^"


def test_too_long():
    expr = 'device.driver == "' + "x" * 10240 + '"'
    with pytest.raises(CELCompileError, match="Too long: may not be more than 10240 bytes"):
        compile_selector(expr)


@pytest.mark.parametrize("expr", ["(" * 5000 + "true" + ")" * 5000, "!" * 100000 + "true",
                                  "1 + " * 2000 + "1 > 0", "a." * 3000 + "b", "[" * 4000 + "]" * 4000,
                                  "(" * 251 + "true" + ")" * 251])
def test_deep_nesting_is_a_clean_error(expr):
    with pytest.raises(CELCompileError):
        compile_selector(expr)


def test_nesting_limits_like_cel_go():
    # cel-go: per-rule recursion limit 250; runs of '!' / '-' collapse in pairs.
    assert compile_selector("(" * 249 + "true" + ")" * 249).matches(GPU_DRIVER, gpu()) is True
    assert compile_selector("!" * 10000 + "true").matches(GPU_DRIVER, gpu()) is True
    assert compile_selector("-" * 9000 + "1 > 0").matches(GPU_DRIVER, gpu()) is True


def test_non_bool_result_and_cross_type():
    assert evaluate_expression("1 < 2.5") is True
    assert evaluate_expression("dyn(4) == 4u") is True
    with pytest.raises(CELCompileError, match="found no matching overload for '_==_'"):
        compile_selector("4 == 4u")  # cel-go: equality operands must have the same static type
    with pytest.raises(CELCompileError, match="must evaluate to bool"):
        compile_selector("'x'")


def test_runtime_cost_limit_stops_evaluation():
    # Refused by validation (worst case too high); a stored copy runs until the actual
    # cost passes the limit. Each inner step is a regex match on a ~300-character string
    # (cel-go: ceil(301 * 0.1) * ceil(40 * 0.25) = 310), so the limit is reached after
    # ~3,200 steps; the steps depend on both loop variables.
    long = "x" * 300
    pattern = "[a-z]+" * 5 + "[0-9]+" + "y" * 4
    expr = (f"lists.range(200).all(a, lists.range(200).all(b, "
            f"!(string(a) + '{long}' + string(b)).matches('{pattern}')))")
    assert len(pattern) == 40
    with pytest.raises(CELCompileError, match="too complex"):
        compile_selector(expr)
    sel = compile_selector(expr, stored=True)
    with pytest.raises(CELRuntimeError, match="actual cost limit exceeded"):
        sel.matches(GPU_DRIVER, gpu())


def test_runtime_cost_limit_needs_no_counting_within_the_static_bound():
    # A stored expression whose worst case is within the limit cannot exceed it:
    # it runs without the cost-counting function table.
    sel = compile_selector("[1, 2, 3].all(a, a >= 0)", stored=True)
    assert sel.program.costed is False and sel.matches(GPU_DRIVER, gpu()) is True
    sel = compile_selector("lists.range(2000).all(a, lists.range(2000).all(b, a + b < 0))", stored=True)
    assert sel.program.costed is True and sel.matches(GPU_DRIVER, gpu()) is False  # stops at the first false


def test_runtime_cost_counts_only_what_upstream_evaluates():
    # The right operand of && is not evaluated when the left is false (cel-go short-circuits;
    # celpy would evaluate it), so its huge loop does not count against the limit.
    expr = "device.driver == 'other' && lists.range(1000).all(a, lists.range(1000).all(b, a + b >= 0))"
    sel = compile_selector(expr, stored=True)
    assert sel.program.costed is True
    assert sel.matches(GPU_DRIVER, gpu()) is False


@pytest.mark.parametrize("expr,want", [
    ("'abc'.charAt(1) == 'b'", True), ("'hello'.indexOf('l') == 2", True), ("'hello'.lastIndexOf('l') == 3", True),
    ("'ABc'.lowerAscii() == 'abc'", True), ("'a-b-c'.replace('-', '_') == 'a_b_c'", True),
    ("'a,b'.split(',') == ['a', 'b']", True), ("'hello'.substring(1, 3) == 'el'", True), ("'  x '.trim() == 'x'", True),
    ("['a', 'b'].join('/') == 'a/b'", True), ("[3, 1, 2].max() == 3", True), ("[1, 2, 3].sum() == 6", True),
    ("[1, 2, 3].isSorted()", True), ("[1, 2, 1].lastIndexOf(1) == 2", True), ("'abc123'.find('[0-9]+') == '123'", True),
    ("'abc'.matches('^a')", True), ("cel.bind(x, 2, x * x) == 4", True), ("optional.of(1).orValue(2) == 1", True),
    ("optional.none().orValue(2) == 2", True), ("{'a': 1}[?'b'].hasValue() == false", True),
    ("[1, 2].exists_one(x, x > 1)", True), ("[1, 2].map(x, x * 2) == [2, 4]", True),
    ("[1, 2, 3].filter(x, x > 1).size() == 2", True), ("int('12') + 1 == 13", True), ("string(1.5) == '1.5'", True),
    ("1 / 0 == 0 || true", True), ("false && (1 / 0 == 0)", False), ("(1 / 0 == 0) && false", False),
    # cel-go's optional library, version 2 (cel/library.go): Kubernetes takes its newest version
    ("[1, 2].first() == optional.of(1)", True), ("[1, 2].last() == optional.of(2)", True),
    ("[1].first().value() == [1].last().value()", True), ("[1].slice(1, 1).first().hasValue()", False),
    ("optional.unwrap([optional.of(1), optional.none(), optional.of(3)]) == [1, 3]", True),
    ("[optional.none(), optional.of('a')].unwrapOpt() == ['a']", True),
    ("optional.of(2).optMap(x, x * 3) == optional.of(6)", True),
    ("optional.none().optMap(x, x * 3).hasValue()", False),
    ("optional.of(2).optFlatMap(x, x > 1 ? optional.of(x) : optional.none()).value() == 2", True),
    ("optional.of(0).optFlatMap(x, x > 1 ? optional.of(x) : optional.none()).hasValue()", False),
    ("device.attributes['gpu.example.com'].?model.optMap(m, m.lowerAscii()).orValue('') == 'latest-gpu-model'", True),
    ("device.attributes['gpu.example.com'].?nosuch.optMap(m, m.size()).orValue(-1) == -1", True),
    # the URL library (apiserver pkg/cel/library urls.go)
    ("url('https://user:pass@example.com:80/path?query=val#fragment').getHost() == 'example.com:80'", True),
    ("url('https://[::1]:80/').getHostname() == '::1' && url('https://[::1]:80/').getPort() == '80'", True),
    ("url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'", True),
    ("url('/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}", True),
    ("url('HTTP://example.com/a') == url('http://example.com/a')", True),  # equal: their String()s are
    ("url('http://example.com/a%2fb') == url('http://example.com/a%2Fb')", False),
    ("url('/a') in [url('/b')]", False),
    ("isURL('../relative-path') || isURL('https://a:b:c/')", False),
    ("isURL(device.attributes['gpu.example.com'].model)", False),
    # the format library (apiserver pkg/cel/library format.go)
    ("format.dns1123Label().validate('my-name') == optional.none()", True),
    ("format.dns1123Label().validate(device.attributes['gpu.example.com'].model).hasValue()", True),
    ("format.dns1123LabelPrefix().validate('my-prefix-') == optional.none()", True),
    ("format.named('uuid').value().validate('123E4567E89B12D3A456426614174000').hasValue()", False),
    ("format.named('uuid').value() == format.uuid() && format.uuid() != format.date()", True),
    ("format.named('nosuch').hasValue() || format.named('DNS1123Label').hasValue()", False),
    ("format.date().validate('2024-02-29').hasValue() || format.date().validate('2023-02-29').hasValue()", True),
    ("format.datetime().validate('2024-02-29T23:59:59.5+01:00').hasValue()", False),
    ("format.byte().validate('aGVsbG8').hasValue()", True),
    ("format.labelValue().validate('').hasValue()", False),
])
def test_library_functions(expr, want):
    assert compile_selector(expr, stored=True).matches(GPU_DRIVER, gpu()) is want


def test_join_on_unsized_list_is_too_complex():
    # library.CostEstimator: join costs listSize * elementSize; element sizes of a list
    # literal are unknown to the DRA size estimator, so the estimate saturates.
    with pytest.raises(CELCompileError, match="too complex"):
        compile_selector("['a', 'b'].join('/') == 'a/b'")


def test_unsupported_is_a_compile_error():
    with pytest.raises(CELCompileError, match="not supported by dractl"):
        compile_selector("dyn(device.attributes['gpu.example.com'].model).allowed()")


def test_format_validation_messages_are_upstreams():
    label = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
             "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
    assert evaluate_expression("format.dns1123Label().validate('My-Name').value()") == [label]
    assert evaluate_expression(f"format.dns1123Label().validate('{'a' * 63}.').value()") == [
        "must be no more than 63 characters", label]
    assert evaluate_expression("format.dns1123Label().validate('a.b').value()") == ["must not contain dots"]
    # maskTrailingDash: the dash and the byte before it become one 'a' (here: half of an 'é', 64 bytes left)
    assert evaluate_expression(f"format.dns1123LabelPrefix().validate('{'a' * 62}é-').value()")[0] == (
        "must be no more than 63 characters")
    assert evaluate_expression(f"format.labelValue().validate('{'a' * 64}').value()") == [
        "must be no more than 63 bytes"]
    assert evaluate_expression("format.qualifiedName().validate('Example.com/-a').value()") == [
        "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
        "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]
    assert evaluate_expression("format.uri().validate('a b').value()") == [
        'parse "a b": invalid URI for request']
    assert evaluate_expression("format.uuid().validate('x').value()") == ["does not match the UUID format"]
    assert evaluate_expression("format.byte().validate('x').value()") == ["invalid base64"]
    assert evaluate_expression("format.date().validate('2023-02-29').value()") == ["invalid date"]
    assert evaluate_expression("format.datetime().validate('2023-01-01T24:00:00Z').value()") == ["invalid datetime"]
    with pytest.raises(CELCompileError, match=r"found no matching overload for 'validate' applied to "
                                              r"'kubernetes\.NamedFormat\.\(int\)'"):
        compile_selector("format.uuid().validate(1).hasValue()")


def test_url_parse_errors_are_upstreams():
    with pytest.raises(CELRuntimeError, match=r'^URL parse error during conversion from string: '
                                              r'parse "https://a:b:c/": invalid port ":b:c" after host$'):
        evaluate_expression("url('https://a:b:c/').getHost() == ''")
    with pytest.raises(CELRuntimeError, match="invalid URI for request"):
        evaluate_expression("url('../relative-path').getHost() == ''")
    with pytest.raises(CELCompileError, match=r"found no matching overload for 'getHost' applied to 'string\.\(\)'"):
        compile_selector("'https://example.com'.getHost() == ''")
    assert evaluate_expression("url('http://[fe80::1%25en0]:8080/').getHostname()") == "fe80::1%en0"
    assert evaluate_expression("url('/?a=%ff').getQuery()['a'][0].size()") == 1


def test_quantity_pointer_equality_quirk():
    # apiservercel.Quantity.Equal accepts only the value form; add()/sub() return *Quantity.
    with pytest.raises(CELRuntimeError, match="no such overload"):
        evaluate_expression('quantity("2") == quantity("1").add(1)')
    assert evaluate_expression('quantity("1").add(1) == quantity("2")') is True


# -------------------------------------------------------------------- memoised evaluation

def test_evaluate_many_matches_naive():
    devices = [(GPU_DRIVER, gpu(i, memory=("80Gi" if i % 3 else "20Gi"))) for i in range(50)]
    devices.append(("other.example.com", gpu(99)))
    for expr in ["device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
                 "device.attributes['gpu.example.com'].index % 2 == 0",
                 "device.attributes['gpu.example.com'].size() > 2",  # whole-map use: not memoisable
                 "device.attributes['gpu.example.com'].nosuch == 1",
                 "cel.bind(g, device.attributes['gpu.example.com'], g.index < 10 && g.model != '')"]:
        sel = compile_selector(expr)
        naive = []
        for drv, d in devices:
            try:
                naive.append(sel.matches(drv, d))
            except CELRuntimeError as ex:
                naive.append(str(ex))
        many = [r if isinstance(r, bool) else str(r) for r in evaluate_many(sel, devices)]
        assert many == naive, expr


# -------------------------------------------------------------------- the back-end is celpy

def test_evaluation_goes_through_celpy(monkeypatch):
    # Beyond the plain comparisons of native.py (tests/unit/cel/test_cel_native.py), celpy evaluates.
    import celpy
    import celpy.evaluation

    sel = compile_selector("device.attributes['gpu.example.com'].model.startsWith('LATEST')")
    assert isinstance(sel.program.runner, celpy.InterpretedRunner)
    assert sel.program.source == 'startsWith(device.attributes["gpu.example.com"].model, "LATEST")'
    calls = []
    real = celpy.evaluation.Evaluator.evaluate

    def spy(self, context=None):
        calls.append(context)
        return real(self, context)

    monkeypatch.setattr(celpy.evaluation.Evaluator, "evaluate", spy)
    assert sel.matches(GPU_DRIVER, gpu()) is True
    assert len(calls) == 1 and set(calls[0]) == {"device"}
    # explain() evaluates its sub-expressions with celpy as well
    sel = compile_selector("device.attributes['gpu.example.com'].model.startsWith('OTHER')")
    calls.clear()
    assert sel.explain(GPU_DRIVER, gpu()) == "model is 'LATEST-GPU-MODEL', needs to start with 'OTHER'"
    assert calls
    # a plain comparison whose attribute is missing is celpy's too (it owns every error)
    sel = compile_selector("device.attributes['gpu.example.com'].nosuch == 1")
    calls.clear()
    with pytest.raises(CELRuntimeError, match="no such key: nosuch"):
        sel.matches(GPU_DRIVER, gpu())
    assert calls
    calls.clear()
    assert evaluate_expression("[1, 2].map(x, x * 2)") == [2, 4]
    assert calls  # the map macro's per-element evaluations are celpy's too


def test_celpy_function_table_is_what_runs():
    # Replacing a function in the celpy table the program was bound to changes the result:
    # nothing else evaluates the expression.
    from dractl.cel import backend

    sel = compile_selector("'abc'.upperAscii() == 'ABC'", stored=True)
    assert sel.matches(GPU_DRIVER, gpu()) is True
    table = backend._TABLES[0]
    real = table["upperAscii"]
    try:
        table["upperAscii"] = lambda s: s
        assert compile_selector("'abc'.upperAscii() == 'ABC'", stored=True).matches(GPU_DRIVER, gpu()) is False
    finally:
        table["upperAscii"] = real


def test_importing_dractl_cel_does_not_import_celpy():
    import subprocess
    import sys

    code = ("import sys, dractl.cel; from dractl.cel import CELCompileError, CELRuntimeError; "
            "print(sorted(m for m in ('celpy', 'lark') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("expr,want", [
    # errors are values inside loops and bindings (celpy's own macros would abort)
    ("[0, 1].exists(x, 6 / x > 5)", True),
    ("[1, 0].all(x, 6 / x > 0) || true", True),
    ("[1, 2].map(x, 6 / (x - 1)) == [] || true", True),
    ("cel.bind(x, 1 / 0, true)", True),
    ("[0, 5].all(x, 6 / x > 5)", False),  # a false beats an earlier error
    # cross-type numeric comparison and heterogeneous equality (celpy: no such overload)
    ("1 < 2.5 && dyn(1u) < 2 && dyn(-1) < 1u && dyn(1) == 1.0 && dyn(1) != 'a'", True),
    # two-variable comprehensions
    ("[10, 20].all(i, v, v == (i + 1) * 10)", True),
    ("{'a': 1}.exists(k, v, k == 'a' && v == 1)", True),
])
def test_cel_go_semantics_on_celpy(expr, want):
    assert compile_selector(expr, stored=True).matches(GPU_DRIVER, gpu()) is want


@pytest.mark.parametrize("expr,err", [
    ("[1, 0].exists_one(x, 6 / x > 0)", "division by zero"),
    ("[0, 1].all(x, 6 / x > 5)", "division by zero"),  # error && true stays an error
    ("{'a': 1 / 0}.size() == 1", "division by zero"),
    ("9223372036854775807 + 1 > 0", "integer overflow"),
    ("{'a': 1}.b == 1", "no such key: b"),
    ("dyn(1).a == 1", "no such key: a"),
    ("[1, 2][2] == 1", "index out of bounds: 2"),  # cel-go v0.29 (k8s v0.37)
    ("(1 / 0 == 1) ? true : false", "division by zero"),
    ("dyn(1) ? true : false", "no such overload"),
    ("dyn('a') && true", "no such overload"),
])
def test_cel_go_errors_on_celpy(expr, err):
    with pytest.raises(CELRuntimeError, match=err.replace("[", r"\[").replace("(", r"\(")):
        compile_selector(expr, stored=True).matches(GPU_DRIVER, gpu())


# Results checked against k8s.io/dynamic-resource-allocation v0.37.2 (cel-go v0.29.2).
@pytest.mark.parametrize(
    "expr",
    [
        '{"a": 1, "a": 2}.size() == 1',  # a repeated key keeps the last value
        '{"a": 1, "a": 2}["a"] == 2',
        "{1.5: 1}.size() == 1",  # double keys are allowed in map literals
        "{1.5: 1}[1.5] == 1",
        "{null: 1}.size() == 1",  # null keys too
    ],
)
def test_map_literals_like_cel_go(expr):
    assert evaluate_expression(expr) is True


def test_lists_range_refuses_a_negative_size():
    # cel-go ext/lists.go, checked against v0.29.2
    with pytest.raises(CELRuntimeError, match="lists.range: size must be non-negative, got -3"):
        evaluate_expression("lists.range(-3) == []")
